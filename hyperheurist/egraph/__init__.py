"""Word-level rewriting by equality saturation: exact-width terms, rules, extraction by a calibrated cost."""
