"""cocotb test of the ALU: a few directed vectors for ops 0-2 (op 3 deliberately untested here)."""

import cocotb
from cocotb.triggers import Timer

CASES = [(0, 3, 4, 7), (0, 200, 100, 44), (1, 10, 3, 7), (1, 0, 1, 255), (2, 0xF0, 0x3C, 0x30)]


@cocotb.test()
async def directed(dut):
    for op, a, b, want in CASES:
        dut.op.value, dut.a.value, dut.b.value = op, a, b
        await Timer(1, unit="ns")
        got = dut.y.value
        assert got.is_resolvable and int(got) == want, f"op={op} a={a} b={b}: y={got}, expected {want}"
