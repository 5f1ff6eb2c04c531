"""cocotb test of the counter: reset, counting against a model, then wrap-around."""

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, RisingEdge, Timer


async def reset(dut):
    dut.en.value = 0
    dut.rst_n.value = 0
    await Timer(12, unit="ns")
    dut.rst_n.value = 1
    await FallingEdge(dut.clk)


@cocotb.test()
async def counts_and_wraps(dut):
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    await reset(dut)
    assert dut.count.value.is_resolvable and int(dut.count.value) == 0, f"count after reset is {dut.count.value}"
    expected = 0
    dut.en.value = 1
    for cycle in range(40):
        await FallingEdge(dut.clk)
        expected = (expected + 1) % 256
        got = dut.count.value
        assert got.is_resolvable and int(got) == expected, f"cycle {cycle}: count={got}, expected {expected}"
    dut.en.value = 0
    await ClockCycles(dut.clk, 3)
    await FallingEdge(dut.clk)
    assert int(dut.count.value) == expected, "count moved while en=0"
    dut.en.value = 1
    # no simulated-time bound on purpose: a counter that never wraps hangs here until the wall-clock timeout
    await RisingEdge(dut.wrap)
    await FallingEdge(dut.clk)
    assert int(dut.count.value) == 255
    await FallingEdge(dut.clk)
    assert int(dut.count.value) == 0 and int(dut.wrap.value) == 0, "no wrap to 0"
