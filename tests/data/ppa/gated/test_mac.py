"""Stimulus for the gated/ungated power test: en is high one cycle in ten, data changes every cycle."""

from __future__ import annotations

import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge


@cocotb.test()
async def sparse_enable(dut) -> None:
    """After every enabled edge, p must equal the product of the captured operands."""
    rng = random.Random(7)
    Clock(dut.clk, 10, unit="ns").start(start_high=False)
    dut.en.value = 1
    dut.a.value = 0
    dut.b.value = 0
    for cycle in range(300):
        await FallingEdge(dut.clk)
        en = int(cycle % 10 == 0)
        a, b = rng.getrandbits(8), rng.getrandbits(8)
        dut.en.value, dut.a.value, dut.b.value = en, a, b
        await RisingEdge(dut.clk)
        await ReadOnly()
        if en:
            got = dut.p.value.to_unsigned()
            assert got == a * b, f"cycle {cycle}: p={got} expected {a * b}"
