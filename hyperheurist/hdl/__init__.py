"""The HDL front end: the canonical preprocessed design, and (in time) one pyslang view of it."""
