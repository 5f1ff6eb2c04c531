"""cocotb test of rot4 on its flat ports: d[i] (i from the array's left bound) is bits [8i+7:8i]."""

import random

import cocotb
from cocotb.triggers import Timer


def pack(elements):
    return sum(e << (8 * i) for i, e in enumerate(elements))


def unpack(value, n=4):
    return [(value >> (8 * i)) & 0xFF for i in range(n)]


@cocotb.test()
async def rotates_and_picks(dut):
    rng = random.Random(7)
    for _ in range(100):
        d = [rng.randrange(256) for _ in range(4)]
        sel = rng.randrange(4)
        dut.d.value = pack(d)
        dut.sel.value = sel
        await Timer(1, unit="ns")
        want = [(d[(i + sel) % 4] + i) & 0xFF for i in range(4)]
        assert unpack(int(dut.q.value)) == want, f"d={d} sel={sel}: q={unpack(int(dut.q.value))}"
        assert int(dut.pick.value) == d[sel], f"d={d} sel={sel}: pick={int(dut.pick.value)}"
