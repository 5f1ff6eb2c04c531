"""A config error as a user reads it: an unknown design.yaml key is told which keys its place takes (and the
closest one), in one line; ``hh gate --junit`` names the error's suite after the design, not its folder."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from hyperheurist.config import load_design
from hyperheurist.errors import ConfigError

DESIGN = Path(__file__).parent / "data" / "flow" / "design.yaml"


@pytest.mark.parametrize("key,value,expected", [
    ("verification.tests", 1, "verification.tests: unknown key (did you mean test_dir? valid: cocotb, "),
    ("ppa.clock_perod_ns", 3, "ppa.clock_perod_ns: unknown key (did you mean clock_period_ns? valid: "),
    ("interface.ports", [{"name": "a", "dir": "input", "widht": 8}],
     "interface.ports[0].widht: unknown key (did you mean width? valid: dir, domain, name, signed, unpacked, width)"),
])
def test_unknown_key_names_the_valid_keys(key: str, value: object, expected: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_design(DESIGN, {key: value})
    msg = str(err.value)
    assert expected in msg and "\n" not in msg
    assert "source" not in msg.split("valid: ")[1].split(", "), "loader-filled fields are not keys of the file"


def test_top_level_unknown_key_lists_sections_only() -> None:
    with pytest.raises(ConfigError, match=r"colour: unknown key \(valid: anneal, defines, ") as err:
        load_design(DESIGN, {"colour": "red"})
    assert "base_dir" not in str(err.value)


def test_a_config_errors_junit_suite_is_named_after_the_design(tmp_path: Path) -> None:
    folder = tmp_path / "checkout"
    folder.mkdir()
    data = yaml.safe_load(DESIGN.read_text())
    data["verification"]["tests"] = "tests/"
    (folder / "design.yaml").write_text(yaml.safe_dump(data))
    res = subprocess.run([sys.executable, "-m", "hyperheurist", "gate", str(folder / "design.yaml"), "--junit",
                          str(tmp_path / "gate.xml")], capture_output=True, text=True, timeout=120,
                         stdin=subprocess.DEVNULL)
    assert res.returncode == 2 and "verification.tests: unknown key (" in res.stderr
    suite = ET.parse(tmp_path / "gate.xml").getroot().find("testsuite")
    assert suite is not None and suite.get("name") == "mac_small" and suite.get("errors") == "1"
