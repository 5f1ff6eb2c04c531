"""The LLM layer: candidate providers, the OpenAI-compatible client, prompts, failure-rule memory."""
