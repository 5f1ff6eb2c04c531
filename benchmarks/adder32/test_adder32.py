"""cocotb test for adder32: directed carry corner cases, then seeded random vectors vs a Python model."""

from __future__ import annotations

import random

import cocotb
from cocotb.triggers import Timer

MASK = (1 << 32) - 1
SEED = 20240732
RANDOM_VECTORS = 400


def model(a: int, b: int, cin: int) -> tuple[int, int]:
    """Expected (sum, cout) of a 33-bit add."""
    total = a + b + cin
    return total & MASK, total >> 32


def _read(sig, name: str, ctx: str) -> int:
    val = sig.value
    assert val.is_resolvable, f"{ctx}: {name} is not resolvable (X/Z): {val}"
    # 1-bit ports read back as Logic (int() only); vectors as LogicArray
    return val.to_unsigned() if hasattr(val, "to_unsigned") else int(val)


async def _check(dut, idx: int, a: int, b: int, cin: int) -> None:
    dut.a.value = a
    dut.b.value = b
    dut.cin.value = cin
    await Timer(1, unit="ns")
    ctx = f"vector {idx} a=0x{a:08x} b=0x{b:08x} cin={cin}"
    exp_sum, exp_cout = model(a, b, cin)
    got_sum = _read(dut.sum, "sum", ctx)
    got_cout = _read(dut.cout, "cout", ctx)
    assert got_sum == exp_sum, f"{ctx}: sum expected 0x{exp_sum:08x} got 0x{got_sum:08x}"
    assert got_cout == exp_cout, f"{ctx}: cout expected {exp_cout} got {got_cout}"


def _directed() -> list[tuple[int, int, int]]:
    vecs = [
        (0, 0, 0), (0, 0, 1), (MASK, 0, 1), (0, MASK, 1), (MASK, MASK, 0), (MASK, MASK, 1),
        (0x8000_0000, 0x8000_0000, 0), (0x8000_0000, 0x7FFF_FFFF, 1), (0x7FFF_FFFF, 1, 0),
        (0xAAAA_AAAA, 0x5555_5555, 0), (0xAAAA_AAAA, 0x5555_5555, 1), (MASK, 1, 0), (1, MASK, 0),
    ]
    # a carry generated at bit i and propagated to the top; and each single bit on its own
    for i in range(32):
        low = (1 << i) - 1
        vecs.append((MASK ^ low, 1 << i, 0))
        vecs.append((1 << i, 0, 1))
        vecs.append((low, 0, 1))
    return vecs


@cocotb.test()
async def directed_corners(dut) -> None:
    """Carry chains of every length, all-ones, sign-bit overflow, cin effects."""
    for idx, (a, b, cin) in enumerate(_directed()):
        await _check(dut, idx, a, b, cin)


@cocotb.test()
async def random_vectors(dut) -> None:
    """Seeded random operands, with a share of long-carry-chain cases."""
    rng = random.Random(SEED)
    for idx in range(RANDOM_VECTORS):
        a = rng.getrandbits(32)
        if rng.random() < 0.25:
            b = (MASK - a + rng.choice((0, 1))) & MASK  # sum near 2^32: long carry chains
        else:
            b = rng.getrandbits(32)
        await _check(dut, idx, a, b, rng.getrandbits(1))
