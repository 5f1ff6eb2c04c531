"""Fake EDA tools for golden tests of the commands and scripts every stage generates (Edalize's way).

``install(tmp, monkeypatch)`` writes one launcher per tool into ``tmp/fakebin`` (shebang: this test
interpreter; body: ``fake_tool.main(<tool>)``) beside a copy of ``fake_tool.py``, and points the
``HH_<TOOL>`` overrides of ``hyperheurist.tools`` at them. The folder is the launchers' own, so the
sandbox lets them read it (it binds a tool's folder read-only) and one test's scenario never leaks
into another's. ``FakeTools.records(root)`` reads back what the fakes recorded, in call order;
``render`` turns them into golden text with the test's own paths replaced by ``<work>``, ``<repo>``...
``check_golden`` compares with ``tests/golden/<name>``; ``HH_REGEN_GOLDEN=1`` rewrites the files.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from hyperheurist.tools import override_var

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
GOLDEN = REPO / "tests" / "golden"
TOOLS = ("iverilog", "vvp", "ivlpp", "verilator", "yosys", "yosys-abc", "sta")
RECORD = re.compile(r"^\.hhfake-(\d+)-(.+)\.json$")


@dataclass(frozen=True)
class Record:
    """One call of a fake tool."""

    tool: str
    argv: list[str]
    cwd: str
    scripts: dict[str, str]
    env: list[str]


@dataclass
class FakeTools:
    bin: Path
    rules: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def rule(self, tool: str, **rule: Any) -> None:
        """Add a behaviour for ``tool``: match, exit, stdout, stderr, sleep, outputs (see fake_tool.py)."""
        self.rules.setdefault(tool, []).append(rule)
        (self.bin / "scenario.json").write_text(json.dumps(self.rules, indent=1), encoding="utf-8")

    def records(self, root: Path) -> list[Record]:
        """Every call recorded under ``root``, in the order the calls were made."""
        found = []
        for p in Path(root).rglob(".hhfake-*.json"):
            m = RECORD.match(p.name)
            if m:
                found.append((int(m.group(1)), p))
        return [Record(**json.loads(p.read_text(encoding="utf-8"))) for _, p in sorted(found)]


def install(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> FakeTools:
    fakebin = Path(tmp) / "fakebin"
    fakebin.mkdir(parents=True)
    shutil.copyfile(HERE / "fake_tool.py", fakebin / "fake_tool.py")
    for tool in TOOLS:
        exe = fakebin / tool
        exe.write_text(f"#!{sys.executable} -I\nimport sys\nsys.path.insert(0, {str(fakebin)!r})\n"
                       f"import fake_tool\nsys.exit(fake_tool.main({tool!r}))\n", encoding="utf-8")
        exe.chmod(0o755)
        monkeypatch.setenv(override_var(tool), str(exe))
    return FakeTools(fakebin)


def _substitutions(work: Path, tmp: Path) -> list[tuple[str, str]]:
    import cocotb_tools

    pairs = [(work, "<work>"), (tmp / "fakebin", "<fakebin>"), (tmp, "<tmp>"), (REPO, "<repo>"),
             (Path(cocotb_tools.__file__).resolve().parent.parent, "<site-packages>"),
             (Path(sys.prefix), "<venv>")]
    out = []
    for path, token in pairs:
        for form in dict.fromkeys((str(path), str(Path(path).resolve()))):
            out.append((form, token))
    return sorted(out, key=lambda p: -len(p[0]))  # the longest path first: <work> inside <tmp>


def normalise(text: str, work: Path, tmp: Path) -> str:
    for path, token in _substitutions(work, tmp):
        text = text.replace(path, token)
    return text


def render(records: list[Record], work: Path, tmp: Path) -> str:
    """Golden text: per call the tool, its folder, argv, environment names and scripts."""
    out = []
    for r in records:
        out.append(f"== {r.tool}  (in {r.cwd})")
        out.append(f"$ {shlex.join([r.tool, *r.argv])}")
        out.append(f"env: {' '.join(r.env)}")
        for name, text in sorted(r.scripts.items()):
            out.append(f"-- {name}")
            out.append(text.rstrip("\n"))
        out.append("")
    return normalise("\n".join(out), work, tmp)


def check_golden(name: str, text: str) -> None:
    """``text`` equals ``tests/golden/<name>`` (``HH_REGEN_GOLDEN=1``: write it instead)."""
    path = GOLDEN / name
    if os.environ.get("HH_REGEN_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    if not path.is_file():
        pytest.fail(f"no golden file {path.relative_to(REPO)}: run with HH_REGEN_GOLDEN=1 and review it")
    want = path.read_text(encoding="utf-8")
    if text != want:
        diff = "".join(difflib.unified_diff(want.splitlines(True), text.splitlines(True), f"golden/{name}", "now"))
        pytest.fail(f"the commands differ from {path.relative_to(REPO)} (HH_REGEN_GOLDEN=1 rewrites it):\n{diff}")


def sleeping_on(tmp: Path, tool: str, pattern: str) -> Path:
    """The real ``tool``, except that a call whose arguments match the shell ``pattern`` sleeps, spending no CPU:
    only the wall clock can stop it (a hang, or a machine too busy to run it). Point ``HH_<TOOL>`` at it."""
    from hyperheurist.tools import tool_path

    script = tmp / tool
    script.write_text(f"""#!/bin/sh
case "$*" in {pattern}) sleep 600 ;; *) exec {tool_path(tool)} "$@" ;; esac
""")
    script.chmod(0o755)
    return script
