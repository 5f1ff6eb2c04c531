"""Word-level rewriting by equality saturation: exact-width terms, rules, extraction by a calibrated cost."""

import os

# egglog runs on a rayon pool sized by RAYON_NUM_THREADS when the pool starts: with more than one thread its
# e-class numbering differs (measured: the same saturation, another graph), and with it which of two equal-cost
# terms extraction keeps. Pinned here, before any module of this package imports egglog, so that a run, its
# resume and a run on another machine propose the same rewrites whatever the user's environment says.
os.environ["RAYON_NUM_THREADS"] = "1"
