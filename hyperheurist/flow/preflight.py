"""Configuration errors found before a run directory exists (exit 2, nothing written)."""

from __future__ import annotations

from pathlib import Path

from ..config import DesignConfig, Weights
from ..errors import ConfigError, HHError, InputError
from ..evaluate import first_line
from ..hdl.filelist import expand
from ..recipe import load_flow
from .session import RunOptions


def known_move_names(design: DesignConfig) -> set[str]:
    """Every move name ``anneal.moves`` may list, whether or not it applies to this design."""
    from ..search.moves import TunableParamMove, llm_moves, recipe_moves, rtl_moves

    flow = load_flow(design.ppa.flow)
    everything = design.model_copy(update={"ppa": design.ppa.model_copy(update={"weights": Weights()})})
    return ({m.name for m in rtl_moves()} | {TunableParamMove().name} | {m.name for m in recipe_moves()}
            | {m.name for m in llm_moves(everything, flow)})


def preflight(design: DesignConfig, opts: RunOptions | None = None) -> None:
    if opts is not None and opts.replay is not None and not (Path(opts.replay) / "llm").is_dir():
        raise InputError(f"--replay {opts.replay}: no recorded LLM responses (no {Path(opts.replay) / 'llm'})")
    from ..ppa.liberty import read_liberty

    try:  # a liberty that cannot be read would fail every synthesis: a configuration error, not a tool fault
        assert design.ppa.liberty_path is not None, "the config validator fills it in"
        lib = read_liberty(design.ppa.liberty_path)
        lib.inverter()
        if ((opts.power if opts is not None else None) or design.ppa.power) == "activity":
            from ..ppa.activity import cell_models

            cell_models(lib)
    except ConfigError as exc:
        raise ConfigError(f"{design.source}: {first_line(exc)}") from None
    except (HHError, OSError) as exc:
        raise ConfigError(f"{design.source}: ppa.liberty: {first_line(exc)}") from None
    gen = design.generation
    if gen.seeds and not gen.seed_files():
        raise ConfigError(f"{design.source}: generation.seeds: no file matches {gen.seeds}")
    for seed in gen.seed_files():  # paths only (RTL that does not parse is that candidate's failure, exit 1)
        try:
            expand([str(seed)], Path("."), str(seed), design.filelist_env)
        except ConfigError as exc:
            raise ConfigError(f"{design.source}: generation.seeds: {first_line(exc)}") from None
    if gen.rules_file is not None and gen.rules_file.exists():
        from ..llm.rules import RuleMemory

        try:
            RuleMemory.read_shared(gen.rules_file)
        except ConfigError as exc:
            raise ConfigError(f"{design.source}: generation.rules_file: {first_line(exc)}") from None
    if design.anneal.moves:
        known = known_move_names(design)
        unknown = sorted(set(design.anneal.moves) - known)
        if unknown:
            raise ConfigError(f"{design.source}: anneal.moves: unknown move(s) {', '.join(unknown)} "
                              f"(known: {', '.join(sorted(known))})")
