"""Declared stages (``model``), what their plans read (``context``), the one stage runner (``runner``)."""
