"""design.yaml loading: good files resolve, bad ones give one line naming the file and the field."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hyperheurist.config import load_design, parse_override
from hyperheurist.errors import ConfigError
from hyperheurist.hdl.literals import LiteralError, param_value

DATA = Path(__file__).parent / "data" / "config"


def _variant(tmp_path: Path, mutate) -> Path:
    data = yaml.safe_load((DATA / "good.yaml").read_text())
    mutate(data)
    for f in ("spec.md", "ref.v"):
        (tmp_path / f).write_text((DATA / f).read_text())
    p = tmp_path / "design.yaml"
    p.write_text(yaml.safe_dump(data))
    return p


def test_good_design_resolves_paths() -> None:
    d = load_design(DATA / "good.yaml")
    assert d.spec == (DATA / "spec.md").resolve()
    assert d.verification.reference == (DATA / "ref.v").resolve()
    assert d.ppa.liberty_path and d.ppa.liberty_path.name == "osu018_stdcells.lib"
    assert not d.interface.sequential
    assert [p.name for p in d.interface.outputs()] == ["sum"]
    resolved = yaml.safe_load(d.resolved_yaml())
    assert resolved["spec"] == str(DATA.resolve() / "spec.md")


@pytest.mark.parametrize(
    "mutate, expected",
    [
        (lambda d: d.update(colour="red"), r"colour: unknown key"),
        (lambda d: d["interface"]["ports"][0].pop("width"), r"interface\.ports\[0\]\.width: required field is missing"),
        (lambda d: d.update(spec="nope.md"), r"spec: file not found"),
        (lambda d: d["interface"].update(ports=[]), r"interface\.ports"),
        (lambda d: d["interface"]["ports"][0].update(width="wide"), r"interface\.ports\[0\]\.width"),
        (lambda d: d["ppa"].update(clock_period_ns=-1), r"ppa\.clock_period_ns"),
        (lambda d: d["ppa"].update(liberty="missing.lib"), r"liberty: not a bundled name"),
        (lambda d: d.update(verification={}), r"verification: .*at least one of cocotb"),
        (lambda d: d["interface"]["ports"].append({"name": "a", "dir": "input", "width": 1}), r"duplicate port"),
        (lambda d: d["verification"].update(cocotb="test_missing"), r"cocotb: test module not found"),
    ],
)
def test_bad_design_names_file_and_field(tmp_path: Path, mutate, expected: str) -> None:
    p = _variant(tmp_path, mutate)
    with pytest.raises(ConfigError, match=expected) as exc:
        load_design(p)
    msg = str(exc.value)
    assert msg.startswith(str(p)) and "\n" not in msg


@pytest.mark.parametrize("value", [0, 255, "8'hFF", "16'd1000", "1000", "1_000", "-3", -3, "4'sb1111", "4'b1x0z",
                                   '"str"', "3.5", "8'd256", 2**31, "'1"])
def test_tunable_values_follow_the_literal_rule_the_tools_share(tmp_path: Path, value: int | str) -> None:
    """Config accepts a tunable value exactly when hdl.literals (the gates' and synthesis' rule) does."""
    p = _variant(tmp_path, lambda d: d.update(tunables=[{"name": "W", "values": [value]}]))
    try:
        param_value(value)
        accepted = True
    except LiteralError:
        accepted = False
    if accepted:
        assert load_design(p).tunables[0].values == [value]
    else:
        with pytest.raises(ConfigError, match=r"tunables\[0\]\.values: value "):
            load_design(p)


@pytest.mark.parametrize(("mutate", "expected"), [
    (lambda d: d.update(top="module"), "top: module name 'module': a (System)Verilog keyword"),
    (lambda d: d.update(tunables=[{"name": "logic", "values": [1]}]), "tunables[0].name: parameter 'logic'"),
    (lambda d: d.update(defines={"2X": "1"}), "defines: define '2X': not a Verilog identifier"),
    (lambda d: d["interface"].update(clock="clk); $finish; //"), "interface.clocks[0].name: clock 'clk); $finish; //'"),
    (lambda d: d.update(defines=["W=8 8"]), "defines: define W='8 8'"),
])
def test_names_and_defines_follow_the_literal_rule(tmp_path: Path, mutate, expected: str) -> None:
    with pytest.raises(ConfigError) as exc:
        load_design(_variant(tmp_path, mutate))
    assert expected in str(exc.value) and "\n" not in str(exc.value)


@pytest.mark.parametrize(
    "content, expected",
    [
        (b"", "file is empty"),
        (b"name: [unclosed\n", r":\d+: YAML syntax error"),
        (b"- a\n- b\n", "top level must be a mapping"),
        (b"name: \xff\xfe\n", "not UTF-8"),
    ],
)
def test_unreadable_yaml(tmp_path: Path, content: bytes, expected: str) -> None:
    p = tmp_path / "d.yaml"
    p.write_bytes(content)
    with pytest.raises(ConfigError, match=expected):
        load_design(p)


def test_missing_file() -> None:
    with pytest.raises(ConfigError, match="file not found"):
        load_design("/nonexistent/design.yaml")


def test_overrides() -> None:
    d = load_design(DATA / "good.yaml", {"anneal.iterations": 7, "anneal.seed": 3})
    assert d.anneal.iterations == 7 and d.anneal.seed == 3
    assert parse_override("anneal.chains=4") == ("anneal.chains", 4)
    with pytest.raises(ConfigError):
        parse_override("nonsense")


_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5000) | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=st.sampled_from(["name", "top", "spec", "interface", "verification", "ppa", "generation", "anneal",
                            "limits", "tunables", "extra_key"]), value=_values)
def test_loader_never_crashes(tmp_path: Path, key: str, value) -> None:
    """Property: any value in any field either loads or gives a one-line ConfigError."""
    p = _variant(tmp_path, lambda d: d.__setitem__(key, value))
    try:
        load_design(p)
    except ConfigError as exc:
        assert "\n" not in str(exc) and str(exc).startswith(str(p))
