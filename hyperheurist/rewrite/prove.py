"""Formal equivalence of a rewrite against its parent, with Yosys SAT and undef modelling.

The miter is proven with ``sat -enable_undef -set-def-inputs``: X produced inside either side counts
as a difference (``miter -ignore_gold_x`` without ``-enable_undef`` is unsound: it "proves" an adder
with a stuck carry). Combinational modules get a full proof; sequential ones a bounded proof of
``depth`` cycles from both sides' reset state (``reset`` asserted in cycle 1, or both sides starting
from zero without one), which is what an encoding change needs: the state codes differ, the
behaviour from reset must not.

``engine="cec"`` (combinational only) hands the miter to ABC's ``&cec`` instead: fraiging finds
the logic both sides share, which SAT alone cannot do for multipliers of different structure.
Undefined bits become free inputs (``setundef -anyseq``), so an X on either side must match every
value: as strict as ``-enable_undef``.

Both sources are copied into ``workdir`` and the tools run there on relative paths (sandbox rules).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..runner import run_tool

_SAFE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Proof:
    equivalent: bool
    conclusive: bool  # False: the solver timed out or Yosys failed (never counts as proven)
    method: str
    log: Path
    message: str


PROVE_MEM_MB = 4096  # a rule's proof runs on small widths: this is a backstop, not a budget

def _script(top_a: str, top_b: str, depth: int | None, reset: tuple[str, int] | None, timeout_s: float) -> str:
    lines = ["read_verilog -sv gold.v", f"rename {top_a} hh_gold",
             "read_verilog -sv gate.v", f"rename {top_b} hh_gate",
             "hierarchy -check", "proc", "flatten", "memory", "async2sync", "opt_clean",
             "miter -equiv -flatten -make_assert hh_gold hh_gate hh_miter", "hierarchy -top hh_miter",
             "opt_clean"]
    sat = f"sat -verify -prove-asserts -enable_undef -set-def-inputs -show-inputs -timeout {int(max(1, timeout_s))}"
    if depth is not None:
        sat += f" -seq {depth} -set-init-zero"
        if reset is not None:
            sat += f" -set-at 1 in_{reset[0]} {reset[1]} -prove-skip 1"
    return "\n".join(lines + [sat + " hh_miter"]) + "\n"


def _cec_script(top_a: str, top_b: str) -> str:
    return "\n".join(["read_verilog -sv gold.v", f"rename {top_a} hh_gold", "read_verilog -sv gate.v",
                      f"rename {top_b} hh_gate", "hierarchy -check", "proc", "flatten", "opt_clean",
                      "setundef -anyseq", "miter -equiv -flatten hh_gold hh_gate hh_miter",
                      "hierarchy -top hh_miter", "flatten", "techmap", "opt", "aigmap",
                      "write_aiger -zinit miter.aig"]) + "\n"


def _prove_cec(workdir: Path, top_a: str, top_b: str, timeout_s: float) -> Proof:
    (workdir / "miter.ys").write_text(_cec_script(top_a, top_b), encoding="utf-8")
    res = run_tool(["yosys", "-q", "-l", "miter.log", "-s", "miter.ys"], name="yosys-miter", log_dir=workdir,
                   timeout_s=timeout_s, cwd=workdir, mem_mb=PROVE_MEM_MB)
    log = workdir / "miter.log"
    if not res.ok or not (workdir / "miter.aig").is_file():
        text = log.read_text(encoding="utf-8", errors="replace") if log.is_file() else res.stderr
        err = next((ln.strip() for ln in text.splitlines() if "ERROR" in ln), res.describe())
        return Proof(False, False, "abc &cec", log, f"yosys failed: {err}")
    res = run_tool(["yosys-abc", "-c", "read_aiger miter.aig; &get; &cec -m"], name="abc-cec", log_dir=workdir,
                   timeout_s=timeout_s, cwd=workdir, mem_mb=PROVE_MEM_MB)
    out = res.stdout + res.stderr
    (workdir / "cec.log").write_text(out, encoding="utf-8")
    if res.ok and "Networks are equivalent" in out:
        return Proof(True, True, "abc &cec", workdir / "cec.log", "proven")
    if "NOT EQUIVALENT" in out:
        return Proof(False, True, "abc &cec", workdir / "cec.log", "counterexample found")
    return Proof(False, False, "abc &cec", workdir / "cec.log", f"inconclusive: {res.describe()}")


def prove_equivalent(gold: str, top_a: str, gate: str, top_b: str, workdir: Path, *,
                     depth: int | None = None, reset: tuple[str, int] | None = None,
                     timeout_s: float = 120.0, engine: str = "sat") -> Proof:
    """Prove module ``top_b`` of ``gate`` equivalent to ``top_a`` of ``gold``.

    ``depth`` None: combinational, a full proof. Otherwise a bounded sequential proof over ``depth``
    cycles; ``reset`` = (port, active level) is asserted in cycle 1 and cycle 1 is not compared.
    """
    for name in (top_a, top_b, *(reset[:1] if reset else ())):
        if not _SAFE.match(name):
            raise ValueError(f"not a plain identifier: {name!r}")
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "gold.v").write_text(gold, encoding="utf-8")
    (workdir / "gate.v").write_text(gate, encoding="utf-8")
    if engine == "cec":
        if depth is not None:
            raise ValueError("engine cec proves combinational modules only")
        return _prove_cec(workdir, top_a, top_b, timeout_s)
    if engine != "sat":
        raise ValueError(f"unknown engine {engine!r}")
    (workdir / "prove.ys").write_text(_script(top_a, top_b, depth, reset, timeout_s), encoding="utf-8")
    res = run_tool(["yosys", "-q", "-l", "prove.log", "-s", "prove.ys"], name="yosys-prove", log_dir=workdir,
                   timeout_s=timeout_s + 60, cwd=workdir, mem_mb=PROVE_MEM_MB)
    log = workdir / "prove.log"
    text = log.read_text(encoding="utf-8", errors="replace") if log.is_file() else res.stdout + res.stderr
    method = "sat -enable_undef" + (f" -seq {depth}" if depth is not None else "")
    if "SAT proof finished - no model found: SUCCESS!" in text and res.ok:
        return Proof(True, True, method, log, "proven")
    if "Interrupted SAT solver: TIMEOUT!" in text:
        return Proof(False, False, method, log, "solver timeout")
    if "SAT proof finished - model found: FAIL!" in text:
        return Proof(False, True, method, log, "counterexample found")
    err = next((ln.strip() for ln in text.splitlines() if "ERROR" in ln), res.describe())
    return Proof(False, False, method, log, f"yosys failed: {err}")
