"""The LLM layer: candidate providers, the OpenAI-compatible client, prompts, failure-rule memory.

Modules: ``providers`` (where Phase-1 candidates come from, ``make_client``), ``client`` (the roles:
generate, repair, mutate, critique), ``transport`` (one request: timeout, retries, backoff),
``budget`` (requests/tokens/cost per run and phase), ``record`` (``RUN_DIR/llm/NNNN.json`` and the
replay cache), ``extract`` (Verilog out of a response), ``prompts`` (templates in
``hyperheurist/prompts/*.md``), ``rules`` (failure-rule memory), ``errors``.

Environment knobs: ``OPENAI_BASE_URL``/``OPENAI_API_KEY`` (endpoint), ``HH_LLM_BACKOFF_S`` (first retry
wait, default 1 s), ``HH_LLM_CRITIQUE=1`` (as ``generation.critique: true``: ask the LLM to vet each LLM move before it is evaluated),
``HH_PROMPTS_DIR`` (a folder of replacement prompt templates).
"""
