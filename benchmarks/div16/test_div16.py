"""cocotb test for div16: a cycle-accurate Python model checked after every rising edge.

The model is architecture-free: it computes the result on accept and releases it 16 edges later.
Inputs change on the falling edge; outputs are compared in ReadOnly after each rising edge.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge

SEED = 1608
RANDOM_CYCLES = 700
LATENCY = 16


def divide(n: int, d: int) -> tuple[int, int]:
    """Quotient and remainder per the spec, including divide by zero."""
    if d == 0:
        return 0xFFFF, n & 0xFF
    return n // d, n % d


@dataclass
class Model:
    busy: int = 0
    done: int = 0
    quotient: int = 0
    remainder: int = 0
    left: int = 0
    pending: tuple[int, int] = (0, 0)

    def edge(self, rst_n: int, start: int, n: int, d: int) -> None:
        if not rst_n:
            self.busy = self.done = self.quotient = self.remainder = self.left = 0
            return
        self.done = 0
        if self.busy:
            self.left -= 1
            if self.left == 0:
                self.busy, self.done = 0, 1
                self.quotient, self.remainder = self.pending
        elif start:
            self.busy, self.left, self.pending = 1, LATENCY, divide(n, d)


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
        self.ops: list[str] = []  # accepted divisions, for failure messages

    async def start(self) -> None:
        for sig in (self.dut.rst_n, self.dut.start, self.dut.dividend, self.dut.divisor):
            sig.value = 0
        Clock(self.dut.clk, 10, unit="ns").start(start_high=False)
        for _ in range(3):
            await self.step(0, 0, 0, 0)

    async def step(self, rst_n: int, start: int, n: int, d: int) -> None:
        """Drive one cycle's inputs, clock it, compare every output with the model."""
        await FallingEdge(self.dut.clk)
        self.dut.rst_n.value = rst_n
        self.dut.start.value = start
        self.dut.dividend.value = n
        self.dut.divisor.value = d
        was_busy = self.model.busy
        await RisingEdge(self.dut.clk)
        self.model.edge(rst_n, start, n, d)
        await ReadOnly()
        self.cycle += 1
        if rst_n and start and not was_busy:
            self.ops.append(f"{n}/{d} accepted at cycle {self.cycle}")
        m = self.model
        ctx = (f"cycle {self.cycle} (rst_n={rst_n} start={start} dividend={n} divisor={d}; "
               f"last accepted: {self.ops[-1] if self.ops else 'none'})")
        for name, exp in (("busy", m.busy), ("done", m.done), ("quotient", m.quotient), ("remainder", m.remainder)):
            got = _read(getattr(self.dut, name), name, ctx)
            assert got == exp, f"{ctx}: {name} expected {exp} got {got}"

    async def run_op(self, n: int, d: int, idle_after: int = 1) -> None:
        """Start one division, keep the inputs changing while busy, then idle."""
        await self.step(1, 1, n, d)
        for i in range(LATENCY):
            await self.step(1, int(i % 3 == 0), (n * 7 + i) & 0xFFFF, (d + 3 * i) & 0xFF)  # ignored while busy
        for _ in range(idle_after):
            await self.step(1, 0, 0, 0)


@cocotb.test()
async def directed_corners(dut) -> None:
    """Divide by zero, by one, by 255, small dividends, held start, start during done, reset mid-run."""
    tb = Bench(dut)
    await tb.start()
    for n, d in ((100, 7), (0xFFFF, 255), (0xFFFF, 1), (0, 5), (5, 200), (255, 255), (256, 255),
                 (0xFFFF, 0), (0x1234, 0), (0, 0), (0x8000, 128), (0xFFFE, 0xFF), (1, 1), (0x00FF, 16)):
        await tb.run_op(n, d)
    # start held high: a new division every 17 cycles, accepted in the done cycle
    for i in range(3 * (LATENCY + 1) + 2):
        await tb.step(1, 1, 1000 + 77 * i, 3 + i)
    await tb.step(1, 0, 0, 0)
    # reset in the middle of a division: its result must never appear
    await tb.step(1, 1, 40000, 9)
    for _ in range(5):
        await tb.step(1, 0, 0, 0)
    await tb.step(0, 1, 0, 0)
    await tb.step(0, 1, 1, 1)
    for _ in range(LATENCY + 2):
        await tb.step(1, 0, 0, 0)
    await tb.run_op(54321, 123, idle_after=3)


@cocotb.test()
async def random_stream(dut) -> None:
    """Seeded random start requests and operands (some divisor 0 / 1 / 255), rare resets."""
    tb = Bench(dut)
    await tb.start()
    rng = random.Random(SEED)
    for _ in range(RANDOM_CYCLES):
        rst_n = 0 if rng.random() < 0.005 else 1
        d = rng.choice((0, 1, 255)) if rng.random() < 0.15 else rng.getrandbits(8)
        n = rng.choice((0, 0xFFFF)) if rng.random() < 0.1 else rng.getrandbits(16)
        await tb.step(rst_n, int(rng.random() < 0.3), n, d)
