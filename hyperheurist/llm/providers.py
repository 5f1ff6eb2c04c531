"""Where Phase-1 candidates come from: seed files (``offline``/``files``) and, with an endpoint, the LLM."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ..candidate import Candidate
from ..config import DesignConfig
from ..errors import ConfigError, NoValidCandidate
from .errors import KeyRefused, LLMUnavailable
from .protocol import LLM, Usage

if TYPE_CHECKING:
    from .rules import RuleMemory


def seed_candidates(design: DesignConfig) -> list[Candidate]:
    """One candidate per seed (a file, a filelist or a folder), labelled by its name, in sorted order."""
    from ..project.sources import path_candidate

    gen = design.generation
    files = gen.seed_files()
    if gen.seeds and not files:
        raise ConfigError(f"{design.source}: generation.seeds: no file matches {gen.seeds}")
    out = []
    if not gen.seeds and design.sources:  # the design's own RTL is the natural first candidate
        from ..project.sources import candidate_from, design_sources

        out.append(candidate_from(design_sources(design), design, origin="seed", label="sources"))
    for p in files:
        try:
            out.append(path_candidate(Path(p), design, origin="seed", label=Path(p).stem))
        except OSError as exc:
            raise ConfigError(f"{p}: cannot read seed file: {exc.strerror}") from None
    return out


def endpoint(design: DesignConfig, base_url: str | None, api_key: str | None) -> tuple[str | None, str | None]:
    """The endpoint and key in force: CLI flag, then environment, then design.yaml."""
    url = base_url or os.environ.get("OPENAI_BASE_URL") or design.generation.base_url
    key = api_key or os.environ.get("OPENAI_API_KEY")
    return url, key


class LLMChoice(NamedTuple):
    """What ``make_client`` decided: the run's LLM (None: offline) and a note on why it is offline or replaying."""

    client: LLM | None
    note: str | None


def make_client(design: DesignConfig, run_dir: Path, *, base_url: str | None = None, api_key: str | None = None,
                model: str | None = None, replay_dir: Path | None = None) -> LLMChoice:
    """The LLM client for this run, or None with a note saying why the run is offline.

    ``replay_dir`` (``hh run --replay``) answers every request from that run's recording and sends none;
    it implies the openai provider. A base URL without a key is a local server: a dummy key is used.
    """
    if replay_dir is None and design.generation.provider != "openai":
        return LLMChoice(None, None)
    url, key = endpoint(design, base_url, api_key)
    from .client import LLMClient

    if replay_dir is None and not url and not key:
        if any((Path(run_dir) / "llm").glob("*.json")):  # a resumed run: its own records still answer
            client = LLMClient.create(design, run_dir, base_url=None, api_key=None, model=model, records_only=True)
            return LLMChoice(client, "no endpoint configured: LLM requests are answered from this run's records only")
        return LLMChoice(None, "generation.provider is openai but no endpoint or OPENAI_API_KEY is set; "
                               "running offline")
    client = LLMClient.create(design, run_dir, base_url=url, api_key=key, model=model, replay_dir=replay_dir)
    return LLMChoice(client, f"replaying LLM responses recorded in {replay_dir}" if replay_dir is not None else None)


def initial_candidates(design: DesignConfig, client: LLM | None, rules: RuleMemory | None) -> list[Candidate]:
    """Seed files first (when configured), then the LLM's candidates when a client is available."""
    cands = seed_candidates(design)
    if client is not None:
        cands += client.generate(design, design.generation.candidates, rules)
        if client.usage().get("key_refused"):  # a bad key is a configuration error, seed files or not
            raise KeyRefused(f"{design.source}: generation: {client.usage().get('note')}")
    if cands:
        return cands
    if client is None:
        raise ConfigError(f"{design.source}: generation: no candidates: set generation.seeds or configure an endpoint")
    usage = client.usage()
    records = usage.get("records") or "the run's llm/ folder"
    if not client.available:
        raise LLMUnavailable(f"no candidates: no seed files and the LLM is unavailable ({usage.get('note')}); "
                             f"the requests are in {records}")
    raise NoValidCandidate(f"{design.source}: the LLM returned no usable Verilog "
                           f"({design.generation.candidates} requests; {_why(usage)}; see {records})")


def _why(usage: Usage) -> str:
    """What went wrong with the requests, in the server's words when a request failed."""
    failures = usage.get("failures") or []
    if failures:
        return f"{usage.get('failed_requests', 0)} failed, first: {failures[0]['error']}"
    return f"{usage.get('no_code', 0)} answer(s) held no usable code"
