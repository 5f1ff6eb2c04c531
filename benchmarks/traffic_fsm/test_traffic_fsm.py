"""cocotb test for traffic_fsm: a cycle-accurate Python model of the light sequence and the latched
pedestrian request, compared after every rising edge (inputs change on the falling edge)."""

from __future__ import annotations

import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge, Timer

SEED = 0x7AFF1C
RANDOM_CYCLES = 400
DURATION = {"GREEN": 8, "YELLOW": 2, "RED": 4, "WALK": 6}
LIGHTS = {  # green, yellow, red, walk
    "GREEN": (1, 0, 0, 0), "YELLOW": (0, 1, 0, 0), "RED": (0, 0, 1, 0), "WALK": (0, 0, 1, 1),
}
OUTPUTS = ("green", "yellow", "red", "walk", "ped_wait")


class Model:
    """State, cycles spent in it, and the latched request, exactly as the spec defines them."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.state = "GREEN"
        self.t = 0
        self.ped_wait = 0

    def edge(self, rst_n: int, ped_req: int) -> None:
        if not rst_n:
            self.reset()
            return
        pending = self.ped_wait | ped_req
        nxt = self.state
        if self.t == DURATION[self.state] - 1:
            nxt = {"GREEN": "YELLOW", "YELLOW": "WALK" if pending else "RED"}.get(self.state, "GREEN")
            self.t = 0
        else:
            self.t += 1
        self.ped_wait = 0 if nxt == "WALK" else pending
        self.state = nxt

    def outputs(self) -> dict[str, int]:
        return dict(zip(OUTPUTS, (*LIGHTS[self.state], self.ped_wait)))


def _read(sig, name: str, ctx: str) -> int:
    val = sig.value
    assert val.is_resolvable, f"{ctx}: {name} is not resolvable (X/Z): {val}"
    return val.to_unsigned() if hasattr(val, "to_unsigned") else int(val)


class Bench:
    def __init__(self, dut) -> None:
        self.dut = dut
        self.model = Model()
        self.cycle = 0
        self.history: list[int] = []

    def check(self, ctx: str) -> None:
        m = self.model
        for name, want in m.outputs().items():
            got = _read(getattr(self.dut, name), name, ctx)
            assert got == want, f"{ctx}: {name} expected {want} got {got} (model state {m.state}, cycle {m.t + 1} of {DURATION[m.state]})"

    async def start(self) -> None:
        self.dut.rst_n.value = 0
        self.dut.ped_req.value = 0
        Clock(self.dut.clk, 10, unit="ns").start(start_high=False)
        await Timer(1, unit="ns")
        self.check("during reset, before any clock edge")
        for _ in range(2):
            await self.step(0, 0)

    async def step(self, rst_n: int, ped_req: int) -> None:
        """Drive one cycle's inputs, let the rising edge happen, compare every output."""
        await FallingEdge(self.dut.clk)
        self.dut.rst_n.value = rst_n
        self.dut.ped_req.value = ped_req
        await RisingEdge(self.dut.clk)
        self.model.edge(rst_n, ped_req)
        await ReadOnly()
        self.cycle += 1
        self.history = (self.history + [ped_req])[-16:]
        self.check(f"cycle {self.cycle} (rst_n={rst_n} ped_req={ped_req}; ped_req over the last cycles {self.history})")

    async def run(self, cycles: int, ped_req: int = 0) -> None:
        for _ in range(cycles):
            await self.step(1, ped_req)

    async def until(self, state: str, t: int) -> None:
        """Idle (no request) until the model is in ``state`` at its cycle ``t`` (0-based)."""
        for _ in range(64):
            if self.model.state == state and self.model.t == t:
                return
            await self.step(1, 0)
        raise AssertionError(f"model never reached {state}/{t}")

    async def async_reset(self) -> None:
        """Pull rst_n low between edges: outputs must return to GREEN without a clock edge."""
        await FallingEdge(self.dut.clk)
        await Timer(2, unit="ns")
        self.dut.rst_n.value = 0
        self.model.reset()
        await Timer(1, unit="ns")
        self.check(f"cycle {self.cycle}: 1 ns after an asynchronous reset between edges")


@cocotb.test()
async def directed_corners(dut) -> None:
    """Full cycles without requests; pulses in green, yellow's last cycle, red, walk; held request; resets."""
    tb = Bench(dut)
    await tb.start()
    await tb.run(30)  # two full cycles, no request: never WALK
    await tb.until("GREEN", 0)
    await tb.step(1, 1)  # 1-cycle pulse in the first green cycle
    await tb.run(24)  # served after yellow
    await tb.until("YELLOW", 1)
    await tb.step(1, 1)  # request exactly at the edge that ends yellow: straight to WALK
    await tb.run(3)
    await tb.step(1, 1)  # request during WALK: ignored
    await tb.run(1)
    await tb.until("WALK", 5)
    await tb.step(1, 1)  # request at the last WALK edge: latched
    await tb.run(16)
    await tb.until("RED", 2)
    await tb.step(1, 1)  # request during RED: latched until the next yellow ends
    await tb.run(16)
    await tb.run(40, ped_req=1)  # held request: served every round
    await tb.until("WALK", 2)
    await tb.async_reset()  # reset in the middle of WALK
    await tb.step(0, 1)
    await tb.step(1, 0)
    await tb.run(10, ped_req=0)
    await tb.step(1, 1)
    await tb.async_reset()  # reset drops a pending request
    await tb.run(20)


@cocotb.test()
async def random_requests(dut) -> None:
    """Seeded random button presses (pulses and holds), rare resets."""
    tb = Bench(dut)
    await tb.start()
    rng = random.Random(SEED)
    held = 0
    for _ in range(RANDOM_CYCLES):
        if held:
            held -= 1
        elif rng.random() < 0.05:
            held = rng.randint(1, 12)
        req = int(held > 0 or rng.random() < 0.04)
        await tb.step(0 if rng.random() < 0.01 else 1, req)
