"""The synthesis stage: a Recipe becomes a Yosys script (flatten, dfflibmap, abc -liberty) run in one process.

Its verdict is the design's "synthesizes": Yosys refusing the canonical text (or stopped by the design's
limits) fails the stage; a crash or a missing netlist without an error is an infrastructure fault.

Every Recipe knob changes the script: ``flatten``, ``fsm``/``fsm_encoding`` (``fsm -encoding``),
``share``, ``opt_full`` (``opt -full``), ``abc_script`` (distinct ABC command sequences),
``abc_delay_target_ps`` (``abc -D``) and ``multiplier`` (``booth``/``wallace``: our own techmap of ``$mul``
before ``alumacc``, ``ppa.techmap``, its files written beside the script; ``yosys`` adds no line, so the
default script is what it always was), ``adder`` (the ``$lcu`` carry trees, with Yosys' generic map) and
``adder_cells`` (``extract_fa``, then the library's full/half adder cells, ``ppa.adder_cells``).
A ``$div``/``$mod`` of ``ppa.wide_operator_bits`` or more is mapped by our array divider, and a design with a
``$mul`` of ``ppa.wide_multiplier_bits`` by ``abc -fast`` (``techmap/wide.py``: Yosys' own divider map and ABC's
default script on a 64x64 product took many minutes); a quick front-end pass counts them first, for RTL with
such an operator only, and the estimate records the counts (``SynthFacts.wide_operators``/``wide_multipliers``).
The netlist is written in the form OpenSTA 2019 accepts (``-simple-lhs``: no concatenated assign
targets, which it rejects when output bits share a driver). The same netlist is written as JSON
(``write_json``): the cell histogram and the connectivity are read from it (``ppa.netlist``), exactly,
rather than parsed back out of the Verilog.
It reads the canonical text (whose `` `line`` directives keep the user's file and line in errors),
relative to the stage folder it runs in. What the log says about the FSM and share passes is kept
(``SynthFacts``): the search reads from it which knobs cannot change this netlist.
"""

from __future__ import annotations

import re
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path
from typing import NotRequired, TypedDict

from ..candidate import Candidate
from ..config import DesignConfig
from ..errors import EXIT_INVALID, ToolError
from ..recipe import Recipe
from ..stages.context import StageContext
from ..stages.crash import blame
from ..stages.model import Invocation, Plan, Reply, Request, StageId, StageResult, call, failed
from ..stages.vetted import Vetted
from . import adder_cells as adder_cells_map
from . import techmap
from .liberty import Liberty
from .nethash import netlist_digest
from .netlist import Module, histogram, parse_netlist
from .techmap import wide

# ABC command sequences per abc_script value; ``{D}`` becomes ``-D <ps>`` when a target is set.
# "default" uses Yosys' own liberty script (no -script argument); "fast" uses ``abc -fast``.
ABC_SCRIPTS: dict[str, str | None] = {
    "default": None,
    "fast": None,
    "area": "+strash;ifraig;scorr;dc2;strash;dch,-f;map,-a,{D};topo",
    "delay": "+strash;ifraig;scorr;dc2;strash;dch,-f;map,{D};buffer,-p;upsize,{D};dnsize,{D}",
    "resyn2": "+strash;balance;rewrite;refactor;balance;rewrite;rewrite,-z;balance;refactor,-z;"
              "rewrite,-z;balance;map,{D};topo",
}
# `file:line: ERROR: ...` (Yosys' own form for front-end errors) before any bare `ERROR:` line
_LOCATED_ERROR = re.compile(r"^\s*(.+?):(\d+):\s*ERROR:(.*)$")
NETLIST = "netlist.v"  # for OpenSTA and the gate-level simulation
NETLIST_JSON = "netlist.json"  # the same netlist, exact, for the cell histogram and the connectivity
# Yosys 0.23's own messages (fsm_detect, fsm_recode, share); share prints nothing below two candidate cells
_FSM_FOUND = re.compile(r"^Found FSM state register ", re.M)
_FSM_AUTO = re.compile(r"^\s*mapping auto encoding to `([\w-]+)` for this FSM\.$", re.M)
_SHARE_FOUND = re.compile(r"^Found (\d+) cells in module \S+ that may be considered for resource sharing\.$", re.M)
_OFFERED = re.compile(r"^(\d+) objects\.$", re.M)  # ``select -count`` before each of our techmap passes
_ALUMACC = "Executing ALUMACC pass"
_MUL_MODEL = re.compile(r"^\s*creating \$macc model for \S+ \(\$mul\)\.$", re.M)
_ALU_CREATED = re.compile(r"^\s*created (\d+) \$alu and (\d+) \$macc cells\.$", re.M)
ADDERS_FOUND = "hh: full and half adders extract_fa found:"  # a marker line, then ``select -count``'s


class SynthesisRejected(ToolError):
    """Yosys refused the RTL itself (a read or elaboration error, or our limits): the design's fault."""

    exit_code = EXIT_INVALID


class SynthFactsDict(TypedDict):
    fsm_state_registers: int | None
    fsm_auto_encodings: list[str]
    share_candidates: int | None
    techmap_cells: NotRequired[int | None]  # absent from evaluations made before the multiplier knob
    multipliers: NotRequired[int | None]  # absent from evaluations made before these two facts
    alu_cells: NotRequired[int | None]
    adder_cells: NotRequired[int | None]  # absent from evaluations made before the adder_cells knob
    wide_operators: NotRequired[int]  # present only when the wide-operator fallback ran
    wide_multipliers: NotRequired[int]


@dataclass(frozen=True)
class SynthFacts:
    """What Yosys' log says about the knobs' passes on this RTL and recipe; None where the pass did not run.

    ``fsm_auto_encodings``: per extracted FSM whose encoding follows the knob (no ``fsm_encoding`` attribute
    of the user's), the encoding ``fsm_recode`` used (the knob's value, or ``auto``'s choice under ``auto``).
    ``share_candidates``: cells ``share`` considered (0 when it printed nothing: it acts on two or more).
    ``techmap_cells``: cells offered to our own techmap passes (``ppa.techmap``; None when the recipe has
    none). 0 means the knob took nothing; its netlist may still differ from the default's (a pass moves
    Yosys' automatic names on, and ABC follows them), but only as tool noise.
    ``multipliers``: ``$mul`` cells ``alumacc`` met (those our multiplier maps left, or all of them under
    ``multiplier: yosys``); ``alu_cells``: the ``$alu`` and ``$macc`` cells it made, whose carry trees the
    adder knob maps. Both under every recipe, so the search knows before trying a knob that it cannot act.
    ``adder_cells``: the full and half adders ``extract_fa`` found under the ``adder_cells`` knob (None
    when the knob is off or the library has no adder cells).
    ``wide_operators``: the ``$div``/``$mod`` cells the wide-operator fallback mapped, ``wide_multipliers`` the
    ``$mul`` cells that had ABC run ``-fast`` (None: that part of the fallback did not run)."""

    fsm_state_registers: int | None
    fsm_auto_encodings: tuple[str, ...]
    share_candidates: int | None
    techmap_cells: int | None = None
    multipliers: int | None = None
    alu_cells: int | None = None
    adder_cells: int | None = None
    wide_operators: int | None = None
    wide_multipliers: int | None = None

    def to_dict(self) -> SynthFactsDict:
        out: SynthFactsDict = {
            "fsm_state_registers": self.fsm_state_registers, "fsm_auto_encodings": list(self.fsm_auto_encodings),
            "share_candidates": self.share_candidates, "techmap_cells": self.techmap_cells,
            "multipliers": self.multipliers, "alu_cells": self.alu_cells}
        if self.adder_cells is not None:  # evaluations without the knob read as they always did
            out["adder_cells"] = self.adder_cells
        if self.wide_operators is not None:
            out["wide_operators"] = self.wide_operators
        if self.wide_multipliers is not None:
            out["wide_multipliers"] = self.wide_multipliers
        return out

    @classmethod
    def from_dict(cls, d: SynthFactsDict) -> SynthFacts:
        return cls(d["fsm_state_registers"], tuple(d["fsm_auto_encodings"]), d["share_candidates"],
                   d.get("techmap_cells"), d.get("multipliers"), d.get("alu_cells"), d.get("adder_cells"),
                   d.get("wide_operators"), d.get("wide_multipliers"))


NO_FACTS = SynthFacts(None, (), None)


def synth_facts(log: str, recipe: Recipe) -> SynthFacts:
    """The facts of one synthesis log (``build_script``'s script for ``recipe``)."""
    wide_cells, wide_muls, log = wide.count(log), wide.count(log, wide.MUL_FOUND), wide.without_count(log)
    fsm = len(_FSM_FOUND.findall(log)) if recipe.fsm else None
    share = sum(int(n) for n in _SHARE_FOUND.findall(log)) if recipe.share else None
    before, marker, after = log.partition(ADDERS_FOUND)
    offered = sum(int(n) for n in _OFFERED.findall(before)) if techmap.passes(recipe.to_dict()) else None
    found = _OFFERED.search(after) if marker else None
    alumacc = _ALUMACC in log
    muls = len(_MUL_MODEL.findall(log)) if alumacc else None
    alus = sum(int(a) + int(m) for a, m in _ALU_CREATED.findall(log)) if alumacc else None
    return SynthFacts(fsm, tuple(_FSM_AUTO.findall(log)) if recipe.fsm else (), share, offered, muls, alus,
                      int(found.group(1)) if found else None, wide_cells, wide_muls)


@dataclass(frozen=True)
class Synthesized:
    """The synthesis stage's output: the mapped netlist (run-folder-relative) and what it is made of
    (``modules``: read from the netlist's JSON twin)."""

    netlist: str
    digest: str  # ``nethash``: equal for netlists that differ only in Yosys' internal names
    modules: dict[str, Module]
    histogram: dict[str, int]
    area_by_cell: dict[str, float]
    warnings: int
    facts: SynthFacts = NO_FACTS  # a netlist not made by this stage has no log to tell


def _quote(path: str) -> str:
    if '"' in path or "\n" in path:
        raise ToolError(f"unusable path for Yosys: {path!r}")
    return f'"{path}"'


def _maps(tm: techmap.Techmap) -> list[str]:
    return [f"-map {_quote(f'{techmap.FOLDER}/{f}')}" for f in tm.files]


ADDER_MAP = f"{techmap.FOLDER}/{adder_cells_map.FILE}"


WIDE_MAP = f"{techmap.FOLDER}/{wide.FILE}"
NO_WIDE = wide.Wide()
WIDE_SOURCE = "wide_design.v"  # the canonical text, handed to the front-end count as a file of its own


def wide_screen(design: DesignConfig, cand: Candidate) -> wide.Wide:
    """The parts of the wide-operator fallback ``cand``'s RTL may need under ``design``'s thresholds."""
    return wide.screen((t for _, t in cand.files), wide.Wide(design.ppa.wide_operator_bits,
                                                             design.ppa.wide_multiplier_bits))


def map_files(recipe: Recipe, lib: Liberty, *, wide_cells: bool = False) -> dict[str, str]:
    """The map files the recipe's script reads (path in the stage folder -> text): our techmaps, the
    adder-cell map made from ``lib`` when the knob is on and the library has adder cells, and the array
    divider when the design has cells for the wide-operator fallback (``wide_cells``)."""
    maps = techmap.files(recipe.to_dict())
    if wide_cells:
        maps[WIDE_MAP] = techmap.text(wide.FILE)
    cells = adder_cells_map.find(lib) if recipe.adder_cells else None
    if cells is not None:
        maps[ADDER_MAP] = adder_cells_map.map_text(cells)
    return maps


def front_end(sources: list[str], top: str, params: dict[str, str], include_dirs: tuple[str, ...] = ()) -> list[str]:
    """The lines that read and elaborate the design (``build_script``'s first, and the fallback's count)."""
    front = "".join(f"-I{d} " for d in include_dirs)
    # -sv always, as the structure and equivalence gates read it: one language for one canonical text
    lines = [f"read_verilog -defer -sv {front}{_quote(s)}" for s in sources]
    return [*lines, " ".join(["hierarchy -check -top", top, *(f"-chparam {k} {v}" for k, v in sorted(params.items()))])]


def build_script(sources: list[str], top: str, recipe: Recipe, liberty: Path, params: dict[str, str], *,
                 include_dirs: tuple[str, ...] = (), adder_cells: bool = False, fallback: wide.Wide = NO_WIDE) -> str:
    """The Yosys script for one recipe (pure: easy to test that every knob matters); ``params`` checked
    by ``hdl.literals``, folders our own, relative to the stage folder. ``adder_cells``: the library has
    them (``ppa.adder_cells``), so the knob of that name maps to them. ``fallback``: the thresholds at which the
    design has cells for the wide-operator fallback (``techmap/wide.py``); none: no fallback lines at all."""
    lib = _quote(str(liberty))
    opt = "opt -full" if recipe.opt_full else "opt"
    lines = front_end(sources, top, params, include_dirs)
    lines += ["proc", "flatten" if recipe.flatten else "# flatten: off (hierarchy kept)", "opt_expr", "opt_clean"]
    if recipe.fsm:
        lines.append("fsm" if recipe.fsm_encoding == "auto" else f"fsm -encoding {recipe.fsm_encoding}")
    else:
        lines.append("# fsm: off")
    lines += [opt, "wreduce", "peepopt", "opt_clean"]
    lines.append("share" if recipe.share else "# share: off")
    lines += wide.count_lines(fallback)  # before any of our maps (and alumacc), which take $mul cells
    if fallback.div_bits is not None:  # the divider's subtractors are ordinary $sub for alumacc
        sel = wide.selection(fallback.div_bits)
        lines += [f"techmap -map {_quote(WIDE_MAP)} {sel}", opt, "wreduce", "opt_clean"]
    maps = techmap.passes(recipe.to_dict())
    for tm in maps:  # operators mapped by our own files, the rest by alumacc
        if tm.stage == "before_alumacc":
            lines += [f"select -count {tm.cells}", " ".join(["techmap", *_maps(tm), tm.cells]), opt]
    generic = [tm for tm in maps if tm.stage == "generic"]
    lines += ["alumacc", opt, "memory -nomap", "opt_clean", "memory_map", opt]
    lines += [f"select -count {tm.cells}" for tm in generic]  # what the generic map offers ours (a fact)
    lines += [" ".join(["techmap", "-map +/techmap.v", *(m for tm in generic for m in _maps(tm))])
              if generic else "techmap", opt]
    adder_cells = recipe.adder_cells and adder_cells
    if adder_cells:
        # the adders in the gate-level logic (written as such, or from the carry maps) become library
        # cells; a $fa the map refuses (a half adder, no such cell) is made of gates by the second techmap
        # (the cells' port directions from the liberty, so that opt_clean drops an adder whose outputs went unused)
        lines += [f"read_liberty -lib {lib}", "extract_fa", f"log {ADDERS_FOUND}", "select -count t:$fa",
                  f"techmap -map {_quote(ADDER_MAP)}", "techmap", opt]
    lines += [f"dfflibmap -liberty {lib}", opt]
    abc = f"abc -liberty {lib}"
    target = f"-D {recipe.abc_delay_target_ps}" if recipe.abc_delay_target_ps else ""
    script = ABC_SCRIPTS[recipe.abc_script] if fallback.mul_bits is None else None
    if recipe.abc_script == "fast" or fallback.mul_bits is not None:  # a wide product: ABC's fast script
        abc += " -fast"
    if script is not None:
        abc += f" -script {script}"  # Yosys itself replaces {D} by the -D option (or nothing)
    if target:
        abc += f" {target}"
    lines += [abc, "opt_clean -purge", "setundef -zero", "splitnets -ports" if not recipe.flatten else "splitnets",
              "opt_clean -purge", f"hierarchy -top {top}", "check"]
    if adder_cells:
        lines.append("delete =A:blackbox")  # the liberty's cell models: the netlist names its cells only
    lines += [
              f"write_verilog -noattr -noexpr -nohex -nodec -simple-lhs {NETLIST}", f"write_json {NETLIST_JSON}"]
    return "\n".join(lines) + "\n"


def first_error(text: str) -> str | None:
    """The first real error of a Yosys log (``file:line: ERROR: ...`` first), without the noise around it.

    Paths are cut to the file name: the stage folder means nothing to the reader (or to an LLM)."""
    lines = text.splitlines()
    for line in lines:
        if "** cmd error" in line:  # ABC's own complaint explains the ERROR Yosys prints after it
            return line.strip()
    for line in lines:
        m = _LOCATED_ERROR.match(line)
        if m:
            return f"{Path(m.group(1)).name}:{m.group(2)}: ERROR:{m.group(3)}".strip()
    for line in lines:
        if "ERROR:" in line:
            return line.strip()
    return None


class SynthesisStage:
    id = StageId.SYNTHESIS
    inputs = ("canonical/canonical.v",)
    outputs = (NETLIST, NETLIST_JSON, "yosys.log")
    config = ("top", "ppa.liberty", "ppa.wide_operator_bits", "ppa.wide_multiplier_bits", "recipe",
              "limits.tool_timeout_s", "limits.tool_mem_mb")

    def skip_reason(self, ctx: StageContext) -> str | None:
        return None

    def plan(self, ctx: StageContext) -> Plan:
        assert ctx.recipe is not None and ctx.liberty is not None
        lib = ctx.liberty
        fallback = wide_screen(ctx.design, ctx.cand)
        if fallback:
            fallback = yield from self._count_wide(ctx, fallback)
        maps = map_files(ctx.recipe, lib, wide_cells=fallback.div_bits is not None)
        script = build_script(ctx.sources(), ctx.top, ctx.recipe, Path(lib.path), ctx.params,
                              include_dirs=(ctx.src_dir(),), adder_cells=ADDER_MAP in maps, fallback=fallback)
        inv = Invocation("yosys", ("yosys", "-q", "-l", "yosys.log", "-s", "synth.ys"),
                         files={"synth.ys": script, **ctx.data_files(), **maps}, outputs=self.outputs,
                         readable=(Path(lib.path).parent,), crash_is_data=True)
        run = yield from call(inv)
        res = run.result
        if res.signal_name and not res.limited:  # the design's doing unless the known-good design crashes it too
            recipe = ctx.recipe
            why = yield from blame(ctx, inv, "synth.ys", lambda src, top, params: build_script(
                src, top, recipe, Path(lib.path), dict(params), include_dirs=(), adder_cells=ADDER_MAP in maps,
                fallback=fallback), {**ctx.data_files(), **maps})
            return failed(self.id, f"yosys rejected the design: {res.describe()}: {why}")
        netlist, netlist_json = run.outputs.get(NETLIST), run.outputs.get(NETLIST_JSON)
        if not res.ok or netlist is None or netlist_json is None:
            err = first_error(run.text()) or first_error(run.outputs.get("yosys.log", ""))
            where = f"(log: {ctx.root / ctx.own('yosys.log')})"  # absolute: the reader's cwd is not the run folder
            if res.limited or (err is not None and res.returncode != 0):
                return failed(self.id, f"yosys rejected the design: {err or res.describe()} {where}")
            raise ToolError(f"yosys synthesis failed: {err or res.describe()} {where}")
        modules = parse_netlist(netlist_json, where=ctx.own(NETLIST_JSON))
        hist = dict(sorted(histogram(modules, ctx.top).items()))
        unmapped = [c for c in hist if c not in lib.cells]
        if unmapped:  # Yosys' own cells left over (a latch, a flop kind the library lacks): the design's fault
            return failed(self.id, f"the netlist keeps cells the liberty cannot map (a latch?): "
                                   f"{', '.join(unmapped[:5])} not in {Path(lib.path).name}")
        area_by = {c: n * lib.cells[c].area for c, n in hist.items()}
        warnings = sum(1 for ln in run.text().splitlines() if ln.startswith("Warning"))
        digest = netlist_digest(netlist)
        facts = synth_facts(run.outputs.get("yosys.log", ""), ctx.recipe)
        out = Synthesized(ctx.own(NETLIST), digest, modules, hist, area_by, warnings, facts)
        area = sum(area_by.values())
        note = (f"; {facts.wide_operators} wide $div/$mod by the array divider" if facts.wide_operators else "") + \
            (f"; {facts.wide_multipliers} wide $mul: abc -fast" if facts.wide_multipliers else "")
        return StageResult(self.id, True, f"{sum(hist.values())} cells, {area:.1f} um2{note}",
                           {"netlist": NETLIST, "recipe": ctx.recipe.to_dict(), "area_um2": area,
                            "cells": sum(hist.values()), "cell_histogram": hist, "netlist_digest": digest,
                            "facts": facts.to_dict()},
                           value=out)

    def _count_wide(self, ctx: StageContext, screened: wide.Wide) -> Generator[Request, Reply, wide.Wide]:
        """The parts of the fallback with cells to take (a front-end pass); none when the pass fails (the
        synthesis proper then reports the design's error as it always did). Given the canonical text as a file
        of its own, the pass is answered from the runner's memo (``stages/memo.py``) for every other recipe
        of the same RTL, so a design with a product pays it once, not per evaluation."""
        vetted = ctx.results.get(StageId.SAFETY)
        canon = vetted.value.canonical.text if vetted is not None and isinstance(vetted.value, Vetted) else None
        sources = ctx.sources() if canon is None else [WIDE_SOURCE]
        script = wide.detect_script(front_end(sources, ctx.top, ctx.params, (ctx.src_dir(),)), screened)
        files = {"wide.ys": script, **ctx.data_files(), **({} if canon is None else {WIDE_SOURCE: canon})}
        run = yield from call(Invocation("yosys-wide", ("yosys", "-q", "-l", "wide.log", "-s", "wide.ys"),
                                         files=files, outputs=("wide.log",), cacheable=canon is not None,
                                         crash_is_data=True))  # then the synthesis proper is asked whose fault
        return wide.found(run.outputs.get("wide.log", ""), screened) if run.result.ok else NO_WIDE
