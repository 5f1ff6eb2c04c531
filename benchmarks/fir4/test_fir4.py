"""cocotb test for fir4: a cycle-accurate Python model of y[n] = 3x[n] + 7x[n-1] + 7x[n-2] + 3x[n-3]
with a valid-gated delay line, compared after every rising edge (inputs change on the falling edge)."""

from __future__ import annotations

import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge, Timer

SEED = 0xF14
RANDOM_CYCLES = 400
COEFFS = (3, 7, 7, 3)
Y_BITS = 13


class Model:
    """Delay line (newest first), the output register and out_valid, as the spec defines them."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.line = [0, 0, 0]
        self.y = 0
        self.out_valid = 0

    def edge(self, rst_n: int, in_valid: int, x: int) -> None:
        if not rst_n:
            self.reset()
            return
        self.out_valid = in_valid
        if in_valid:
            taps = [x, *self.line]
            self.y = sum(c * s for c, s in zip(COEFFS, taps))
            self.line = taps[:3]


def _signed(value: int, bits: int) -> int:
    return value - (1 << bits) if value >> (bits - 1) else value


def _read(sig, name: str, ctx: str) -> int:
    val = sig.value
    assert val.is_resolvable, f"{ctx}: {name} is not resolvable (X/Z): {val}"
    return val.to_unsigned() if hasattr(val, "to_unsigned") else int(val)


class Bench:
    def __init__(self, dut) -> None:
        self.dut = dut
        self.model = Model()
        self.cycle = 0
        self.history: list[str] = []

    def check(self, ctx: str) -> None:
        m = self.model
        got_v = _read(self.dut.out_valid, "out_valid", ctx)
        got_y = _signed(_read(self.dut.y, "y", ctx), Y_BITS)
        assert got_v == m.out_valid, f"{ctx}: out_valid expected {m.out_valid} got {got_v}"
        assert got_y == m.y, f"{ctx}: y expected {m.y} got {got_y} (delay line after the edge {m.line})"

    async def start(self) -> None:
        self.dut.rst_n.value = 0
        self.dut.in_valid.value = 0
        self.dut.x.value = 0
        Clock(self.dut.clk, 10, unit="ns").start(start_high=False)
        await Timer(1, unit="ns")
        self.check("during reset, before any clock edge")
        for _ in range(2):
            await self.step(0, 0, 0)

    async def step(self, rst_n: int, in_valid: int, x: int) -> None:
        """Drive one cycle's inputs (x as a signed value), let the rising edge happen, compare."""
        await FallingEdge(self.dut.clk)
        self.dut.rst_n.value = rst_n
        self.dut.in_valid.value = in_valid
        self.dut.x.value = x & 0xFF
        await RisingEdge(self.dut.clk)
        self.model.edge(rst_n, in_valid, x)
        await ReadOnly()
        self.cycle += 1
        inputs = f"rst_n={rst_n} in_valid={in_valid} x={x}"
        self.history = (self.history + [inputs])[-4:]
        self.check(f"cycle {self.cycle} ({inputs}; last inputs {self.history})")

    async def stream(self, samples: list[int]) -> None:
        for s in samples:
            await self.step(1, 1, s)

    async def async_reset(self) -> None:
        """Pull rst_n low between edges: outputs must clear without a clock edge."""
        await FallingEdge(self.dut.clk)
        await Timer(2, unit="ns")
        self.dut.rst_n.value = 0
        self.model.reset()
        await Timer(1, unit="ns")
        self.check(f"cycle {self.cycle}: 1 ns after an asynchronous reset between edges")


@cocotb.test()
async def directed_corners(dut) -> None:
    """Impulse response, extreme values, sign alternation, gaps in the stream, async reset."""
    tb = Bench(dut)
    await tb.start()
    await tb.stream([1, 0, 0, 0, 0])  # impulse: 3 7 7 3 0
    assert _signed(_read(dut.y, "y", "impulse"), Y_BITS) == 0
    await tb.stream([-128] * 4)  # most negative: -2560
    await tb.stream([127] * 4)  # most positive: 2540
    await tb.stream([-128, 127] * 4)
    await tb.stream([-1, -1, 1, 1])
    for s in (5, -7, 100):  # gaps: y and the delay line hold
        await tb.step(1, 0, 99)
        await tb.step(1, 0, -99)
        await tb.step(1, 1, s)
    await tb.step(1, 0, 0)
    await tb.async_reset()
    await tb.step(0, 1, 50)  # ignored during reset
    await tb.stream([-128, 0, 0, 0, 127])  # first output after reset: 3 * s
    await tb.step(1, 0, 0)


@cocotb.test()
async def random_stream(dut) -> None:
    """Seeded random samples, 75% valid, extremes mixed in, rare resets."""
    tb = Bench(dut)
    await tb.start()
    rng = random.Random(SEED)
    extremes = (-128, -127, -1, 0, 1, 126, 127)
    for _ in range(RANDOM_CYCLES):
        rst_n = 0 if rng.random() < 0.01 else 1
        x = rng.choice(extremes) if rng.random() < 0.25 else rng.randint(-128, 127)
        await tb.step(rst_n, int(rng.random() < 0.75), x)
