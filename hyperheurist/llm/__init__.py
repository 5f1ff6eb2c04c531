"""The LLM layer: candidate providers, the OpenAI-compatible client, prompts, failure-rule memory.

Modules: ``protocol`` (``LLM``: what the flow and the moves need from an LLM; the client and test
stubs satisfy it), ``chat`` (messages, sampling parameters, records), ``providers`` (where Phase-1
candidates come from, ``make_client``), ``client`` (the roles:
generate, repair, mutate, critique), ``exchange`` (one logical request: retries, Retry-After, what a
400 teaches, context-length shrinking, a larger output cap after an empty cut-off reply),
``transport`` (one HTTP attempt, streamed with an idle timeout or not), ``profile`` (what the model
accepts, learned by one shared probe, ``RUN_DIR/llm_profile.json``), ``budget`` (requests/tokens/cost
per run and phase), ``record`` (``RUN_DIR/llm/NNNN.json`` and the replay cache), ``extract`` (Verilog
out of a response), ``prompts`` (templates in ``hyperheurist/prompts/*.md``, shortened by ``trim``),
``rules`` (failure-rule memory), ``check`` (``hh doctor --llm``), ``errors``.

Environment knobs: ``OPENAI_BASE_URL``/``OPENAI_API_KEY`` (endpoint), ``HH_LLM_BACKOFF_S`` (first retry
wait, default 1 s), ``HH_LLM_CRITIQUE=1`` (as ``generation.critique: true``: ask the LLM to vet each LLM
move before it is evaluated), ``HH_PROMPTS_DIR`` (a folder of replacement prompt templates).
"""
