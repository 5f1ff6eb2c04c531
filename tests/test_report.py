"""The run and sweep reports, rendered from a recorded run directory (tests/data/report/run1, see its README).

No EDA tool runs here: the run was recorded once with
`hh run tests/data/flow/design.yaml --out /tmp/rr --quiet` and only the files the report reads were kept.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from cli_inproc import hh_in_process
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from recordlib import typed

from hyperheurist.errors import InputError
from hyperheurist.report import aggregate, render_run, render_sweep, terminal_summary, write_sweep
from hyperheurist.report.fmt import fcost, fnum, power

DATA = Path(__file__).parent / "data" / "report"
REPO = Path(__file__).resolve().parent.parent
URL_ATTR = re.compile(r"""(?:src|href|xlink:href|action|data)\s*=\s*["']?\s*(?:https?:)?//""", re.I)
# `hh report` and `hh ppa` are cli.main in this process (hh_in_process): the exit code, the page written, the
# one-line error and the critical path printed are what is tested


def copy_run(tmp_path: Path, name: str = "run1") -> Path:
    """A private copy of a recorded run whose spec path points into this checkout."""
    dst = tmp_path / name
    shutil.copytree(DATA / name, dst)
    resolved = dst / "resolved.yaml"
    data = yaml.safe_load(resolved.read_text())
    data["spec"] = str(REPO / "tests" / "data" / "flow" / "spec.md")
    resolved.write_text(yaml.safe_dump(data, sort_keys=False))
    return dst


def assert_self_contained(html: str) -> None:
    assert "http://" not in html and "https://" not in html, "no URL of any kind"
    assert not URL_ATTR.search(html), "no protocol-relative src/href"
    assert "<script" not in html.lower()
    assert "<link" not in html.lower() and "@import" not in html
    assert "default-src 'none'" in html, "the CSP forbids every network load"


@pytest.fixture
def run1(tmp_path: Path) -> Path:
    return copy_run(tmp_path)


@pytest.fixture
def summary() -> dict:
    return json.loads((DATA / "run1" / "summary.json").read_text())


# ---- the run page -------------------------------------------------------------------------------

def test_run_page_is_written_and_self_contained(run1: Path) -> None:
    out = render_run(run1)
    assert out == run1.resolve() / "report.html"
    html = out.read_text()
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
    assert_self_contained(html)
    assert html.count("<svg") >= 7, "funnel, 2 cost traces, temperature, acceptance, 3 scatters, moves"
    assert "<img" not in html, "plots are inline SVG, not images"
    assert "Missing or unreadable" not in html and "Run status" not in html, "a complete run has nothing missing"


def test_run_page_shows_the_summary_numbers(run1: Path, summary: dict) -> None:
    html = render_run(run1).read_text()
    ini, best = summary["initial"], summary["best"]
    assert f">{summary['design']}<" in html or f": {summary['design']}<" in html
    for point in (ini, best):
        assert fnum(point["area_um2"]) in html
        assert fnum(point["delay_ns"]) in html
        assert power(point["power_mw"]) in html
        assert fcost(point["cost"]) in html
    for p in summary["pareto"]:
        assert p["key"] in html, "every Pareto point is listed"
    for name in summary["moves"]:
        assert name in html
    for e in summary["phase1"]["entries"]:
        assert e["label"] in html
    rejected = [e for e in summary["phase1"]["entries"] if e["verdict"] != "valid"]
    assert rejected and all(e["message"].replace("`", "&#x60;")[:40] in html or
                            e["message"][:40].replace("'", "&#x27;") in html for e in rejected), "rejection messages"
    assert "rejected at simulation" in html, "the funnel names the gate"
    assert str(summary["phase1"]["candidates"]) in html


def test_run_page_has_each_section(run1: Path, summary: dict) -> None:
    html = render_run(run1).read_text()
    for anchor in ("design", "phase1", "anneal", "ppa-space", "moves", "ppa", "rtl", "reproduce"):
        assert f'id="{anchor}"' in html, anchor
    for title in ("Chain 0: cost per iteration", "Chain 1: cost per iteration", "Temperature", "Acceptance rate",
                  "delay vs area", "power vs area", "power vs delay", "Credit over time",
                  "Proposals, valid and accepted per move", "Phase 1 funnel"):
        assert title in html, title
    for tool in summary["tools"].values():
        assert tool["version"].split(" (")[0] in html, "tool versions"
    for cmd in summary["reproduce"]:
        assert cmd.replace("*", "*") in html.replace("&#x27;", "'"), "the reproduce commands"
    assert "Combinational: y = 10*a" in html, "the spec excerpt"
    assert "Identical: the best design keeps the initial RTL" in html, "this run's best RTL is the initial one"


def test_credit_chart_matches_the_annealer(run1: Path, summary: dict) -> None:
    """The credit rebuilt from the journal's steps ends where the annealer's per-move credit ended."""
    html = render_run(run1).read_text()
    for name, m in summary["moves"].items():
        if m["proposals"]:
            assert f"{name} ({fnum(m['credit'], 3)})" in html, name


def test_moves_table_lists_only_moves_that_ran(run1: Path, summary: dict) -> None:
    """A row per move with a proposal; the others are named once below the table, not 0-filled rows."""
    html = render_run(run1).read_text()
    sec = html[html.index('id="moves"'):]
    tbl = sec[:sec.index("</table>")]
    ran = [n for n, m in summary["moves"].items() if m["proposals"]]
    idle = [n for n, m in summary["moves"].items() if not m["proposals"]]
    assert ran and idle, "the recorded run has both"
    assert tbl.count("<tr>") == len(ran) + 1
    for n in ran:
        assert f"<td>{n}</td>" in tbl
    for n in idle:
        assert f"<td>{n}</td>" not in tbl and n in sec[:sec.index("</section>")]


def test_rtl_diff_is_shown_and_escaped(run1: Path) -> None:
    best = run1 / "best" / "design.v"
    best.write_text(best.read_text().replace("assign", "// <script>alert(1)</script> & more\n  assign", 1))
    html = render_run(run1).read_text()
    assert '<span class="a">+  // &lt;script&gt;alert(1)&lt;/script&gt; &amp; more</span>' in html
    assert "1 line(s) added, 0 removed" in html
    assert "<script>" not in html


def test_render_is_small_and_deterministic(run1: Path) -> None:
    first = render_run(run1).read_text()
    assert len(first.encode()) < 500_000
    assert render_run(run1).read_text() == first, "two renders of the same run are identical"


# ---- partial and broken run directories ---------------------------------------------------------

def test_no_valid_candidate_page(tmp_path: Path) -> None:
    run = copy_run(tmp_path, "novalid")
    html = render_run(run).read_text()
    assert_self_contained(html)
    assert "No candidate passed every Phase-1 gate" in html
    assert "no valid design" in html
    assert "Not run: no candidate passed Phase 1." in html
    assert "differential test: cycle 1" in html, "the rejection message is there to act on"
    text = terminal_summary(run)
    assert "no valid candidate: 0 of 1" in text and "simulation 1" in text


def test_interrupted_run_page(run1: Path) -> None:
    """Killed mid-run: no summary.json, no best/, a torn last journal line."""
    (run1 / "summary.json").unlink()
    shutil.rmtree(run1 / "best")
    shutil.rmtree(run1 / "initial")
    lines = (run1 / "journal.jsonl").read_text().splitlines(keepends=True)
    steps = [i for i, ln in enumerate(lines) if '"type": "step"' in ln]
    (run1 / "journal.jsonl").write_text("".join(lines[:steps[3]]) + lines[steps[3]][:50])
    html = render_run(run1).read_text()
    assert_self_contained(html)
    assert "The run did not finish" in html and f"hh run --resume {run1.resolve()}" in html
    assert "summary.json: not found" in html
    assert "Chain 0: cost per iteration" in html, "the journal's steps are still plotted"
    assert "bad_truncated" in html, "Phase 1 verdicts come from the journal"
    assert "unfinished" in html and "best cost so far 1.0000 after 3 steps" in html
    assert "summary.json not found" in terminal_summary(run1)


def test_corrupt_files_are_reported_not_raised(run1: Path) -> None:
    (run1 / "summary.json").write_text("{not json")
    (run1 / "manifest.json").write_text("[1, 2]")
    (run1 / "resolved.yaml").write_text("a: [unclosed")
    lines = (run1 / "journal.jsonl").read_text().splitlines(keepends=True)
    (run1 / "journal.jsonl").write_text("".join(lines[:3]) + "garbage\n" + "".join(lines[3:]))
    (run1 / "best" / "ppa.json").write_text(json.dumps({"metrics": {"area_um2": "huge", "delay_ns": None}}))
    html = render_run(run1).read_text()
    assert "summary.json: not valid JSON" in html
    assert "manifest.json: expected a JSON object" in html
    assert "resolved.yaml: not valid YAML" in html
    assert "journal.jsonl: unreadable line" in html
    assert_self_contained(html)


def test_wrong_types_in_summary_do_not_crash(run1: Path, summary: dict) -> None:
    summary["moves"] = {"m": {"proposals": "many", "credit": None}, "n": 7}
    summary["pareto"] = [{"area_um2": float("nan")}, "x", None]
    summary["phase1"] = {"entries": [None, {"verdict": 3}], "rejected_by_gate": {"x": "y"}}
    summary["initial"]["cost"] = 0
    summary["tools"] = ["yosys"]
    (run1 / "summary.json").write_text(json.dumps(summary))
    assert "<svg" in render_run(run1).read_text()


def test_not_a_run_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a run directory"):
        render_run(tmp_path)
    with pytest.raises(InputError, match="not a directory"):
        render_run(tmp_path / "missing")


# ---- the terminal summary -----------------------------------------------------------------------

def test_terminal_summary(run1: Path, summary: dict) -> None:
    render_run(run1)
    text = terminal_summary(run1)
    lines = text.splitlines()
    assert len(lines) <= 12 and max(map(len, lines)) <= 100
    assert "initial" in lines[1] and "best" in lines[1]
    assert fcost(summary["initial"]["cost"]) in text and fcost(summary["best"]["cost"]) in text
    assert fnum(summary["best"]["area_um2"]) in text and fnum(summary["best"]["delay_ns"]) in text
    assert "improvement: none, the best design is the initial one" in text, "this run found nothing better"
    summary["best"]["cost"] = 0.75
    (run1 / "summary.json").write_text(json.dumps(summary))
    assert "improvement: 25.0% lower cost than the initial design" in terminal_summary(run1)
    assert f"report: {run1 / 'report.html'}" in text


def test_terminal_summary_says_when_the_report_is_missing(run1: Path) -> None:
    assert "report: not written (hh report" in terminal_summary(run1)


# ---- hh report ----------------------------------------------------------------------------------

def test_hh_report_cli(run1: Path, tmp_path: Path) -> None:
    res = hh_in_process("report", str(run1))
    assert res.returncode == 0, res.stderr
    assert (run1 / "report.html").is_file() and "report.html" in res.stdout
    empty = tmp_path / "empty"
    empty.mkdir()
    for bad in (empty, tmp_path / "missing"):
        res = hh_in_process("report", str(bad))
        assert res.returncode == 2, res.stderr
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and str(bad) in lines[0] and "Traceback" not in res.stderr, res.stderr


# ---- the sweep page -----------------------------------------------------------------------------

def _sweep_entries(summary: dict) -> list[dict]:
    """Two benchmarks x 3 seeds made from the recorded summary with known best costs."""
    entries = []
    for bench, costs, ref in (("adder32", (0.9, 0.8, 0.85), 0.95), ("fir4", (1.0, 0.7, 0.75), None)):
        for seed, c in enumerate(costs, 1):
            s = json.loads(json.dumps(summary))
            s["best"]["cost"] = c
            s["best"]["area_um2"] = s["initial"]["area_um2"] * c
            s["seed"] = seed
            entries.append({"benchmark": bench, "seed": seed, "summary": s,
                            "reference": ({"cost": ref, "area_um2": 1.0, "delay_ns": 1.0, "power_mw": 1.0}
                                          if ref else None),
                            "single_pass": {"cost": 1.25, "area_um2": 2.0, "delay_ns": 2.0, "power_mw": 2.0}})
    return entries


def test_sweep_page(tmp_path: Path, summary: dict) -> None:
    agg = aggregate(_sweep_entries(summary))
    agg.update(failed_runs=["crc32/s2"], wall_s=12.5, settings={"seeds": 3})
    out = write_sweep(tmp_path / "results", agg)
    html = out["html"].read_text()
    assert_self_contained(html)
    assert "adder32" in html and "fir4" in html
    assert "15 ± 5" in html, "adder32: improvements 10, 20, 15 % -> mean 15, std 5"
    assert "0.95" in html, "the reference cost"
    assert "Cost improvement over the baseline" in html and html.count("<svg") == 1
    assert html.count("<path") >= 2, "an error bar per benchmark"
    assert "crc32/s2" in html
    assert "single-pass (no search)" in html and "1.25 ± 0" in html, "single-pass generation, when recorded"
    agg_fir4 = next(r for r in agg["benchmarks"] if r["benchmark"] == "fir4")
    assert agg_fir4["single_pass"]["improvement_pct"]["mean"] == pytest.approx(-25.0)
    assert agg_fir4["runs"][0]["run_dir"] == summary["run_dir"], "the run folder comes from the summary"
    assert (tmp_path / "results" / "sweep.csv").read_text().startswith("benchmark,")
    res = hh_in_process("report", str(tmp_path / "results"))
    assert res.returncode == 0 and "sweep.html" in res.stdout, res.stderr


def test_sweep_page_without_sweep_json(tmp_path: Path) -> None:
    """A sweep killed before it wrote sweep.json: aggregate the run summaries it left."""
    results = tmp_path / "results"
    copy_run(results / "runs" / "mac_small", "run1")
    html = render_sweep(results).read_text()
    assert "sweep.json: not found" in html and "aggregated from 1 run summaries" in html
    assert "mac_small" in html
    with pytest.raises(InputError):
        render_sweep(tmp_path / "nothing-here")


# ---- the screenshot -----------------------------------------------------------------------------

def _screenshot_module():
    spec = importlib.util.spec_from_file_location("hh_screenshot", REPO / "tools" / "screenshot.py")
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    return mod


def test_png_decoder_round_trip() -> None:
    import numpy as np

    shot = _screenshot_module()
    img = np.zeros((7, 5, 3), dtype=np.uint8)
    img[2:4, 1:3] = (200, 10, 30)
    assert shot.distinct_colours(shot.decode_png(shot.encode_png(img))) == 2
    assert (shot.decode_png(shot.encode_png(img)) == img).all()


@pytest.mark.timeout(240)
def test_screenshot_is_not_blank(run1: Path, tmp_path: Path) -> None:
    shot = _screenshot_module()
    if shot.find_chromium() is None:
        pytest.skip("chromium not installed (apt-get install -y --no-install-recommends chromium, "
                    "or HH_WITH_CHROMIUM=1 tools/setup.sh)")
    html = render_run(run1)
    png = tmp_path / "report.png"
    res = subprocess.run([sys.executable, str(REPO / "tools" / "screenshot.py"), str(html), str(png),
                          "--height", "1200"], capture_output=True, text=True, timeout=200, stdin=subprocess.DEVNULL)
    assert res.returncode == 0, res.stdout + res.stderr
    img = shot.decode_png(png.read_bytes())
    assert img.shape[:2] == (1200, 1280)
    assert shot.distinct_colours(img) > 100, "a rendered page has text, charts and colours"
    header = img[:60, :, :3].reshape(-1, 3)
    assert (header.mean(axis=0) < 80).all(), "the dark page header is at the top"


# ---- robustness: whatever the files hold, a page or a one-line error --------------------------

JSONISH = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                       lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=6), kids, max_size=3),
                       max_leaves=8)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=st.sampled_from(["initial", "best", "moves", "pareto", "phase1", "tools", "reproduce", "llm", "design",
                            "seed", "evaluations", "wall_s", "status", "phase2_rejected_by_gate"]),
       value=JSONISH, step_patch=st.dictionaries(st.sampled_from(["chain", "iteration", "cost", "current_cost",
                                                                  "best_cost", "temperature", "move", "verdict",
                                                                  "accepted", "delta", "improved", "reheated"]),
                                                 JSONISH, max_size=4))
def test_any_summary_value_renders(tmp_path_factory, key: str, value: object, step_patch: dict) -> None:
    run = copy_run(tmp_path_factory.mktemp("h"))
    summary = json.loads((run / "summary.json").read_text())
    summary[key] = value
    (run / "summary.json").write_text(json.dumps(summary))
    lines = (run / "journal.jsonl").read_text().splitlines()
    i = next(k for k, ln in enumerate(lines) if '"type": "step"' in ln)
    lines[i] = json.dumps({**json.loads(lines[i]), **step_patch})
    (run / "journal.jsonl").write_text("\n".join(lines) + "\n")
    assert "</html>" in render_run(run).read_text()
    assert terminal_summary(run).startswith("hh:")


def test_binary_garbage_files(run1: Path) -> None:
    for name in ("summary.json", "journal.jsonl", "resolved.yaml", "best/design.v", "COMMANDS"):
        (run1 / name).write_bytes(bytes(range(256)) * 4)
    html = render_run(run1).read_text()
    assert "summary.json: not valid JSON" in html and "journal.jsonl: unreadable" in html
    assert "summary.json unreadable" in terminal_summary(run1)


def test_interrupted_status_in_summary(run1: Path, summary: dict) -> None:
    """Ctrl-C: the flow writes a summary with status "interrupted"; the page says so and how to resume."""
    summary.update(status="interrupted", interrupted_by="SIGINT")
    (run1 / "summary.json").write_text(json.dumps(summary))
    html = render_run(run1).read_text()
    assert "The run was interrupted (SIGINT)" in html and "hh run --resume" in html
    assert "(interrupted)" in terminal_summary(run1).splitlines()[0]


# ---- the typed RunSummary and the equivalence verdicts ----------------------------------------------------

@pytest.mark.parametrize("name", ["run1", "novalid"])
def test_run_summary_round_trip_keeps_every_key_and_value(name: str) -> None:
    """summary.json read into RunSummary and written back: the same keys and values (keys may only be added)."""
    from hyperheurist.flow import RunSummary

    raw = json.loads((DATA / name / "summary.json").read_text())
    again = RunSummary.read(raw).to_json()
    for k, v in raw.items():
        assert k in again, k
        if isinstance(v, dict) and k in ("initial", "best"):
            assert {kk: again[k][kk] for kk in v} == v, k
        elif k in ("pareto", "chain_best"):
            assert [{kk: b[kk] for kk in a} for a, b in zip(v, again[k], strict=True)] == v, k
        elif k == "phase1":
            assert {kk: again[k][kk] for kk in v if kk != "entries"} == {kk: v[kk] for kk in v if kk != "entries"}
            assert [{kk: b[kk] for kk in a} for a, b in zip(v["entries"], again[k]["entries"], strict=True)] == \
                v["entries"]
        else:
            assert again[k] == v, k


def _eval(key: str, parent: str, proof: dict | None) -> dict:
    return {"type": "eval", "key": key, "digest": key.split("-")[0], "parent": parent, "valid": True, "proof": proof}


def _step(key: str, parent: str, digest: str, parent_digest: str, accepted: bool = True) -> dict:
    return {"type": "step", "proposal": key, "parent": parent, "proposal_digest": digest,
            "parent_digest": parent_digest, "accepted": accepted, "move": "m"}


def test_proof_stats_count_accepted_rtl_changes_by_verdict() -> None:
    from hyperheurist.record.summary import ProofStats

    records = [
        _eval("a-r", "p-r", {"verdict": "proven", "engine": "abc &cec", "wall_s": 0.5}), _step("a-r", "p-r", "a", "p"),
        _eval("b-r", "a-r", {"verdict": "bounded", "engine": "abc pdr", "wall_s": 1.5}), _step("b-r", "a-r", "b", "a"),
        _eval("c-r", "b-r", None), _step("c-r", "b-r", "c", "b"),  # no check ran
        _eval("b-s", "b-r", None), _step("b-s", "b-r", "b", "b"),  # a recipe change: not an RTL change
        _eval("d-r", "c-r", {"verdict": "refuted", "wall_s": 9.0}), _step("d-r", "c-r", "d", "c", accepted=False),
        _step("a-r", "p-r", "a", "p"),  # accepted again from the same parent: counted once
        _step("a-r", "c-r", "a", "c"),  # proposed again from another chain: the state's own evaluation covers it
    ]
    for seq, r in enumerate(records):
        r["seq"] = seq
    ps = ProofStats.from_journal(typed(records))
    assert [(a.key, a.parent) for a in ps.accepted] == [("a-r", "p-r"), ("b-r", "a-r"), ("c-r", "b-r"), ("a-r", "c-r")]
    assert [a.proof_seq for a in ps.accepted] == [0, 2, None, 0]
    assert ps.by_verdict == {"proven": 2, "bounded": 1, "refuted": 0, "inconclusive": 0, "not checked": 1}
    assert ps.median_proof_s == 0.5 and ps.proven_rate == 0.5
    assert ProofStats.read(ps.to_json()) == ps


def test_run_page_marks_what_is_not_proven(run1: Path, summary: dict) -> None:
    summary["proofs"] = {"accepted": [
        {"key": "aaaa-r", "parent": "pppp-r", "move": "share", "verdict": "proven", "proof_s": 0.4, "engine": "abc"},
        {"key": "bbbb-r", "parent": "aaaa-r", "move": "fsm", "verdict": "bounded", "proof_s": 2.0, "engine": "pdr"},
        {"key": "cccc-r", "parent": "bbbb-r", "move": "llm", "verdict": "not checked", "proof_s": None,
         "engine": None},
    ]}
    (run1 / "summary.json").write_text(json.dumps(summary))
    html = render_run(run1).read_text()
    assert 'id="proofs"' in html and "3 accepted RTL change(s); proven 33.3%" in html
    section = html[html.index('id="proofs"'):]
    for key in ("aaaa-r", "bbbb-r", "cccc-r"):
        assert f"<code>{key}</code>" in section
    assert ">proven</span>" in section and ">bounded ⚠</span>" in section and ">not checked ⚠</span>" in section
    assert "equivalence of 3 accepted RTL change(s): proven 1, bounded 1, not checked 1" in terminal_summary(run1)


def test_the_greedy_finish_is_not_drawn_as_a_chain() -> None:
    """Polish steps (``search/polish.py``) have no chain: they are not put on chain 0's cost trace."""
    from hyperheurist.report.charts import by_chain

    steps = typed([{"type": "step", "chain": 0, "iteration": 0, "cost": 1.0},
                   {"type": "step", "chain": 1, "iteration": 0, "cost": 2.0},
                   {"type": "step", "chain": None, "phase": "polish", "iteration": 1, "cost": 0.5}])
    assert by_chain(steps) == {0: [steps[0]], 1: [steps[1]]}


# ---- the critical path in RTL terms (real tools) --------------------------------------------------

FLOW = REPO / "tests" / "data" / "flow" / "design.yaml"
ACC = REPO / "tests" / "data" / "ppa" / "acc"


@pytest.mark.tools
def test_ppa_text_gives_the_critical_path_in_rtl_terms(tmp_path: Path) -> None:
    """A register-to-register path: OpenSTA's instances (_118_) become the register bits and the line of
    the always block (acc.v:9), each stage with its delay and arrival."""
    res = hh_in_process("ppa", str(ACC / "design.yaml"), str(ACC / "acc.v"), "--set", "ppa.power=vectorless",
                        env={"HH_CACHE_DIR": str(tmp_path / "cache")})
    assert res.returncode == 0, res.stdout + res.stderr
    m = re.search(r"in RTL: from s\[(\d)\] \(acc\.v:9\) to s\[(\d)\] \(acc\.v:9\)", res.stdout)
    assert m, res.stdout
    stages = re.findall(r"^\s+(\d+\.\d{3})\s+(\d+\.\d{3})\s+(\S+) \((\w+)\)\s+(\S+(?: \S+)?)\s+acc\.v:9$",
                        res.stdout, re.M)
    assert len(stages) >= 4, res.stdout
    assert stages[-1][4] == f"s[{m.group(2)}]" and stages[-1][2].endswith("/D"), "ends at the register's D pin"
    assert any(s[4] == f"→ s[{m.group(2)}]" for s in stages), "ABC's unnamed logic is named by where it goes"
    arrivals = [float(s[1]) for s in stages]
    assert arrivals == sorted(arrivals)
    assert abs(sum(float(s[0]) for s in stages) - arrivals[-1]) < 0.01, "the increments add up to the arrival"


def _check_lineage_and_pareto(html: str, summary: dict) -> None:
    """The lineage walks from the start (cost 1) to the best design's cost, each move with a diff (RTL, or the
    recipe for a recipe move) and a proof pill; the Pareto rows are named by moves, the best row by its lineage."""
    lin = html[html.index('id="lineage"'):]
    lin = lin[:lin.index("</section>")]
    heads = re.findall(r"<summary>(\d+)\. <b>([\w-]+)</b> · cost ([\d.]+) → ([\d.]+) .*?</summary>(.*?)</details>",
                       lin, re.S)
    assert heads, lin[:2000]
    assert [int(h[0]) for h in heads] == list(range(1, len(heads) + 1))
    assert heads[0][2] == "1.0000" and heads[-1][3] == fcost(summary["best"]["cost"])
    for prev, nxt in zip(heads, heads[1:], strict=False):
        assert prev[3] == nxt[2], "each move starts where the previous one ended"
    for h in heads:
        assert '<pre class="diff">' in h[4] or "Same RTL" in h[4]
    moves = " → ".join(h[1] for h in heads)
    assert moves in lin
    pareto = html[html.index("<h3>Pareto set"):]
    pareto = pareto[:pareto.index("</table>")]
    assert not re.search(r"<code>[0-9a-f]{16}-[0-9a-f]{12}</code>", pareto), "no hash is the row's name"
    best_row = next(r for r in pareto.split("<tr>") if '<span class="pill valid">best</span>' in r)
    assert moves in best_row


def _dump_dom(browser: str, html: Path, tmp: Path) -> str:
    argv = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
            "--proxy-server=127.0.0.1:9", f"--user-data-dir={tmp}/profile", "--dump-dom", html.as_uri()]
    return subprocess.run(argv, capture_output=True, text=True, timeout=200, stdin=subprocess.DEVNULL,
                          start_new_session=True).stdout


@pytest.mark.slow
@pytest.mark.tools
@pytest.mark.timeout(600)
def test_report_critical_path_has_rtl_file_line_and_signals(flow_run: Path, tmp_path: Path) -> None:
    """A real run (Phase 1 offline seeds, Phase 2 annealing, Yosys and OpenSTA; `hh run` of FLOW on a cold cache,
    shared by the session: conftest.py): the report's critical-path section names the design's ports and the
    seed's file:line per stage; Chromium renders it."""
    from shared_runs import copy_run as copy_shared

    run_dir = copy_shared(flow_run, tmp_path / "run")
    html = render_run(run_dir).read_text()
    sec = html[html.index('id="path"'):]
    sec = sec[:sec.index("</section>")]
    assert re.search(r"From <b>[a-d]\[\d+\] \(ok_1_naive\.v:2\)</b> to <b>y\[\d+\] \(ok_1_naive\.v:2\)</b>", sec), sec
    rows = re.findall(r"<tr><td class=\"n\">(\d+\.\d{3})</td><td class=\"n\">(\d+\.\d{3})</td>", sec)
    assert len(rows) >= 3
    assert sec.count("<code>ok_1_naive.v:2</code>") == len(rows), "every stage has its RTL file:line"
    assert "techmap" not in sec, "hh's own techmap files are not RTL"
    ppa = json.loads((run_dir / "best" / "ppa.json").read_text())["metrics"]
    assert f"{ppa['delay_ns']:.3f}"[:-1] in sec
    _check_lineage_and_pareto(html, json.loads((run_dir / "summary.json").read_text()))
    shot = _screenshot_module()
    browser = shot.find_chromium()
    if browser is None:
        pytest.skip("chromium not installed")
    dom = _dump_dom(browser, run_dir / "report.html", tmp_path)
    assert "Critical path of the best design" in dom and "ok_1_naive.v:2" in dom
    png = shot.screenshot(run_dir / "report.html", tmp_path / "report.png", height=1600)
    assert shot.distinct_colours(shot.decode_png(png.read_bytes())) > 100


HIER_RTL = """module addr(input [7:0] a, input [7:0] b, output [7:0] s);
  assign s = a + b;
endmodule
module top(input clk, input [7:0] x, input [7:0] y, output reg [7:0] q);
  wire [7:0] sum;
  addr u_add (.a(x), .b(y), .s(sum));
  always @(posedge clk) q <= sum;
endmodule
"""


@pytest.mark.tools
def test_critical_path_through_a_kept_submodule(tmp_path: Path) -> None:
    """flatten=false keeps u_add: its cells are u_add/_NN_ in OpenSTA's path and are found in the submodule
    (signals prefixed u_add., lines of the submodule); a port split per bit keeps its declaration's line."""
    (tmp_path / "top.v").write_text(HIER_RTL)
    (tmp_path / "ref.v").write_text(HIER_RTL.replace("addr", "addr_r").replace("module top", "module top_ref"))
    (tmp_path / "spec.md").write_text("An adder into a register.\n")
    (tmp_path / "design.yaml").write_text(yaml.safe_dump({
        "name": "top", "top": "top", "spec": "spec.md", "verification": {"reference": "ref.v"},
        "interface": {"clock": "clk", "ports": [{"name": "x", "dir": "input", "width": 8},
                                                {"name": "y", "dir": "input", "width": 8},
                                                {"name": "q", "dir": "output", "width": 8}]},
        "ppa": {"clock_period_ns": 5, "power": "vectorless"}}))
    res = hh_in_process("ppa", str(tmp_path / "design.yaml"), str(tmp_path / "top.v"), "--recipe", "flatten=false",
                        env={"HH_CACHE_DIR": str(tmp_path / "cache")})
    assert res.returncode == 0, res.stdout + res.stderr
    assert re.search(r"in RTL: from [xy]\[\d\] \(top\.v:4\) to q\[\d\] \(top\.v:7\)", res.stdout), res.stdout
    inner = re.findall(r"u_add/_\d+_/\w+ \(\w+\)\s+(?:→ )?u_add\.s\[\d\]\s+top\.v:1$", res.stdout, re.M)
    assert len(inner) >= 2, res.stdout


def test_lineage_starts_where_the_best_design_started(tmp_path: Path) -> None:
    """A best design reached from a Phase-1 candidate other than the initial one: its lineage starts there,
    and the page says the best-vs-initial diff compares two different start designs."""
    from hyperheurist.flow import RunSummary
    from hyperheurist.report.lineage import lineage_section
    from hyperheurist.report.rundata import RunData

    point = {"area_um2": 1.0, "delay_ns": 1.0, "power_mw": 1.0}
    summary = RunSummary.read({"initial": {**point, "key": "aaaa-r0", "label": "seed_a", "cost": 1.0},
                                    "best": {**point, "key": "cccc-r1", "cost": 0.5}})
    steps = [{"type": "step", "parent": "bbbb-r0", "proposal": "cccc-r0", "parent_digest": "bbbb",
              "proposal_digest": "cccc", "move": "share_add_sub", "accepted": True, "cost": 0.8, "delta": -0.1},
             {"type": "step", "parent": "cccc-r0", "proposal": "cccc-r1", "parent_digest": "cccc",
              "proposal_digest": "cccc", "move": "recipe_adder", "accepted": True, "cost": 0.5, "delta": -0.3}]
    rd = RunData(path=tmp_path, summary=summary, steps=typed(steps),
                 phase1=typed([{"type": "phase1", "key": "bbbb-r0", "label": "seed_b"}]))
    html = lineage_section(rd)
    assert "seed_b → share_add_sub → recipe_adder" in html
    assert "descends from <b>seed_b</b>, not from the initial design <b>seed_a</b>" in html
    assert "cost 0.9000 → 0.8000" in html and "cost 0.8000 → 0.5000" in html
    assert "same RTL" in html and "RTL of bbbb" in html  # the recipe move; the RTL the run did not keep
