"""HyperHeurist: correct-first, then PPA-optimised RTL from LLM candidates."""

__version__ = "0.1.0"
