"""Formal equivalence of a candidate against a golden design: miter, engines, counterexamples.

``miter`` builds an X-aware wrapper around both sides (reset sequence, output qualifiers);
``abc`` proves it on AIGER with ABC, ``yosat`` with Yosys SAT (4-state, the fallback);
``cex`` maps a solver counterexample back to ports; ``replay`` re-runs it in Icarus;
``verdict`` holds the four verdict kinds and the pass policy.
"""
