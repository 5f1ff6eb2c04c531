"""The LLM client the flow and the moves use: roles (generate, repair, mutate, critique) over one
OpenAI-compatible endpoint, with the budget, the recording/replay cache and code extraction.

Once the endpoint is lost (retries exhausted, budget spent, key refused) the client is *dead*: every
later call raises LLMUnavailable at once, without a request, and ``usage()['note']`` says why. A
request that fails alone (a 400, an empty reply) is counted, and the first few failures are kept in
``usage()['failures']`` with the server's own words.
"""

from __future__ import annotations

import functools
import ipaddress
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlparse

from ..candidate import Candidate
from ..config import DesignConfig
from ..ppa.metrics import PPAJson
from . import prompts
from .budget import Budget
from .chat import Attempt, Build, ChatMessage, Record, ReplyUsage, Sampling
from .errors import KeyRefused, LLMUnavailable, RequestFailed
from .exchange import Exchange
from .extract import THINK, Extracted, extract_verilog
from .profile import PROFILE_FILE, Profile, ProfileKeeper
from .protocol import Counts, Failure, RequestFailure, Usage
from .record import Recorder, public_url, request_key, scrub
from .transport import Reply, Transport

if TYPE_CHECKING:
    from .rules import RuleMemory

__all__ = ["LLMClient", "LLMUnavailable", "variant_temperature"]

MAX_FAILURES_KEPT = 5


def variant_temperature(base: float, i: int, n: int) -> float:
    """Spread generation temperatures over 0.75x..1.25x of the configured one (clamped to 0..2)."""
    if n <= 1:
        return round(base, 3)
    return round(min(2.0, max(0.0, base * (0.75 + 0.5 * i / (n - 1)))), 3)


def concurrency() -> int:
    """Requests in flight at once when a role sends several (``HH_LLM_CONCURRENCY``, default 4)."""
    try:
        return max(1, int(os.environ.get("HH_LLM_CONCURRENCY", "4")))
    except ValueError:
        return 4


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def local_endpoint(url: str | None) -> bool:
    """A server on this machine or a private network (vLLM, Ollama, llama.cpp), where streaming is the default."""
    host = (urlparse(url).hostname or "") if url else ""
    if host == "localhost" or host.endswith((".local", ".localhost", ".internal", ".lan")):
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    return ip.is_loopback or ip.is_private or ip.is_link_local


def wants_stream(setting: bool | str, url: str | None) -> bool:
    return local_endpoint(url) if setting == "auto" else bool(setting)


class LLMClient:
    """Roles over one endpoint; all requests pass the budget and are recorded under ``RUN_DIR/llm``."""

    def __init__(self, design: DesignConfig, transport: Transport | None, recorder: Recorder, model: str,
                 base_url: str | None = None, profile_from: Path | None = None) -> None:
        self.design = design
        self.transport = transport
        self.recorder = recorder
        self.model = model
        self.base_url = public_url(base_url)
        gen = design.generation
        start = Profile.start(gen, self.base_url, model, wants_stream(gen.stream, base_url))
        run_dir = recorder.dir.parent
        self.profile = ProfileKeeper.open(start, profile_from or run_dir, run_dir / PROFILE_FILE,
                                          replay=profile_from is not None)
        self.profile.secrets = recorder.secrets
        self.exchange = Exchange(transport, self.profile, gen.retries, gen.extra_body) if transport else None
        self.failures: list[RequestFailure] = []  # the first few failed requests: phase, the server's words
        self.budget = Budget.from_config(design.generation)
        self.budget.restore(recorder.earlier)
        self.dead: str | None = None
        self.key_refused = False  # the endpoint refused the key: a configuration error, not an outage
        self.lock = threading.Lock()  # budget, counters and ``dead`` are shared by concurrent requests
        self.rules: RuleMemory | None = None
        self.say: Callable[[str], None] | None = None
        self.critique_enabled = design.generation.critique or _flag("HH_LLM_CRITIQUE")
        self.counts = Counts(cache_hits=0, replayed=0, failed_requests=0, no_code=0, critique_rejected=0,
                             replay_misses=0, duplicate_answers=0)

    @classmethod
    def create(cls, design: DesignConfig, run_dir: Path, *, base_url: str | None, api_key: str | None,
               model: str | None = None, replay_dir: Path | None = None, records_only: bool = False) -> LLMClient:
        """``replay_dir``: answer from that run's recording; ``records_only``: from this run's own records
        (a resumed run without its endpoint). Either way nothing is sent."""
        gen = design.generation
        recorder = Recorder(run_dir, replay_dir, secrets=[api_key] if api_key else [])
        offline = replay_dir is not None or records_only
        transport = None if offline else Transport(base_url, api_key, gen.request_timeout_s, gen.idle_timeout_s)
        replayed = Path(replay_dir) if replay_dir is not None else None
        return cls(design, transport, recorder, model or gen.model, base_url, profile_from=replayed)

    def attach(self, rules: RuleMemory | None = None, say: Callable[[str], None] | None = None) -> None:
        """Give the client the run's rule memory (used by mutation prompts) and a way to tell the user things."""
        self.rules = rules
        self.say = say

    # ---- state ----------------------------------------------------------------------------------
    @property
    def available(self) -> bool:
        return self.dead is None

    @property
    def replaying(self) -> bool:
        return self.recorder.replaying

    def usage(self) -> Usage:
        out, c = self.budget.usage(), self.counts
        out["cache_hits"], out["replayed"] = c["cache_hits"], c["replayed"]
        out["failed_requests"], out["no_code"] = c["failed_requests"], c["no_code"]
        out["critique_rejected"] = c["critique_rejected"]
        out["replay_misses"], out["duplicate_answers"] = c["replay_misses"], c["duplicate_answers"]  # Counts' order
        mode = "replay" if self.replaying else ("live" if self.transport is not None else "records")
        out.update({"model": self.model, "endpoint": self.base_url, "mode": mode,
                    "records": str(self.recorder.dir), "profile": scrub(self.profile.to_json(), self.recorder.secrets)})
        if self.failures:
            out["failures"] = list(self.failures)
        if self.dead:
            out["note"] = self.dead
            if self.key_refused:
                out["key_refused"] = True
        elif self.failures:
            first = self.failures[0]
            out["note"] = (f"{self.counts['failed_requests']} request(s) failed; first ({first['phase']}): "
                           f"{first['error']}")
        return out

    def _failed(self, phase: str, error: str) -> None:
        with self.lock:
            self.counts["failed_requests"] += 1
            if len(self.failures) < MAX_FAILURES_KEPT:
                self.failures.append(RequestFailure(phase=phase, error=error))

    def _die(self, reason: str) -> None:
        with self.lock:
            first = self.dead is None
            if first:
                self.dead = reason
        if first and self.say is not None:
            self.say(f"hh: LLM disabled for the rest of the run: {reason}")

    # ---- one request ----------------------------------------------------------------------------
    def _params(self, temperature: float, seed: int) -> Sampling:
        """The sampling parameters (the request's identity); the profile decides what is sent and how."""
        return {"temperature": round(temperature, 3), "seed": int(seed) % 2**31}

    def _complete(self, phase: str, build: Build, params: Sampling, top: str | None
                  ) -> tuple[str | None, Extracted | None]:
        """The response text and, when ``top`` is given, the Verilog in it. (None, None) when this request
        failed; LLMUnavailable when the endpoint is gone or a replay has no such request."""
        return self._finish(*self._fetch(phase, build, params), top)

    def _complete_many(self, phase: str, jobs: list[tuple[Build, Sampling]], top: str | None
                       ) -> list[tuple[str | None, Extracted | None] | LLMUnavailable]:
        """Several requests at once (up to ``HH_LLM_CONCURRENCY``, default 4, in flight); results and
        records in job order, so a run's record numbering does not depend on which answer came first."""
        fetched, i = [], 0
        # Until the endpoint has answered once, jobs go one at a time in job order: the probe is always
        # the first job, so what the profile learns (a refused temperature, say) does not depend on
        # which thread won the race (a probe at temperature 1.0 teaches nothing about temperature).
        while i < len(jobs) and self.exchange is not None and not self.profile.profile.probed:
            fetched.append(self._fetch(phase, *jobs[i]))
            i += 1
        rest = jobs[i:]
        workers = max(1, min(len(rest), concurrency()))
        if workers == 1:
            fetched += [self._fetch(phase, m, p) for m, p in rest]
        else:
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="hh-llm") as pool:
                fetched += list(pool.map(lambda job: self._fetch(phase, *job), rest))
        out: list[tuple[str | None, Extracted | None] | LLMUnavailable] = []
        for f in fetched:
            try:
                out.append(self._finish(*f, top))
            except LLMUnavailable as exc:
                out.append(exc)
        return out

    def _fetch(self, phase: str, build: Build, params: Sampling) -> tuple[Record, str | None, LLMUnavailable | None]:
        """Answer one request from the recording, the cache or the endpoint; thread-safe, writes nothing.
        Returns the record so far, the response text (None: failed) and an error to raise later.
        The key is the full prompt's: a shortened one (context too small) is recorded beside it."""
        messages = build(0)
        key = request_key(self.model, messages, params)
        rec: Record = {"phase": phase, "key": key, "model": self.model, "endpoint": self.base_url,
                               "params": params, "messages": messages}
        if self.dead:
            gone = KeyRefused if self.key_refused else LLMUnavailable
            return {**rec, "source": "none", "error": self.dead}, None, gone(self.dead)
        hit = self.recorder.lookup(key)
        if hit is not None:
            with self.lock:
                self.counts["replayed" if self.replaying else "cache_hits"] += 1
            return ({**rec, "source": "replay" if self.replaying else "cache",
                     "finish_reason": hit.get("finish_reason"), "usage": hit.get("usage"), "latency_s": 0.0,
                     "error": None}, hit["response"], None)
        if self.replaying or self.transport is None:
            with self.lock:
                self.counts["replay_misses"] += 1
            where = (f"the recording in {self.recorder.replay_dir}" if self.replaying
                     else f"this run's records in {self.recorder.dir} (no endpoint configured)")
            return ({**rec, "source": "replay", "error": f"not in {where}"}, None,
                    LLMUnavailable(f"{where} has no response for this {phase} request (key {key[:12]})"))
        assert self.exchange is not None
        try:
            reply = self.exchange.run(self.model, build, params, before_attempt=self._reserve,
                                      after_attempt=lambda a: self._charge(phase, a))
        except LLMUnavailable as exc:
            reason = scrub(str(exc), self.recorder.secrets)  # an error body may echo the key
            if isinstance(exc, KeyRefused):
                self.key_refused = True
            self._die(reason)
            attempts = exc.attempts  # None: refused before sending (budget)
            return ({**rec, "source": "network" if attempts else "not sent", "error": reason, "attempts": attempts},
                    None, type(exc)(reason))
        except RequestFailed as exc:
            reason = scrub(str(exc), self.recorder.secrets)
            self._failed(phase, reason)
            return {**rec, "source": "network", "error": reason, "attempts": exc.attempts}, None, None
        done: Record = {**rec, "source": "network", "finish_reason": reply.finish_reason, "usage": _usage(reply),
                        "latency_s": round(reply.latency_s, 4), "attempts": reply.attempts, "error": None}
        if reply.trim:
            done["trim"] = reply.trim
            done["sent_messages"] = reply.messages
        return done, reply.text, None

    def _finish(self, rec: Record, text: str | None, error: LLMUnavailable | None, top: str | None
                ) -> tuple[str | None, Extracted | None]:
        """Extract the code, write the record, then raise the request's error if it had one."""
        ex = extract_verilog(text, top) if top and text is not None else None
        self._count_extract(ex)
        if rec.get("source") != "none":  # not sent at all (the client was already off): nothing to record
            self.recorder.write({**rec, "response": text, "extracted": ex.to_dict() if ex else None})
        if error is not None:
            raise error
        return text, ex

    def _reserve(self) -> None:
        with self.lock:
            if self.dead:
                raise LLMUnavailable(self.dead)
            self.budget.reserve()

    def _charge(self, phase: str, attempt: Attempt) -> None:
        with self.lock:
            self.budget.charge(phase, int(attempt.get("tokens_in", 0)), int(attempt.get("tokens_out", 0)))

    def _count_extract(self, ex: Extracted | None) -> None:
        if ex is not None and not ex.ok:
            self.counts["no_code"] += 1

    # ---- roles ----------------------------------------------------------------------------------
    def generate(self, design: DesignConfig, n: int, rules: RuleMemory | None) -> list[Candidate]:
        """Up to ``n`` candidates, one request each with its own style, temperature and seed. Stops early
        (keeping what it has) when the endpoint is lost; responses without code are skipped."""
        out: list[Candidate] = []
        seen: set[str] = set()
        gen = design.generation
        jobs: list[tuple[Build, Sampling]] = [
            (functools.partial(prompts.generate_messages, design, rules, i, n),
             self._params(variant_temperature(gen.temperature, i, n), design.anneal.seed * 1000 + i))
            for i in range(n)]
        for i, result in enumerate(self._complete_many("generate", jobs, design.top)):
            if isinstance(result, LLMUnavailable):
                continue  # lost endpoint (the others' answers are kept) or a replay miss
            _, ex = result
            if ex is not None and ex.ok and ex.code:
                cand = Candidate.from_text(ex.code, design.top, name=f"{design.top}.v", origin="llm",
                                           label=f"llm{i + 1}", move="llm_generate")
                if cand.digest in seen:  # kept (Phase 1 gates it once and names the copies); counted here
                    with self.lock:
                        self.counts["duplicate_answers"] += 1
                seen.add(cand.digest)
                out.append(cand)
        return out

    def repair(self, design: DesignConfig, candidate: Candidate, failure: Failure,
               rules: RuleMemory | None) -> Candidate | None:
        """A fixed version of ``candidate`` given the failing gate's message, or None (no code, same code)."""
        def build(trim: int) -> list[ChatMessage]:
            return prompts.repair_messages(design, candidate, failure.gate, failure.message, rules, trim)

        params = self._params(design.generation.temperature * 0.5, int(candidate.digest[:8], 16))
        _, ex = self._complete("repair", build, params, design.top)
        if ex is None or not ex.ok or not ex.code:
            return None
        fixed = candidate.with_sources(((f"{design.top}.v", ex.code),), move="llm_repair", origin="repair")
        if fixed.digest == candidate.digest:
            return None
        return replace(fixed, label=f"{candidate.label or candidate.short}+fix")

    def mutate(self, design: DesignConfig, candidate: Candidate, metrics: PPAJson | None, goal: str, scope: str,
               seed: int, move: str, rules: RuleMemory | None = None) -> Candidate | None:
        """A PPA-directed rewrite (``scope`` local|rewrite, ``goal`` area|timing|power), or None."""
        memory = rules if rules is not None else self.rules

        def build(trim: int) -> list[ChatMessage]:
            return prompts.mutate_messages(design, candidate, metrics, goal, scope, memory, trim)

        temp = design.generation.temperature if scope == "rewrite" else min(design.generation.temperature, 0.5)
        _, ex = self._complete("mutate", build, self._params(temp, seed), design.top)
        if ex is None or not ex.ok or not ex.code:
            return None
        new = candidate.with_sources(((f"{design.top}.v", ex.code),), move=move, origin="llm")
        return None if new.digest == candidate.digest else new

    def critique(self, design: DesignConfig, parent: Candidate, proposal: Candidate, metrics: PPAJson | None,
                 goal: str) -> bool:
        """Whether the LLM thinks ``proposal`` is worth evaluating (first line ACCEPT/REJECT; unclear = yes)."""
        def build(trim: int) -> list[ChatMessage]:
            return prompts.critique_messages(design, parent, proposal, metrics, goal, trim)

        text, _ = self._complete("critique", build, self._params(0.0, 0), None)
        answer = THINK.sub("", text or "").strip()
        first = answer.splitlines()[0].upper() if answer else ""
        ok = "REJECT" not in first
        if not ok:
            self.counts["critique_rejected"] += 1
        return ok


def _usage(reply: Reply) -> ReplyUsage:
    return {"prompt_tokens": reply.tokens_in, "completion_tokens": reply.tokens_out,
            "total_tokens": reply.tokens_in + reply.tokens_out, "estimated": reply.estimated_tokens}

