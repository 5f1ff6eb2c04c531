"""``hh run``: Phase 1 (candidates through the gates, LLM repair) then Phase 2 (annealing).

The run directory is the record; the journal makes the run resumable. Tool work happens in a
local process pool; scoring, acceptance and bookkeeping happen here.
"""

from __future__ import annotations

import errno
import signal
import sys
import time
from collections.abc import Callable
from concurrent.futures import BrokenExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .candidate import Candidate
from .config import DesignConfig, Weights
from .errors import ConfigError, HHError, InputError, NoValidCandidate, StorageError, ToolError
from .evaluate import EvalTask, Outcome, evaluate, first_line, worker_init
from .executors import Executor, make_executor
from .journal import INFRA, Journal, file_digest
from .jsonio import write_json, write_text_atomic
from .ppa.metrics import PPAMetrics
from .recipe import FlowPreset, load_flow
from .rundir import RunDir, default_jobs
from .runner import set_run_commands_file
from .search.state import Evaluation, State

INFRA_STREAK = 3  # tool faults in a row that stop the search (resumable) instead of annealing on


@dataclass
class RunOptions:
    out_root: Path = Path("runs")
    jobs: int | None = None
    quiet: bool = False
    power: str | None = None
    resume: Path | None = None
    replay: Path | None = None
    base_url: str | None = None
    model: str | None = None
    api_key: str | None = None
    report: bool = True
    executor: str = "local"
    ray_address: str | None = None
    argv: list[str] = field(default_factory=lambda: list(sys.argv))


class StopFlag:
    """Set by SIGINT/SIGTERM: the annealer finishes its iteration and the run is left resumable."""

    def __init__(self) -> None:
        self.reason: str | None = None

    def __call__(self) -> bool:
        return self.reason is not None

    def install(self) -> Callable[[], None]:
        old = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}

        def handler(signum: int, _frame: Any) -> None:
            if self.reason is not None:  # second Ctrl-C: stop now
                raise KeyboardInterrupt
            self.reason = signal.Signals(signum).name

        for s in old:
            signal.signal(s, handler)

        def restore() -> None:
            for s, h in old.items():
                signal.signal(s, h)

        return restore


def _weights(design: DesignConfig, flow: FlowPreset) -> Weights:
    """design.yaml's weights, unless it leaves them unset and the flow preset gives some."""
    if "weights" not in design.ppa.model_fields_set and flow.weights:
        return Weights(**flow.weights)
    return design.ppa.weights


class Scorer:
    """Turns metrics into the scalar cost, normalised to the baseline (first valid candidate)."""

    def __init__(self, design: DesignConfig, flow: FlowPreset) -> None:
        self.design = design
        self.weights = _weights(design, flow)
        self.baseline: PPAMetrics | None = None

    def __call__(self, metrics: PPAMetrics) -> float:
        from .ppa import cost

        assert self.baseline is not None, "baseline must be set before scoring"
        return cost(metrics, self.baseline, self.weights,
                    self.design.ppa.clock_period_ns, self.design.ppa.timing_penalty, self.design.ppa.objective)

    def score(self, ev: Evaluation) -> Evaluation:
        if not ev.valid or ev.metrics is None:
            return ev
        return Evaluation(**{**ev.__dict__, "cost": round(self(ev.metrics), 9)})


class Flow:
    def __init__(self, design: DesignConfig, rd: RunDir, opts: RunOptions, resume: bool = False) -> None:
        self.design = design
        self.rd = rd
        self.opts = opts
        self.flow = load_flow(design.ppa.flow)
        self.scorer = Scorer(design, self.flow)
        self.journal = Journal(rd.journal, rd.run_id, resume=resume, resolved=rd.resolved,
                               header={"design": design.name, "seed": design.anneal.seed,
                                       "resolved_sha256": file_digest(rd.resolved)})
        self.power = opts.power or design.ppa.power
        self.jobs = opts.jobs or design.anneal.jobs or default_jobs()
        self.stop = StopFlag()
        self.t0 = time.monotonic()
        self.evaluations = 0
        self.cache_hits = 0
        self.infra_faults = 0  # fresh evaluations cut short by a tool fault (crash, missing tool, ...)
        self.infra_streak = 0
        self.infra_first: str | None = None
        self.llm_client: Any = None
        self.llm_note: str | None = None
        self.rules: Any = None
        self.pool: Executor | None = None
        self.console: Any = None

    # ---- plumbing -------------------------------------------------------------------------------
    def _say(self, text: str) -> None:
        if not self.opts.quiet:
            print(text, file=sys.stderr, flush=True)

    def _run_tasks(self, tasks: list[EvalTask]) -> list[Outcome]:
        if not tasks:
            return []
        assert self.pool is not None
        try:
            return self.pool.map(_evaluate_guarded, tasks)
        except BrokenExecutor:
            # a worker was killed (the OOM killer, a stray kill -9): a fresh pool gets one more try
            self._say("hh: a worker process died; restarting the worker pool and retrying the batch")
            self.pool.shutdown()
            try:
                return self.pool.map(_evaluate_guarded, tasks)
            except BrokenExecutor:
                raise ToolError(f"worker processes died twice on the same batch (killed, out of memory?); everything "
                                f"so far is kept; resume with: hh run --resume {self.rd.path}") from None

    def _count(self, ev: Evaluation) -> None:
        self.evaluations += 1
        if ev.cached:
            self.cache_hits += 1

    def _note_fault(self, ev: Evaluation) -> None:
        """Count tool faults; after INFRA_STREAK in a row the search stops, resumable, rather than
        anneal on a broken tool (the faulty evaluations are retried on resume)."""
        if ev.failed_gate != INFRA:
            self.infra_streak = 0
            return
        self.infra_faults += 1
        self.infra_streak += 1
        self.infra_first = self.infra_first or ev.message
        if self.infra_streak >= INFRA_STREAK and not self.stop():
            self.stop.reason = "infrastructure"
            self._say(f"hh: {self.infra_streak} tool faults in a row ({ev.message}); stopping the search")

    # ---- Phase 1 --------------------------------------------------------------------------------
    def _setup_llm(self) -> None:
        from .llm.providers import make_client
        from .llm.rules import RuleMemory

        replayed = self.opts.replay / "rules.json" if self.opts.replay is not None else None
        self.rules = RuleMemory(self.rd.path / "rules.json", self.design.generation.rules_file, start_from=replayed)
        made = make_client(self.design, self.rd.path, base_url=self.opts.base_url, api_key=self.opts.api_key,
                           model=self.opts.model, replay_dir=self.opts.replay)
        if isinstance(made, tuple):
            self.llm_client, self.llm_note = made
        else:
            self.llm_client = made
        if self.llm_client is not None and hasattr(self.llm_client, "attach"):
            self.llm_client.attach(rules=self.rules, say=self._say)
        if self.llm_note:
            self._say(f"hh: {self.llm_note}")

    def _candidates(self) -> list[Candidate]:
        from .llm.providers import initial_candidates

        try:
            cands = initial_candidates(self.design, self.llm_client, self.rules)
        except HHError:  # not one candidate (the LLM failed): the summary still says why, in the server's words
            write_json(self.rd.summary, self._summary_no_valid([]))
            raise
        seen: set[str] = set()
        unique = []
        for c in cands:
            if c.digest not in seen:
                seen.add(c.digest)
                unique.append(c)
        return unique

    def _phase1_outcomes(self, cands: list[Candidate]) -> list[tuple[Evaluation, dict | None]]:
        """Gate + PPA every candidate (journal-memoised), in candidate order."""
        results: list[tuple[Evaluation, dict | None] | None] = [None] * len(cands)
        todo = []
        for i, c in enumerate(cands):
            st = State(c, self.flow.recipe)
            rec = self.journal.phase1.get(st.key)
            if rec is not None:
                results[i] = (Evaluation.from_dict(rec["evaluation"]), rec.get("gates"))
            else:
                todo.append((i, EvalTask(self.design, self.rd.path, st, None, self.power)))
        for (i, _), out in zip(todo, self._run_tasks([t for _, t in todo])):
            results[i] = (out.evaluation, out.gate_report)
        return [r for r in results if r is not None]

    def _entry(self, cand: Candidate, ev: Evaluation, gates: dict | None, repaired_from: str | None) -> dict:
        return {
            "key": State(cand, self.flow.recipe).key, "digest": cand.digest, "label": cand.label or cand.short,
            "origin": cand.origin, "repaired_from": repaired_from,
            "verdict": "valid" if ev.valid else "invalid", "gate": ev.failed_gate, "message": ev.message,
            "evaluation": ev.to_dict(), "gates": gates,
        }

    def phase1(self) -> tuple[list[tuple[State, Evaluation]], list[dict]]:
        self._setup_llm()
        cands = self._candidates()
        self._say(f"hh: phase 1: {len(cands)} candidates through the gates ({self.jobs} jobs)")
        entries: list[dict] = []
        valid: list[tuple[State, Evaluation]] = []
        outcomes = self._phase1_outcomes(cands)
        for cand, (ev, gates) in zip(cands, outcomes):
            entry = self._entry(cand, ev, gates, None)
            self.journal.record_phase1(entry)
            entries.append(entry)
            self._count(ev)
            if ev.failed_gate == INFRA:
                self.infra_faults += 1
                self.infra_first = self.infra_first or ev.message
            if ev.valid:
                valid.append((State(cand, self.flow.recipe), ev))
                continue
            if self.rules is not None:
                self.rules.observe(ev.failed_gate or "unknown", ev.message)
            repaired = self._repair(cand, ev, entries)
            if repaired is not None:
                valid.append(repaired)
        if self.rules is not None:
            self.rules.save()
        return valid, entries

    def _repair(self, cand: Candidate, ev: Evaluation, entries: list[dict]) -> tuple[State, Evaluation] | None:
        if self.llm_client is None or ev.failed_gate == "infrastructure" or not getattr(self.llm_client, "available", True):
            return None
        from .llm.client import LLMUnavailable

        current, current_ev = cand, ev
        for _attempt in range(self.design.generation.repair_attempts):
            failure = _GateFailure(current_ev.failed_gate or "unknown", current_ev.message)
            try:
                fixed = self.llm_client.repair(self.design, current, failure, self.rules)
            except LLMUnavailable as exc:
                self.llm_note = f"LLM unavailable during repair: {first_line(exc)}"
                self._say(f"hh: {self.llm_note}; continuing without repair")
                if not hasattr(self.llm_client, "available"):  # ours stays, disabled, so LLM moves still exist
                    self.llm_spent, self.llm_client = self.llm_client, None  # keep its usage for the summary
                return None
            if fixed is None:
                return None
            (out_ev, gates), = self._phase1_outcomes([fixed])
            entry = self._entry(fixed, out_ev, gates, current.digest)
            self.journal.record_phase1(entry)
            entries.append(entry)
            self._count(out_ev)
            if out_ev.valid:
                return State(fixed, self.flow.recipe), out_ev
            self.rules.observe(out_ev.failed_gate or "unknown", out_ev.message)
            current, current_ev = fixed, out_ev
        return None

    # ---- Phase 2 --------------------------------------------------------------------------------
    def _evaluate_batch(self, batch: list[tuple[State, State | None]]) -> list[Evaluation]:
        out: list[Evaluation | None] = [None] * len(batch)
        todo: list[tuple[int, EvalTask]] = []
        fresh: dict[int, Evaluation] = {}
        for i, (st, parent) in enumerate(batch):
            known = self.journal.lookup(st.key, parent.key if parent is not None else None)
            if known is not None:  # evaluated (against the same parent) before the run was killed: not re-run
                out[i] = known
            else:
                todo.append((i, EvalTask(self.design, self.rd.path, st, parent, self.power)))
        for (i, _task), res in zip(todo, self._run_tasks([t for _, t in todo])):
            fresh[i] = out[i] = res.evaluation
        for i, (st, parent) in enumerate(batch):  # journaled in batch order, whatever order workers finished in
            ev = out[i]
            assert ev is not None
            self._count(ev)
            if i in fresh:
                self._note_fault(ev)
            self.journal.record_eval(st.candidate.digest, st.recipe.to_dict(), ev,
                                     parent.key if parent is not None else None)
            out[i] = self.scorer.score(ev)
        return [e for e in out if e is not None]

    def phase2(self, starts: list[tuple[State, Evaluation]]) -> Any:
        from .search.annealer import anneal
        from .search.moves import default_moves
        from .search.state import MoveContext

        moves = default_moves(self.design, self.flow, llm_available=self.llm_client is not None)
        if self.design.anneal.moves:  # names were checked by preflight(); some may not apply here (no LLM, ...)
            wanted = set(self.design.anneal.moves)
            moves = [m for m in moves if m.name in wanted]
            if not moves:
                raise ConfigError(f"{self.design.source}: anneal.moves: none of {', '.join(sorted(wanted))} applies "
                                  "to this design and run (no tunables, no LLM endpoint, or the flow preset fixes the knob)")

        def ctx_factory(state: State, ev: Evaluation) -> MoveContext:
            return MoveContext(design=self.design, flow=self.flow, metrics=ev.metrics, llm=self.llm_client)

        progress = _Progress(self.design.anneal.iterations, quiet=self.opts.quiet)
        try:
            return anneal(starts, moves, ctx_factory, self._evaluate_batch, self.design.anneal,
                          self.journal.record_step, progress.update, self.stop)
        finally:
            progress.close()

    # ---- the whole run --------------------------------------------------------------------------
    def run(self) -> dict:
        restore = self.stop.install()
        set_run_commands_file(self.rd.commands)
        self.pool = make_executor(self.opts.executor, self.jobs, address=self.opts.ray_address,
                                  initializer=_worker_init, initargs=(str(self.rd.commands),))
        try:
            valid, entries = self.phase1()
            if not valid:
                summary = self._summary_no_valid(entries)
                self.journal.record({"type": "end", "status": summary["status"], "best_cost": None})
                summary["journal"] = self.journal.head()
                write_json(self.rd.summary, summary)
                faults = sum(e["gate"] == INFRA for e in entries)
                if faults:  # a tool fault may have hidden a valid candidate: not a verdict on the design
                    raise ToolError(f"no valid candidate, and {faults} of {len(entries)} hit a tool fault: "
                                    f"{self.infra_first}; fix the tool, then hh run --resume {self.rd.path}")
                counts = ", ".join(f"{g}: {n}" for g, n in summary["rejected_by_gate"].items()) or "none"
                raise NoValidCandidate(f"no candidate passed every gate ({len(entries)} tried; rejected by {counts}); "
                                       f"see {self.rd.path}")
            baseline_state, baseline_ev = valid[0]
            self.scorer.baseline = baseline_ev.metrics
            starts = [(st, self.scorer.score(ev)) for st, ev in valid]
            self._say(f"hh: phase 1: {len(valid)} valid of {len(entries)}; baseline {baseline_state.candidate.label} "
                      f"area {baseline_ev.metrics.area_um2:.0f} um2, delay {baseline_ev.metrics.delay_ns:.3f} ns")
            result = self.phase2(starts) if self.design.anneal.iterations > 0 else None
            summary = self._summary(starts, entries, result)
            self.journal.record({"type": "end", "status": summary["status"], "best_cost": summary["best"]["cost"]})
            summary["journal"] = self.journal.head()
            self._write_outputs(starts[0], self._best(starts, result), summary)
            return summary
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
                raise StorageError(f"cannot write {exc.filename or self.rd.path}: {exc.strerror}; everything written "
                                   f"so far is kept; free some space, then: hh run --resume {self.rd.path}") from None
            raise
        finally:
            self.pool.shutdown()
            set_run_commands_file(None)
            restore()

    # ---- outputs --------------------------------------------------------------------------------
    def _llm_usage(self) -> dict:
        from .llm.budget import Budget

        usage = getattr(self.llm_client or getattr(self, "llm_spent", None), "usage", None)
        if callable(usage):
            usage = usage()
        out = dict(usage) if isinstance(usage, dict) else Budget(0, 0).usage()
        if self.llm_note:
            out["note"] = self.llm_note
        return out

    def _phase1_stats(self, entries: list[dict]) -> dict:
        rejected: dict[str, int] = {}
        for e in entries:
            if e["verdict"] != "valid":
                rejected[e["gate"] or "unknown"] = rejected.get(e["gate"] or "unknown", 0) + 1
        return {
            "candidates": sum(1 for e in entries if e["repaired_from"] is None),
            "valid": sum(1 for e in entries if e["verdict"] == "valid"),
            "repaired": sum(1 for e in entries if e["repaired_from"] and e["verdict"] == "valid"),
            "rejected_by_gate": rejected,
            "entries": [{k: e[k] for k in ("label", "digest", "origin", "verdict", "gate", "message", "repaired_from")}
                        for e in entries],
        }

    def _base_summary(self, entries: list[dict]) -> dict:
        from .rundir import manifest

        p1 = self._phase1_stats(entries)
        return {
            "design": self.design.name,
            "seed": self.design.anneal.seed,
            "run_dir": str(self.rd.path),
            "phase1": p1,
            "rejected_by_gate": dict(p1["rejected_by_gate"]),
            "wall_s": round(time.monotonic() - self.t0, 3),
            "cache_hits": self.cache_hits,
            "infrastructure_faults": {"count": self.infra_faults, "first": self.infra_first},
            "llm": self._llm_usage(),
            "tools": manifest(self.design, self.design.anneal.seed, [])["tools"],
            "reproduce": self._reproduce(),
        }

    def _reproduce(self) -> list[str]:
        src = self.design.source or self.rd.resolved
        return [
            f"hh run {src} --set anneal.seed={self.design.anneal.seed} --set anneal.iterations={self.design.anneal.iterations}",
            f"hh run --resume {self.rd.path}",
            f"hh gate {src} {self.rd.path / 'best' / 'src'}/*.v",
        ]

    def _summary_no_valid(self, entries: list[dict]) -> dict:
        s = self._base_summary(entries)
        s.update({"status": "no-valid-candidate", "initial": None, "best": None, "improvement": None,
                  "evaluations": self.evaluations, "moves": {}, "pareto": []})
        return s

    @staticmethod
    def _point(st: State, ev: Evaluation) -> dict:
        m = ev.metrics.to_dict() if ev.metrics is not None else {}
        return {"digest": st.candidate.digest, "key": st.key, "label": st.candidate.label, "move": st.candidate.move,
                "recipe": st.recipe.to_dict(), "area_um2": m.get("area_um2"), "delay_ns": m.get("delay_ns"),
                "power_mw": m.get("power_mw"), "cost": ev.cost, "cells": m.get("cells"),
                "slack_ns": m.get("slack_ns"), "fmax_mhz": m.get("fmax_mhz"), "power_fidelity": m.get("power_fidelity")}

    def _summary(self, starts: list[tuple[State, Evaluation]], entries: list[dict], result: Any) -> dict:
        s = self._base_summary(entries)
        init_st, init_ev = starts[0]
        if result is not None:
            best_st, best_ev = result.best
            pareto = [self._point(st, ev) for st, ev in result.pareto]
            moves = result.move_stats
            rejected2 = dict(result.invalid_by_gate)
            status = "interrupted" if self.stop() else "complete"
            extra = {"chains": self.design.anneal.chains, "iterations": self.design.anneal.iterations,
                     "iterations_done": result.iterations_done,
                     "chain_best": [self._point(st, ev) for st, ev in result.chain_best],
                     "t0": result.t0, "counters": result.counters, "history": result.history}
        else:
            best_st, best_ev = self._best(starts, None)
            pareto, moves, rejected2, status, extra = [self._point(best_st, best_ev)], {}, {}, "complete", {}
        for g, n in rejected2.items():
            s["rejected_by_gate"][g] = s["rejected_by_gate"].get(g, 0) + n
        initial, best = self._point(init_st, init_ev), self._point(best_st, best_ev)
        improvement = (initial["cost"] - best["cost"]) / initial["cost"] if initial["cost"] else 0.0
        s.update({"status": status, "initial": initial, "best": best, "improvement": round(improvement, 6),
                  "evaluations": self.evaluations, "moves": moves, "phase2_rejected_by_gate": rejected2,
                  "pareto": pareto, **extra})
        if status == "interrupted":
            s["interrupted_by"] = self.stop.reason
        return s

    def _write_design(self, folder: Path, st: State, ev: Evaluation) -> None:
        from .search.moves.params import bake_parameters

        folder.mkdir(parents=True, exist_ok=True)
        baked = bake_parameters(st.candidate)  # the sources alone reproduce the scored design
        baked.write(folder)
        write_text_atomic(folder / "design.v", baked.text)
        write_text_atomic(folder / "recipe.yaml", yaml.safe_dump(st.recipe.to_dict(), sort_keys=False))
        write_json(folder / "ppa.json", {"metrics": ev.metrics.to_dict() if ev.metrics is not None else None, "cost": ev.cost, "candidate": st.candidate.to_dict()})

    @staticmethod
    def _best(starts: list[tuple[State, Evaluation]], result: Any) -> tuple[State, Evaluation]:
        """The summary's best: the annealer's, or without annealing the best Phase-1 start (first of equals)."""
        if result is not None:
            return result.best
        return min(starts, key=lambda se: se[1].cost if se[1].cost is not None else float("inf"))

    def _write_outputs(self, initial: tuple[State, Evaluation], best: tuple[State, Evaluation], summary: dict) -> None:
        assert best[0].key == summary["best"]["key"], "best/ must hold the summary's best"
        self._write_design(self.rd.path / "initial", *initial)
        self._write_design(self.rd.path / "best", *best)
        write_json(self.rd.path / "pareto.json", summary["pareto"])
        from .ppa.metrics import METRIC_DIRECTIONS, librelane_metrics  # LibreLane names, for flow engineers' tools

        summary["metrics"] = {"initial": librelane_metrics(initial[1].metrics), "best": librelane_metrics(best[1].metrics),
                              "directions": METRIC_DIRECTIONS}
        write_json(self.rd.path / "metrics.json", summary["metrics"]["best"])
        summary["wall_s"] = round(time.monotonic() - self.t0, 3)
        write_json(self.rd.summary, summary)


def _evaluate_guarded(task: EvalTask) -> Outcome:
    """``evaluate``, but an unexpected exception on one candidate (a bug met by odd RTL) is recorded as that
    candidate's tool fault, with the traceback kept in its folder, instead of ending a long run."""
    try:
        return evaluate(task)
    except Exception as exc:  # noqa: BLE001 - the run goes on; the fault is recorded and retried on resume
        import traceback

        where = Path(task.run_dir) / "candidates" / task.state.candidate.short / "internal-error.txt"
        try:
            where.parent.mkdir(parents=True, exist_ok=True)
            where.write_text(traceback.format_exc(), encoding="utf-8")
        except OSError:
            where = None
        msg = f"internal error: {type(exc).__name__}: {first_line(exc)}" + (f" (traceback in {where})" if where else "")
        return Outcome(Evaluation(key=task.state.key, valid=False, failed_gate=INFRA, message=msg))


def _worker_init(commands_file: str | None) -> None:
    """Pool workers leave Ctrl-C to the parent (which stops after the iteration, resumable): a worker
    killed by the terminal's SIGINT would break the pool. SIGTERM gets its default action back: a
    forked worker inherits the parent's stop-flag handler, which would make it ignore the SIGTERM the
    pool sends when another worker died, and the pool's shutdown would wait for it forever."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    worker_init(commands_file)


@dataclass(frozen=True)
class _GateFailure:
    gate: str
    message: str
    passed: bool = False


class _Progress:
    """A live line (iteration, temperature, best cost, acceptance, ETA) on a terminal; silent with --quiet."""

    def __init__(self, total: int, quiet: bool) -> None:
        self.total = total
        self.quiet = quiet or not sys.stderr.isatty()
        self.t0 = time.monotonic()
        self.progress: Any = None
        self.task: Any = None
        self.last_print = 0.0
        if not self.quiet:
            from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

            self.progress = Progress(TextColumn("[bold]anneal[/]"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                                     TextColumn("{task.fields[info]}"), TimeRemainingColumn(), transient=True)
            self.task = self.progress.add_task("anneal", total=total, info="")
            self.progress.start()

    def update(self, info: dict) -> None:
        if self.progress is None:
            return
        text = (f"T={info.get('temperature', 0):.3g} best={info.get('best_cost', float('nan')):.4f} "
                f"acc={info.get('acceptance_rate', 0):.0%}")
        self.progress.update(self.task, completed=info.get("iteration", 0) + 1, info=text)

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()


def known_move_names(design: DesignConfig) -> set[str]:
    """Every move name ``anneal.moves`` may list, whether or not it applies to this design."""
    from .search.moves import TunableParamMove, llm_moves, recipe_moves, rtl_moves

    flow = load_flow(design.ppa.flow)
    everything = design.model_copy(update={"ppa": design.ppa.model_copy(update={"weights": Weights()})})
    names = {m.name for m in rtl_moves()} | {TunableParamMove().name} | {m.name for m in recipe_moves()}
    try:
        names |= {m.name for m in llm_moves(everything, flow)}
    except Exception:  # the LLM moves module is optional and evolving: never block a run on it
        pass
    return names


def preflight(design: DesignConfig, opts: RunOptions | None = None) -> None:
    """Configuration errors found before a run directory exists (exit 2, nothing written)."""
    if opts is not None and opts.replay is not None and not (Path(opts.replay) / "llm").is_dir():
        raise InputError(f"--replay {opts.replay}: no recorded LLM responses (no {Path(opts.replay) / 'llm'})")
    from .ppa.liberty import read_liberty

    try:  # a liberty that cannot be read would fail every synthesis: a configuration error, not a tool fault
        lib = read_liberty(design.ppa.liberty_path)
        lib.inverter()
        if ((opts.power if opts is not None else None) or design.ppa.power) == "activity":
            from .ppa.activity import cell_models

            cell_models(lib)
    except ConfigError as exc:
        raise ConfigError(f"{design.source}: {first_line(exc)}") from None
    except (HHError, OSError) as exc:
        raise ConfigError(f"{design.source}: ppa.liberty: {first_line(exc)}") from None
    gen = design.generation
    if gen.seeds and not gen.seed_files():
        raise ConfigError(f"{design.source}: generation.seeds: no file matches {gen.seeds}")
    if design.anneal.moves:
        known = known_move_names(design)
        unknown = sorted(set(design.anneal.moves) - known)
        if unknown:
            raise ConfigError(f"{design.source}: anneal.moves: unknown move(s) {', '.join(unknown)} "
                              f"(known: {', '.join(sorted(known))})")


def start_run(design: DesignConfig, opts: RunOptions) -> tuple[RunDir, bool]:
    if opts.resume is not None:
        rd = RunDir.open(opts.resume)
        rd.lock()
        rd.remove_stale_temp_files()  # left by the kill that ended the previous attempt
        return rd, True
    try:
        rd = RunDir.create(design, design.anneal.seed, root=opts.out_root, argv=opts.argv)
        rd.lock()
        return rd, False
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
            raise StorageError(f"--out {opts.out_root}: cannot create the run directory: {exc.strerror}") from None
        raise ConfigError(f"--out {opts.out_root}: cannot create the run directory: {exc.strerror}"
                          f"{': ' + str(exc.filename) if exc.filename else ''}") from None


def run(design: DesignConfig, opts: RunOptions) -> tuple[RunDir, dict]:
    preflight(design, opts)
    rd, resumed = start_run(design, opts)
    try:
        summary = Flow(design, rd, opts, resume=resumed).run()
    except NoValidCandidate:
        rd.unlock()
        _render(rd, opts)  # the funnel of rejections is what the user needs to see then
        raise
    finally:
        rd.unlock()  # the run is over (or failed): another hh run may resume it now
    _render(rd, opts)
    return rd, summary


def _render(rd: RunDir, opts: RunOptions) -> None:
    if not opts.report:
        return
    try:
        from .report import render_run

        render_run(rd.path)
    except (HHError, OSError, ImportError) as exc:
        print(f"hh: warning: report not written: {first_line(exc)}", file=sys.stderr)

