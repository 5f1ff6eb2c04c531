"""``hh doctor --llm``: one request to the configured endpoint, the model profile it revealed and
the first error in full (the server's own words), so a misconfigured endpoint is found before a run."""

from __future__ import annotations

import os
import time
from pathlib import Path

from ..config import Generation, load_design
from ..errors import EXIT_OK, ConfigError
from .chat import Attempt, ChatMessage
from .errors import LLMUnavailable, RequestFailed
from .exchange import Exchange
from .profile import Profile, ProfileKeeper
from .record import public_url, scrub
from .transport import Transport

PROMPT: list[ChatMessage] = [{"role": "system", "content": "You are a terse assistant."},
                             {"role": "user", "content": "Reply with the single word OK."}]


def llm_check(design: Path | None, base_url: str | None, model: str | None, api_key: str | None
              ) -> tuple[list[str], int]:
    """Lines to print and the exit code (0 answered, 2 key refused, 3 no answer); ConfigError when no
    endpoint is configured."""
    from .client import wants_stream
    from .providers import endpoint

    d = load_design(design) if design is not None else None
    gen = d.generation if d is not None else Generation()
    if d is not None:
        url, key = endpoint(d, base_url, api_key)
    else:
        url, key = base_url or os.environ.get("OPENAI_BASE_URL"), api_key or os.environ.get("OPENAI_API_KEY")
    name = model or gen.model
    secrets = [key] if key else []
    if not url and not key:
        raise ConfigError("doctor --llm: no endpoint: set OPENAI_BASE_URL or --base-url (and OPENAI_API_KEY for a "
                          "hosted one), or give --design with generation.base_url")
    stream = wants_stream(gen.stream, url)
    keeper = ProfileKeeper(Profile.start(gen, public_url(url), name, stream), None)
    ex = Exchange(Transport(url, key, gen.request_timeout_s, gen.idle_timeout_s), keeper, min(gen.retries, 1),
                  gen.extra_body)
    lines = [f"llm endpoint: {public_url(url) or 'https://api.openai.com/v1'}  model: {name}  "
             f"streamed: {'yes' if stream else 'no'}"]
    attempts: list[Attempt] = []
    t0 = time.monotonic()
    code = EXIT_OK
    try:
        reply = ex.run(name, lambda _trim: PROMPT, {"temperature": gen.temperature, "seed": 1},
                       after_attempt=attempts.append)
        usage = f"{reply.tokens_in} tokens in, {reply.tokens_out} out{' (estimated)' if reply.estimated_tokens else ''}"
        lines.append(f"llm request: answered in {time.monotonic() - t0:.2f} s after {len(attempts)} attempt(s); "
                     f"{usage}; finish_reason {reply.finish_reason}; reply: {reply.text.strip()[:80]!r}")
    except (LLMUnavailable, RequestFailed) as exc:
        code = exc.exit_code  # 2: the key was refused; 3: no answer
        lines.append(f"llm request: FAILED after {len(attempts)} attempt(s): {exc}")
    p = keeper.profile
    lines.append(f"llm profile: token_param={p.token_param} temperature={p.temperature} seed={p.seed} "
                 f"reasoning_effort={p.reasoning_effort} output_tokens={p.output_tokens} "
                 f"max_output_tokens={p.max_output_tokens} context_length={p.context_length}")
    lines += [f"llm learned: {x['what']}" for x in p.learned]
    first = next((a for a in attempts if a.get("error")), None)
    if first is not None:
        lines.append(f"llm first error (attempt {first['attempt']}): {first['error']}")
    return [scrub(ln, secrets) for ln in lines], code
