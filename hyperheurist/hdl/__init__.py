"""The HDL front end: every way hh reads Verilog, on pyslang.

canonical (one preprocessed design every tool reads), parse (the bounded parse/elaborate helper),
tokens (raw-text tokens for the safety scan), ports (ports, parameters, widths after elaboration),
elaborate (the structure gate's view, in a sandboxed child), rename (module rename on tokens),
extract (modules out of chat text), literals (the one rule for names and parameter values).
"""
