"""cocotb test for mult8_pipe: a cycle-accurate Python model checked after every rising edge.

Inputs change on the falling edge; outputs are compared in ReadOnly after each rising edge.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge

SEED = 8082
RANDOM_CYCLES = 400


@dataclass
class Model:
    """Two-stage pipeline state, as the spec defines it."""

    v1: int = 0
    a1: int = 0
    b1: int = 0
    out_valid: int = 0
    p: int = 0

    def reset(self) -> None:
        self.v1 = self.out_valid = self.p = 0

    def edge(self, rst_n: int, in_valid: int, a: int, b: int) -> None:
        if not rst_n:
            self.reset()
            return
        if self.v1:
            self.p = (self.a1 * self.b1) & 0xFFFF
        self.out_valid = self.v1
        self.v1 = in_valid
        if in_valid:
            self.a1, self.b1 = a, b


def _read(sig, name: str, ctx: str) -> int:
    val = sig.value
    assert val.is_resolvable, f"{ctx}: {name} is not resolvable (X/Z): {val}"
    # 1-bit ports read back as Logic (int() only); vectors as LogicArray
    return val.to_unsigned() if hasattr(val, "to_unsigned") else int(val)


class Bench:
    def __init__(self, dut) -> None:
        self.dut = dut
        self.model = Model()
        self.cycle = 0
        self.history: list[str] = []

    async def start(self) -> None:
        self.dut.rst_n.value = 0
        self.dut.in_valid.value = 0
        self.dut.a.value = 0
        self.dut.b.value = 0
        Clock(self.dut.clk, 10, unit="ns").start(start_high=False)
        for _ in range(3):
            await self.step(0, 0, 0, 0)

    async def step(self, rst_n: int, in_valid: int, a: int, b: int) -> None:
        """Drive one cycle's inputs, let the rising edge happen, compare every output."""
        await FallingEdge(self.dut.clk)
        self.dut.rst_n.value = rst_n
        self.dut.in_valid.value = in_valid
        self.dut.a.value = a
        self.dut.b.value = b
        await RisingEdge(self.dut.clk)
        self.model.edge(rst_n, in_valid, a, b)
        await ReadOnly()
        self.cycle += 1
        inputs = f"rst_n={rst_n} in_valid={in_valid} a={a} b={b}"
        self.history = (self.history + [inputs])[-3:]
        ctx = f"cycle {self.cycle} ({inputs}; last inputs {self.history})"
        got_v = _read(self.dut.out_valid, "out_valid", ctx)
        got_p = _read(self.dut.p, "p", ctx)
        assert got_v == self.model.out_valid, f"{ctx}: out_valid expected {self.model.out_valid} got {got_v}"
        assert got_p == self.model.p, f"{ctx}: p expected {self.model.p} (0x{self.model.p:04x}) got {got_p} (0x{got_p:04x})"


@cocotb.test()
async def directed_corners(dut) -> None:
    """Reset values, extreme operands, back-to-back pairs, bubbles, hold, reset mid-burst."""
    tb = Bench(dut)
    await tb.start()
    for a, b in ((0, 0), (255, 255), (255, 1), (1, 255), (128, 2), (0, 200), (15, 17)):
        await tb.step(1, 1, a, b)  # back-to-back
    for _ in range(3):
        await tb.step(1, 0, 99, 99)  # bubbles: operands ignored, p holds
    await tb.step(1, 1, 200, 201)
    await tb.step(1, 0, 0, 0)
    await tb.step(1, 1, 7, 9)
    for _ in range(3):
        await tb.step(1, 0, 255, 255)
    # reset while two pairs are in flight: they must never appear
    await tb.step(1, 1, 250, 3)
    await tb.step(1, 1, 251, 4)
    await tb.step(0, 1, 252, 5)
    await tb.step(0, 1, 253, 6)
    for a, b in ((3, 3), (255, 255)):
        await tb.step(1, 1, a, b)
    for _ in range(3):
        await tb.step(1, 0, 0, 0)


@cocotb.test()
async def random_stream(dut) -> None:
    """Seeded random stream: 70% valid, extreme operands mixed in, rare resets."""
    tb = Bench(dut)
    await tb.start()
    rng = random.Random(SEED)
    extremes = (0, 1, 127, 128, 254, 255)
    for _ in range(RANDOM_CYCLES):
        rst_n = 0 if rng.random() < 0.02 else 1
        pick = lambda: rng.choice(extremes) if rng.random() < 0.2 else rng.getrandbits(8)  # noqa: E731
        await tb.step(rst_n, int(rng.random() < 0.7), pick(), pick())
