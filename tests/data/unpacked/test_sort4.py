"""cocotb test of sort4 on its flat ports: d[i] (i from the array's left bound) is bits [8i+7:8i]."""

import random

import cocotb
from cocotb.triggers import Timer


def pack(elements):
    return sum(e << (8 * i) for i, e in enumerate(elements))


def unpack(value, n=4):
    return [(value >> (8 * i)) & 0xFF for i in range(n)]


@cocotb.test()
async def sorts_and_picks(dut):
    rng = random.Random(5)
    for _ in range(100):
        d = [rng.randrange(256) for _ in range(4)]
        sel = rng.randrange(4)
        dut.d.value = pack(d)
        dut.sel.value = sel
        await Timer(1, unit="ns")
        assert unpack(int(dut.q.value)) == sorted(d), f"d={d}: q={unpack(int(dut.q.value))}"
        assert int(dut.pick.value) == d[sel], f"d={d} sel={sel}: pick={int(dut.pick.value)}"
