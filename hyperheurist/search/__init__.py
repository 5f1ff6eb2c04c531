"""Phase 2: hyper-heuristic simulated annealing over (RTL, recipe) states. No tool I/O here."""
