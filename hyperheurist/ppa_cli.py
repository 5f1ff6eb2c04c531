"""``hh ppa DESIGN_YAML [RTL_FILE... | -f FILELIST]``: synthesize and print area, timing and power.

Runs no gates: it scores the RTL as given (``hh gate`` checks it), on its canonical text (the safety stage
makes it); no files: the design's ``sources``. ``--json`` prints the metrics
(area_um2, cells, delay_ns, slack_ns, fmax_mhz, power_mw, power_fidelity, liberty, ...).
"""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path

import click
import yaml

from .config import load_design, parse_override
from .errors import EXIT_INVALID, EXIT_OK, ConfigError, HHError
from .estimate import estimate
from .gates.safety import check_safety
from .jsonio import dumps
from .ppa.cache import PPACache
from .ppa.metrics import FIDELITIES, METRIC_DIRECTIONS, librelane_metrics
from .ppa.report import ppa_report_text
from .project.messages import scrub_temp
from .project.sources import load_candidate
from .recipe import Recipe, load_flow
from .sandbox_probe import enforce as enforce_sandbox
from .tempdirs import owned_tempdir


def recipe_from(flow_name: str, pairs: tuple[str, ...]) -> Recipe:
    """The flow preset's recipe with ``KEY=VALUE`` overrides (values parsed as YAML)."""
    recipe = load_flow(flow_name).recipe
    changes: dict[str, object] = {}  # knob -> a YAML value (Recipe.from_dict checks it)
    for pair in pairs:
        if "=" not in pair:
            raise ConfigError(f"--recipe {pair}: expected KEY=VALUE")
        key, raw = pair.split("=", 1)
        try:
            changes[key.strip()] = yaml.safe_load(raw)
        except yaml.YAMLError:
            changes[key.strip()] = raw
    return Recipe.from_dict({**recipe.to_dict(), **changes}, where="--recipe")


@click.command("ppa")
@click.argument("design_yaml", type=click.Path(dir_okay=False))
@click.argument("rtl_files", nargs=-1, type=click.Path(dir_okay=False))
@click.option("-f", "--filelist", "filelists", multiple=True, type=click.Path(dir_okay=False),
              help="A filelist (+incdir+, +define+, -f nesting); repeatable.")
@click.option("--json", "as_json", is_flag=True, help="Print the metrics as JSON.")
@click.option("--power", type=click.Choice(FIDELITIES), default=None,
              help="Power fidelity (default: ppa.power from design.yaml).")
@click.option("--flow", "flow_name", default=None, help="Flow preset name or file (default: ppa.flow).")
@click.option("--recipe", "recipe_pairs", multiple=True, metavar="KEY=VALUE", help="Override a recipe knob.")
@click.option("--workdir", type=click.Path(file_okay=False), help="Keep the stage folders here.")
@click.option("--cache-dir", type=click.Path(file_okay=False), help="PPA cache folder (default: $HH_CACHE_DIR).")
@click.option("--no-cache", is_flag=True, help="Always run the tools.")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE", help="Override a design.yaml key.")
def ppa(design_yaml: str, rtl_files: tuple[str, ...], filelists: tuple[str, ...], as_json: bool, power: str | None,
        flow_name: str | None,
        recipe_pairs: tuple[str, ...], workdir: str | None, cache_dir: str | None, no_cache: bool,
        overrides: tuple[str, ...]) -> int:
    """Synthesize RTL with DESIGN_YAML's liberty and print area, timing and power.

    RTL is RTL_FILE... and/or -f FILELIST; with neither, the design's `sources:`."""
    design = load_design(design_yaml, dict(parse_override(o) for o in overrides))
    notice = enforce_sandbox(design.limits.sandbox)  # exit 3 now, not per candidate
    if notice:
        click.echo(notice, err=True)
    if design.verification.initial == "power_on_values":  # hh ppa runs no structure stage to say it
        click.echo("hh: warning: verification.initial: power_on_values: PPA ignores power-on values "
                   "(ASIC flip-flops have no power-on state)", err=True)
    from .flow import preflight  # late: the flow package is only needed once a command runs

    preflight(design)  # an unreadable or malformed liberty is a configuration error (exit 2), as in hh run
    cand = load_candidate(design, rtl_files, filelists, origin="ppa")
    vetted = check_safety(cand, design.limits)  # untrusted RTL: nothing reads what the gate refuses
    if not vetted.passed:
        click.echo(f"hh ppa: INVALID: safety gate: {vetted.message}", err=True)
        return EXIT_INVALID
    recipe = recipe_from(flow_name or design.ppa.flow, recipe_pairs)
    cache = None if no_cache else PPACache(cache_dir)
    # an owned temporary folder only without --workdir: one a killed hh ppa left goes at the next start
    with nullcontext(None) if workdir else owned_tempdir("hh-ppa-") as tmp:
        wd = tmp / cand.short if tmp is not None else Path(str(workdir)).resolve()
        try:
            m = estimate(cand, design, recipe, wd, power=power or design.ppa.power, cache=cache)
        except HHError as exc:  # the temp folder goes at exit: the message must not send anyone there
            if tmp is not None:
                exc.args = (scrub_temp(str(exc), tmp),)
            raise
    if as_json:
        click.echo(dumps({**m.to_dict(), "cached": m.cached, "recipe": recipe.to_dict(),
                          "librelane": {k: {"value": v, "direction": METRIC_DIRECTIONS[k]}
                                        for k, v in librelane_metrics(m).items()}}))
    else:
        click.echo(ppa_report_text(m))
        click.echo(f"(fidelity {m.power_fidelity}; synth {m.timings['synth_s']:.2f} s, sta {m.timings['sta_s']:.2f} s,"
                   f" power {m.timings['power_s']:.2f} s{'; cached' if m.cached else ''})")
    return EXIT_OK
