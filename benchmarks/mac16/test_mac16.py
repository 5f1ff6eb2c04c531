"""cocotb test for mac16: a cycle-accurate Python model checked after every rising edge.

Inputs change on the falling edge; acc is compared in ReadOnly after each rising edge.
"""

from __future__ import annotations

import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge

SEED = 16016
RANDOM_CYCLES = 400
MASK32 = (1 << 32) - 1
MIN16, MAX16 = -(1 << 15), (1 << 15) - 1


def _u16(x: int) -> int:
    return x & 0xFFFF


def _read(sig, name: str, ctx: str) -> int:
    val = sig.value
    assert val.is_resolvable, f"{ctx}: {name} is not resolvable (X/Z): {val}"
    # 1-bit ports read back as Logic (int() only); vectors as LogicArray
    return val.to_unsigned() if hasattr(val, "to_unsigned") else int(val)


class Bench:
    def __init__(self, dut) -> None:
        self.dut = dut
        self.acc = 0  # model accumulator, kept as an unsigned 32-bit pattern
        self.cycle = 0

    async def start(self) -> None:
        for sig in (self.dut.rst_n, self.dut.clr, self.dut.en, self.dut.a, self.dut.b):
            sig.value = 0
        Clock(self.dut.clk, 10, unit="ns").start(start_high=False)
        for _ in range(3):
            await self.step(0, 0, 0, 0, 0)

    def _model(self, rst_n: int, clr: int, en: int, a: int, b: int) -> None:
        if not rst_n or clr:
            self.acc = 0
        elif en:
            self.acc = (self.acc + a * b) & MASK32

    async def step(self, rst_n: int, clr: int, en: int, a: int, b: int) -> None:
        """Drive one cycle (a, b as Python signed ints), clock it, compare acc."""
        await FallingEdge(self.dut.clk)
        self.dut.rst_n.value = rst_n
        self.dut.clr.value = clr
        self.dut.en.value = en
        self.dut.a.value = _u16(a)
        self.dut.b.value = _u16(b)
        before = self.acc
        await RisingEdge(self.dut.clk)
        self._model(rst_n, clr, en, a, b)
        await ReadOnly()
        self.cycle += 1
        ctx = f"cycle {self.cycle} (rst_n={rst_n} clr={clr} en={en} a={a} b={b}, acc before=0x{before:08x})"
        got = _read(self.dut.acc, "acc", ctx)
        assert got == self.acc, f"{ctx}: acc expected 0x{self.acc:08x} got 0x{got:08x}"


@cocotb.test()
async def directed_corners(dut) -> None:
    """Extreme products, wrap-around, clr priority, hold, reset mid-run."""
    tb = Bench(dut)
    await tb.start()
    await tb.step(1, 0, 1, -1, 1)  # 0 -> -1
    await tb.step(1, 0, 1, -1, -1)  # back to 0
    for _ in range(5):
        await tb.step(1, 0, 1, MIN16, MIN16)  # +2^30 each: wraps through 0x8000_0000
    await tb.step(1, 0, 0, 123, 456)  # hold
    await tb.step(1, 1, 1, 1000, 1000)  # clr beats en
    await tb.step(1, 0, 1, MIN16, MAX16)
    await tb.step(1, 0, 1, MAX16, MAX16)
    await tb.step(1, 0, 1, MAX16, MIN16)
    await tb.step(1, 0, 1, -300, 7)
    await tb.step(1, 1, 0, 5, 5)  # clr alone
    for _ in range(3):
        await tb.step(1, 0, 1, MAX16, MAX16)  # positive overflow into negatives
    await tb.step(0, 0, 1, 9, 9)  # async reset
    await tb.step(0, 1, 1, 9, 9)
    await tb.step(1, 0, 0, 9, 9)
    await tb.step(1, 0, 1, 2, -3)


@cocotb.test()
async def random_stream(dut) -> None:
    """Seeded random operands (extremes mixed in), en 60%, clr 8%, rare resets."""
    tb = Bench(dut)
    await tb.start()
    rng = random.Random(SEED)
    extremes = (MIN16, MIN16 + 1, -1, 0, 1, MAX16)

    def operand() -> int:
        return rng.choice(extremes) if rng.random() < 0.2 else rng.randint(MIN16, MAX16)

    for _ in range(RANDOM_CYCLES):
        rst_n = 0 if rng.random() < 0.01 else 1
        await tb.step(rst_n, int(rng.random() < 0.08), int(rng.random() < 0.6), operand(), operand())
