"""cocotb test for fifo8: a cycle-accurate Python model checked after every rising edge.

Inputs change on the falling edge; outputs are compared in ReadOnly after each rising edge.
"""

from __future__ import annotations

import random
from collections import deque

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge, Timer

SEED = 0xF1F08
RANDOM_CYCLES = 400
DEPTH = 8


class Model:
    """The FIFO as the spec defines it: flags from the occupancy before the edge."""

    def __init__(self) -> None:
        self.q: deque[int] = deque()
        self.dout = 0

    def reset(self) -> None:
        self.q.clear()
        self.dout = 0

    def edge(self, rst_n: int, wr_en: int, din: int, rd_en: int) -> None:
        if not rst_n:
            self.reset()
            return
        do_wr = wr_en and len(self.q) < DEPTH
        do_rd = rd_en and len(self.q) > 0
        if do_rd:
            self.dout = self.q.popleft()
        if do_wr:
            self.q.append(din)

    def outputs(self) -> dict[str, int]:
        n = len(self.q)
        return {"dout": self.dout, "full": int(n == DEPTH), "empty": int(n == 0), "count": n}


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

    def check(self, ctx: str) -> None:
        for name, want in self.model.outputs().items():
            got = _read(getattr(self.dut, name), name, ctx)
            assert got == want, f"{ctx}: {name} expected {want} got {got} (model queue {list(self.model.q)})"

    async def start(self) -> None:
        self.dut.rst_n.value = 0
        self.dut.wr_en.value = 0
        self.dut.rd_en.value = 0
        self.dut.din.value = 0
        Clock(self.dut.clk, 10, unit="ns").start(start_high=False)
        await Timer(1, unit="ns")
        self.check("during reset, before any clock edge")
        for _ in range(2):
            await self.step(0, 0, 0, 0)

    async def step(self, rst_n: int, wr_en: int, din: int, rd_en: int) -> None:
        """Drive one cycle's inputs, let the rising edge happen, compare every output."""
        await FallingEdge(self.dut.clk)
        self.dut.rst_n.value = rst_n
        self.dut.wr_en.value = wr_en
        self.dut.din.value = din
        self.dut.rd_en.value = rd_en
        await RisingEdge(self.dut.clk)
        self.model.edge(rst_n, wr_en, din, rd_en)
        await ReadOnly()
        self.cycle += 1
        inputs = f"rst_n={rst_n} wr_en={wr_en} din=0x{din:02x} rd_en={rd_en}"
        self.history = (self.history + [inputs])[-3:]
        self.check(f"cycle {self.cycle} ({inputs}; last inputs {self.history})")

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
    """Read when empty, fill to full, write when full, simultaneous read/write at empty/full, async reset."""
    tb = Bench(dut)
    await tb.start()
    await tb.step(1, 0, 0, 1)  # read when empty: ignored, dout stays 0
    await tb.step(1, 1, 0xA5, 1)  # both when empty: only the write happens
    await tb.step(1, 0, 0, 1)  # read it back
    await tb.step(1, 0, 0, 1)  # empty again: dout holds 0xA5
    for i in range(DEPTH):
        await tb.step(1, 1, 0x10 + i, 0)  # fill
    await tb.step(1, 1, 0xEE, 0)  # write when full: dropped
    await tb.step(1, 1, 0xEF, 1)  # both when full: only the read happens
    await tb.step(1, 1, 0x55, 0)  # one slot free again: accepted
    for i in range(3):
        await tb.step(1, 1, 0x60 + i, 1)  # simultaneous read/write at full-1... count stays
    for _ in range(DEPTH + 2):
        await tb.step(1, 0, 0xFF, 1)  # drain past empty
    for i in range(5):
        await tb.step(1, 1, 0xC0 + i, i & 1)
    await tb.step(1, 0, 0, 0)  # idle: dout holds
    await tb.async_reset()
    await tb.step(0, 1, 0x99, 1)  # inputs ignored during reset
    await tb.step(1, 0, 0, 1)
    for d in (0x00, 0xFF, 0x80, 0x01):
        await tb.step(1, 1, d, 0)
    for _ in range(5):
        await tb.step(1, 0, 0, 1)


@cocotb.test()
async def random_traffic(dut) -> None:
    """Seeded random traffic in phases biased to fill, drain and mix; rare resets."""
    tb = Bench(dut)
    await tb.start()
    rng = random.Random(SEED)
    for i in range(RANDOM_CYCLES):
        phase = (i // 40) % 3  # fill-biased, drain-biased, balanced
        p_wr, p_rd = ((0.8, 0.3), (0.3, 0.8), (0.5, 0.5))[phase]
        rst_n = 0 if rng.random() < 0.01 else 1
        await tb.step(rst_n, int(rng.random() < p_wr), rng.getrandbits(8), int(rng.random() < p_rd))
