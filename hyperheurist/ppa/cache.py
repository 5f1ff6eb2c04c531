"""Content-addressed PPA cache, safe for several processes sharing one folder.

Key = sha256 over candidate digest, recipe, liberty digest, tool versions, power fidelity, clock
period, input activity and the constraint/model version of this package, and the content of the map
files the recipe's script reads (``ppa.synth.map_files``; a key without them is the key it always was).
Entries are JSON files written atomically (temp file + rename), so a concurrent reader sees a whole entry or none.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import NotRequired, TypedDict

from ..cachedir import default_cache_dir
from ..jsonio import write_json
from ..recipe import KnobValue
from . import techmap
from .metrics import PPAMetrics

MODEL_VERSION = "ppa-1"  # bump when constraints or power models change, to invalidate old entries


class NetlistSimKey(TypedDict):
    cycles: int
    seed: int
    cocotb: bool


class WideKey(TypedDict):
    bits: int
    map: str | None  # the digest of the wide-operator techmap


class KeyExtra(TypedDict):
    """What else an entry's metrics depend on besides the RTL, recipe, liberty, tools and constraints."""

    top: str
    interface: dict[str, object]  # ``Interface.model_dump(mode="json")``
    verification: NotRequired[dict[str, object]]  # activity-based power simulates with the bench
    netlist_sim: NotRequired[NetlistSimKey]  # the entry answers the netlist_sim stage too
    wide: NotRequired[WideKey]  # the wide-operator fallback changed the script
    wide_mul: NotRequired[int | None]  # ``ppa.wide_multiplier_bits`` when not the default


def cache_key(*, candidate: str, recipe: Mapping[str, KnobValue], liberty_digest: str, tools: str, power: str,
              clock_period_ns: float, activity: float, extra: KeyExtra | None = None,
              maps: dict[str, str] | None = None) -> str:
    """``maps``: the map files the script reads (path -> text); None: the recipe's techmap files."""
    parts: dict[str, object] = {"v": MODEL_VERSION, "candidate": candidate, "recipe": recipe, "liberty": liberty_digest,
                             "tools": tools, "power": power, "period": repr(float(clock_period_ns)),
                             "activity": repr(float(activity)), "extra": extra or {}}
    maps_digest = techmap.digest(techmap.files(recipe) if maps is None else maps)
    if maps_digest is not None:
        parts["techmap"] = maps_digest
    blob = json.dumps(parts, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


class PPACache:
    """``get(key) -> PPAMetrics | None`` and ``put(key, metrics)`` over ``<dir>/ppa/<k2>/<key>.json``."""

    def __init__(self, cache_dir: Path | str | None = None) -> None:
        self.root = (Path(cache_dir).expanduser() if cache_dir else default_cache_dir()) / "ppa"

    @classmethod
    def default(cls) -> PPACache:
        return cls(None)

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> PPAMetrics | None:
        """The entry for ``key``, or None when it is missing, unreadable, for another key or implausible."""
        try:
            with open(self._path(key), encoding="utf-8") as fh:
                data = json.load(fh)
            if not isinstance(data, dict) or data.get("key") != key or not _plausible(data.get("metrics")):
                return None
            return PPAMetrics.from_dict(data["metrics"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None  # missing or unreadable entry: recompute (never trust a half entry)

    def put(self, key: str, metrics: PPAMetrics) -> None:
        """Best effort: a cache that cannot be written (disk full, read-only) never fails an evaluation."""
        try:
            write_json(self._path(key), {"key": key, "metrics": metrics.to_dict()})
        except OSError:
            pass


def _plausible(m: object) -> bool:
    """The numbers an entry must carry, finite and of the right type (a hand-edited or foreign file is not)."""
    if not isinstance(m, dict):
        return False
    for k in ("area_um2", "delay_ns", "power_mw"):
        v = m.get(k)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
            return False
    return isinstance(m.get("cells"), int)
