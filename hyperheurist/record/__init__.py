"""The typed run record: one pydantic model per journal record type (a union discriminated by ``type``),
the evaluation and proof records they hold, and the closed sets (verdicts, gates) as StrEnums.

``entries.parse_record`` is the one place a journal line becomes a typed record; ``JsonRecord`` keeps a
parsed line's bytes (key order, absent and unknown keys), so the hash-chained journal reads and writes
exactly what it did when its records were dicts. Import the submodules (this package re-exports
nothing; ``search.state`` re-exports ``record.evaluation.Evaluation``: the record imports nothing of the search)."""
