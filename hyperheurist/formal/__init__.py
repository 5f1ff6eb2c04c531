"""Formal equivalence of a candidate against a golden design: miter, engines, counterexamples.

``check`` is the one check both callers run (the equivalence gate, rewrite proofs): a plan of tool runs;
``miter`` builds an X-aware wrapper around both sides (reset sequence, output qualifiers) and the one
Yosys run that flattens it and writes the AIGER, ``inits`` ties free start values on the way;
``abc`` proves it on AIGER with ABC, ``yosat`` with Yosys SAT (4-state, the fallback);
``cex`` maps a solver counterexample back to ports; ``replay`` re-runs it in Icarus;
``verdict`` holds the four verdict kinds and the pass policy.
"""
