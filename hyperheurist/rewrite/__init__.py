"""RTL rewrites and their proofs: ``prove`` proves a rewritten design against its parent with the
formal engines (``hyperheurist.formal``); ``interface`` reads a module's ports when no design.yaml
gives them."""
