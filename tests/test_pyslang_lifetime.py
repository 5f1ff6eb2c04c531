"""No pyslang wrapper outlives the tree or compilation it points into.

pyslang 12 (nanobind) binds a syntax node's token attributes (``decl.name``, ``node.identifier``) and the
members of returned lists as plain references: such a wrapper does not keep its SyntaxTree alive. One kept
past the tree maps a freed address in nanobind's instance table, and the next pyslang object allocated there
aborts the process ("Critical nanobind error: nanobind::detail::inst_new_int(): unexpected collision!").
hdl/arrays.py once kept the port references it found in a recursive closure (a reference cycle, freed only by
a later garbage collection): ``hh gate`` on tests/data/unpacked died with SIGABRT about one run in three.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from hyperheurist.hdl import arrays, elaborate, parse, ports, rename, tokens

DATA = Path(__file__).parent / "data"
GOOD = DATA / "unpacked" / "good.sv"
TOP = "sort4"


def _wrapper(x: object) -> bool:
    module = type(x).__module__
    return (isinstance(module, str) and module.startswith("pyslang") and not isinstance(x, type)
            and not type(x).__name__.endswith("Kind"))  # enum values are immortal constants


def _holders() -> int:
    """Garbage-collected containers (lists, cells, frames, dicts) holding a pyslang wrapper."""
    n = 0
    for o in gc.get_objects():
        if not _wrapper(o) and any(_wrapper(r) for r in gc.get_referents(o)):
            n += 1
    return n


@contextmanager
def no_collector() -> Iterator[None]:
    """Cycles stay uncollected while a call is checked, as they may between two collections in ``hh``."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect()


CALLS: dict[str, Callable[[], object]] = {
    "flatten_array_ports": lambda: arrays.flatten_array_ports(GOOD.read_text()),
    "flatten_array_ports (instances)": lambda: arrays.flatten_array_ports(
        "".join((DATA / "unpacked2" / f).read_text() for f in ("top.sv", "core.sv"))),
    "array_shapes": lambda: arrays.array_shapes(parse.parse_files([GOOD]), TOP),
    "check_array_ports": lambda: arrays.check_array_ports(parse.parse_files([GOOD])),
    "scan": lambda: tokens.scan(GOOD.read_text(), comments=True),
    "prefix_names": lambda: rename.prefix_names(GOOD.read_text(), {TOP}, "p_"),
    "read_module": lambda: ports.read_module(parse.parse_files([GOOD]), TOP),
    "elaborated": lambda: elaborate.elaborated([GOOD], TOP, {}),
    "instance_paths": lambda: elaborate.instance_paths([GOOD], TOP),
    "semantic_errors": lambda: parse.semantic_errors([GOOD.read_text()]),
}


def holders_around(name: str) -> tuple[int, int]:
    """The holders before and after ``CALLS[name]``, no collection in between."""
    with no_collector():
        before = _holders()
        CALLS[name]()
        return before, _holders()


CHILD = """
import json, sys
sys.path.insert(0, sys.argv[1])
from test_pyslang_lifetime import CALLS, holders_around
print(json.dumps({name: holders_around(name) for name in sorted(CALLS)}))
"""


@pytest.fixture(scope="module")
def holders() -> dict[str, list[int]]:
    """Every call checked in one fresh interpreter: its heap is hh's and pyslang's, so a scan takes a fraction
    of a second, where in a pytest worker (the objects of every module it ran before) each took seconds."""
    here = Path(__file__).parent
    res = subprocess.run([sys.executable, "-c", CHILD, str(here)], capture_output=True, text=True, timeout=600,
                         cwd=here.parent)
    assert res.returncode == 0, res.stderr[-2000:]
    out: dict[str, list[int]] = json.loads(res.stdout.splitlines()[-1])
    return out


@pytest.mark.parametrize("name", sorted(CALLS))
def test_no_wrapper_survives_the_call(name: str, holders: dict[str, list[int]]) -> None:
    before, after = holders[name]
    assert after == before, f"{name} left pyslang wrappers alive in a reference cycle"


STRESS = """
import sys
from hyperheurist.hdl.arrays import flatten_array_ports
from hyperheurist.hdl.tokens import TokenStream
text = open(sys.argv[1]).read()
for _ in range(100):
    flatten_array_ports(text)
    for _ in range(3):
        for _tok in TokenStream(text.encode()):
            pass
"""


def test_the_array_rewrite_then_lexing_does_not_abort() -> None:
    # glibc's malloc for every object makes a freed token's address come back at once (before the fix: an
    # abort within the first 10 rounds, 3 runs of 3)
    env = {**os.environ, "PYTHONMALLOC": "malloc"}
    res = subprocess.run([sys.executable, "-c", STRESS, str(GOOD)], capture_output=True, text=True,
                         timeout=600, env=env)
    assert res.returncode == 0, res.stderr[-500:]
