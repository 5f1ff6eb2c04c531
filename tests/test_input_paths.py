"""One input-path rule for every path a design.yaml or a filelist names, and bounded YAML (issue 29).

Before: `sources:` and `-f` filelists took `/proc/self/environ` (so hh's environment, the LLM key in it, was
copied into the folders the tools read), a link in a sources folder to a private file elsewhere was read, and
`${OPENAI_API_KEY}` in a filelist was expanded (printed in the error, or handed to the RTL as a define).
A billion-laughs design.yaml spun the loader for minutes; a key given twice was silently the last one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cli_inproc import hh_in_process, hh_process

from hyperheurist.config import load_design, yamlsafe
from hyperheurist.errors import ConfigError
from hyperheurist.hdl.filelist import expand, parse_filelist

SECRET = "sk-test-not-a-real-key-1234567890"
WITH_KEY = {"OPENAI_API_KEY": SECRET}  # hh's environment holds the LLM key, as a user's does
DESIGN = """name: t
top: t
spec: spec.md
{extra}interface:
  ports:
    - {{name: a, dir: input, width: 4}}
    - {{name: y, dir: output, width: 4}}
verification:
  reference: ref.v
"""


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    d = tmp_path / "proj"
    (d / "rtl").mkdir(parents=True)
    (d / "spec.md").write_text("y = a\n")
    (d / "ref.v").write_text("module t(input [3:0] a, output [3:0] y); assign y = a; endmodule\n")
    (d / "rtl" / "t.v").write_text("module t(input [3:0] a, output [3:0] y); assign y = ~~a; endmodule\n")
    return d


def design(proj: Path, sources: str, extra: str = "") -> Path:
    p = proj / "design.yaml"
    p.write_text(DESIGN.format(extra=f"sources: {sources}\n" + extra))
    return p


@pytest.mark.parametrize("filelist", ["/proc/self/environ\n", "-f /proc/self/environ\n"])
def test_a_filelist_cannot_name_a_kernel_file(proj: Path, filelist: str) -> None:
    (proj / "rtl.f").write_text(filelist)
    with pytest.raises(ConfigError, match="kernel or device file"):
        expand(["-f rtl.f"], proj, "sources")


def test_sources_cannot_name_a_kernel_file_and_hh_says_so_with_exit_2(proj: Path) -> None:
    # a real process: /proc/self/environ is the environment its process started with, so only a child started
    # with the key shows whether the key could leak this way (this process's own started without it)
    res = hh_process("gate", str(design(proj, "[/proc/self/environ]")), env=WITH_KEY)
    assert res.returncode == 2 and "kernel or device file" in res.stderr and SECRET not in res.stderr + res.stdout


def test_a_link_in_a_sources_folder_to_a_private_file_elsewhere_is_refused(proj: Path, tmp_path: Path) -> None:
    private = tmp_path / "private.v"
    private.write_text("// secret design notes\nmodule t(input [3:0] a, output [3:0] y); endmodule\n")
    private.chmod(0o600)
    (proj / "rtl" / "leak.v").symlink_to(private)
    for entry in ("rtl", "rtl/*.v", "rtl/leak.v"):
        with pytest.raises(ConfigError, match="outside the design folder"):
            expand([entry], proj, "sources")
    (proj / "rtl.f").write_text("rtl/leak.v\n")
    with pytest.raises(ConfigError, match="outside the design folder"):
        parse_filelist(proj / "rtl.f")


def test_a_secret_is_never_expanded_in_a_filelist(proj: Path) -> None:
    (proj / "rtl.f").write_text("${OPENAI_API_KEY}.v\n+define+LEAK=$OPENAI_API_KEY\n")
    # cli.main here: the filelist's ${...} is expanded from os.environ, which holds the key for the call
    res = hh_in_process("gate", str(design(proj, "[-f rtl.f]", "filelist_env: [HOME]\n")), env=WITH_KEY)
    assert res.returncode == 2 and "names a secret" in res.stderr, res.stderr
    assert SECRET not in res.stderr + res.stdout
    res = hh_in_process("gate", str(design(proj, "[-f rtl.f]", "filelist_env: [OPENAI_API_KEY]\n")), env=WITH_KEY)
    assert res.returncode == 2 and "filelist_env" in res.stderr and SECRET not in res.stderr + res.stdout


def test_a_variable_named_in_filelist_env_is_expanded(proj: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("T_RTL", str(proj / "rtl"))
    (proj / "rtl.f").write_text("$T_RTL/t.v\n")
    cfg = load_design(design(proj, "[-f rtl.f]", "filelist_env: [T_RTL]\n"))
    assert cfg.filelist_env == ["T_RTL"]
    with pytest.raises(ConfigError, match="filelist_env"):
        load_design(design(proj, "[-f rtl.f]"))


BOMB = "".join(f"{c}: &{c} [{', '.join([f'*{p}'] * 9) if p else ', '.join(['lol'] * 9)}]\n"
               for p, c in zip(["", *"abcdefgh"], "abcdefghi", strict=True))


def test_an_alias_bomb_is_refused_at_load(proj: Path) -> None:
    p = proj / "design.yaml"
    p.write_text(DESIGN.format(extra="") + "notes:\n" + "".join("  " + line + "\n" for line in BOMB.splitlines()))
    res = hh_in_process("gate", str(p))  # the refusal is what is tested: cli.main in this process
    assert res.returncode == 2 and "aliases are expanded" in res.stderr and len(res.stderr.splitlines()) == 1
    core = proj / "bomb.core"
    core.write_text("CAPI=2:\nname: a:b:c:1\n" + BOMB)
    res = hh_in_process("init", "--top", "t", str(core), "-o", str(proj / "out.yaml"))
    assert res.returncode == 2 and "aliases are expanded" in res.stderr, res.stderr


def test_a_key_given_twice_is_refused_with_both_lines(proj: Path) -> None:
    p = proj / "design.yaml"
    p.write_text(DESIGN.format(extra="top: u\n"))
    res = hh_in_process("gate", str(p), str(proj / "rtl" / "t.v"))
    assert res.returncode == 2 and "key 'top' given twice (lines 2 and 4)" in res.stderr, res.stderr


def test_aliases_and_merge_keys_within_bounds_still_load() -> None:
    assert yamlsafe.load("b: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\nl: [*b, *b]\n") == {
        "b": {"x": 1, "y": 2}, "m": {"x": 1, "y": 3}, "l": [{"x": 1, "y": 2}, {"x": 1, "y": 2}]}
    with pytest.raises(yamlsafe.YamlLimitError, match="refers to itself"):
        yamlsafe.load("a: &a [1, *a]\n")


def test_credentials_in_an_endpoint_url_stay_out_of_the_run_record(proj: Path) -> None:
    from hyperheurist.rundir import manifest

    url = "http://alice:hunter2@127.0.0.1:8000/v1"
    cfg = load_design(design(proj, "[rtl/t.v]", f"generation: {{provider: openai, base_url: '{url}'}}\n"))
    argv = manifest(cfg, 1, argv=["hh", "run", "design.yaml", "--base-url", url, f"--base-url={url}"])["argv"]
    resolved = cfg.resolved_yaml()
    assert "hunter2" not in " ".join(argv) + resolved and "alice" not in " ".join(argv) + resolved
    assert "http://127.0.0.1:8000/v1" in argv and "127.0.0.1:8000/v1" in resolved


def test_crash_logs_do_not_pile_up_in_the_temp_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    from hyperheurist import cli

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    for _ in range(cli.CRASH_LOGS_KEPT + 5):
        try:
            raise RuntimeError("boom")
        except RuntimeError:
            last = Path(cli._crash_log())
    folder = tmp_path / f"hh-crash-{os.getuid()}"
    assert last.parent == folder and "RuntimeError: boom" in last.read_text()
    assert len(list(folder.iterdir())) == cli.CRASH_LOGS_KEPT and not list(tmp_path.glob("hh-crash-*.log"))
