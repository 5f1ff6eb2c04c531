"""Mean, sample standard deviation and geometric mean over possibly-missing values."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TypedDict

from ..jsonio import num


class MeanStd(TypedDict):
    mean: float | None
    std: float | None  # the sample (n-1) deviation, None with fewer than two values
    n: int  # the values that were numbers


def mean_std(values: Iterable[object]) -> MeanStd:
    """{mean, std, n} of the values that are numbers."""
    vs = [v for x in values if (v := num(x)) is not None]
    if not vs:
        return MeanStd(mean=None, std=None, n=0)
    m = sum(vs) / len(vs)
    std = math.sqrt(sum((v - m) ** 2 for v in vs) / (len(vs) - 1)) if len(vs) > 1 else None
    return MeanStd(mean=m, std=std, n=len(vs))


def geomean(values: Iterable[object]) -> float | None:
    """Geometric mean of the positive values; None when there are none."""
    vs = [v for x in values if (v := num(x)) is not None and v > 0]
    if not vs:
        return None
    return math.exp(sum(math.log(v) for v in vs) / len(vs))
