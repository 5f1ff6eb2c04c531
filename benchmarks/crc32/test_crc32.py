"""cocotb test for crc32: a Python model (checked against binascii.crc32) compared after every edge.

Inputs change on the falling edge; `crc` is compared in ReadOnly after each rising edge.
"""

from __future__ import annotations

import binascii
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge, Timer

SEED = 0xC3C32
RANDOM_CYCLES = 400
POLY = 0xEDB88320


def update(reg: int, byte: int) -> int:
    """One byte through the reflected CRC-32 register."""
    reg ^= byte
    for _ in range(8):
        reg = (reg >> 1) ^ POLY if reg & 1 else reg >> 1
    return reg


class Model:
    """CRC register R and the bytes of the current message (to cross-check with binascii)."""

    def __init__(self) -> None:
        self.reg = 0xFFFFFFFF
        self.msg = bytearray()

    def reset(self) -> None:
        self.reg = 0xFFFFFFFF
        self.msg = bytearray()

    def edge(self, rst_n: int, init: int, valid: int, data: int) -> None:
        if not rst_n:
            self.reset()
            return
        if init:
            self.reset()
        if valid:
            self.reg = update(self.reg, data)
            self.msg.append(data)

    @property
    def crc(self) -> int:
        value = self.reg ^ 0xFFFFFFFF
        assert value == binascii.crc32(bytes(self.msg)), "test model disagrees with binascii.crc32"
        return value


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
        got = _read(self.dut.crc, "crc", ctx)
        want = self.model.crc
        assert got == want, (f"{ctx}: crc expected 0x{want:08x} got 0x{got:08x} "
                             f"(message since init: {bytes(self.model.msg[-12:]).hex()}, {len(self.model.msg)} bytes)")

    async def start(self) -> None:
        self.dut.rst_n.value = 0
        self.dut.init.value = 0
        self.dut.valid.value = 0
        self.dut.data.value = 0
        Clock(self.dut.clk, 10, unit="ns").start(start_high=False)
        await Timer(1, unit="ns")
        self.check("during reset, before any clock edge")
        for _ in range(2):
            await self.step(0, 0, 0, 0)

    async def step(self, rst_n: int, init: int, valid: int, data: int) -> None:
        """Drive one cycle's inputs, let the rising edge happen, compare crc."""
        await FallingEdge(self.dut.clk)
        self.dut.rst_n.value = rst_n
        self.dut.init.value = init
        self.dut.valid.value = valid
        self.dut.data.value = data
        await RisingEdge(self.dut.clk)
        self.model.edge(rst_n, init, valid, data)
        await ReadOnly()
        self.cycle += 1
        inputs = f"rst_n={rst_n} init={init} valid={valid} data=0x{data:02x}"
        self.history = (self.history + [inputs])[-3:]
        self.check(f"cycle {self.cycle} ({inputs}; last inputs {self.history})")

    async def message(self, payload: bytes, first_init: bool = True) -> None:
        for i, b in enumerate(payload):
            await self.step(1, int(first_init and i == 0), 1, b)

    async def async_reset(self) -> None:
        """Pull rst_n low between edges: crc must clear without a clock edge."""
        await FallingEdge(self.dut.clk)
        await Timer(2, unit="ns")
        self.dut.rst_n.value = 0
        self.model.reset()
        await Timer(1, unit="ns")
        self.check(f"cycle {self.cycle}: 1 ns after an asynchronous reset between edges")


@cocotb.test()
async def directed_corners(dut) -> None:
    """Check value, single bytes, init with/without valid, gaps, ignored data, async reset."""
    tb = Bench(dut)
    await tb.start()
    await tb.step(1, 0, 0, 0xAB)  # idle after reset: crc of the empty message
    await tb.message(b"123456789", first_init=False)
    assert _read(dut.crc, "crc", "check value") == 0xCBF43926, "CRC of '123456789' must be 0xCBF43926"
    await tb.step(1, 0, 0, 0x55)  # hold, data ignored
    await tb.step(1, 1, 0, 0x55)  # init alone: empty message
    await tb.step(1, 1, 0, 0x00)  # init again
    await tb.step(1, 0, 1, 0x00)  # single byte 0x00
    await tb.step(1, 1, 1, 0xFF)  # init + valid: 0xFF is the first byte of the new message
    await tb.step(1, 0, 0, 0x12)
    for b in b"\x00\xff\x80\x01":  # message with gaps between bytes
        await tb.step(1, 0, 1, b)
        await tb.step(1, 0, 0, b ^ 0xFF)
    await tb.message(bytes(range(0, 256, 7)))  # long message, starts with init+valid
    await tb.message(b"\xff" * 6)
    await tb.async_reset()
    await tb.step(0, 1, 1, 0x31)  # inputs ignored during reset
    await tb.step(1, 0, 1, 0x31)
    await tb.message(b"hyperheurist", first_init=False)


@cocotb.test()
async def random_stream(dut) -> None:
    """Seeded random bytes, 70% valid, occasional init (also together with valid), rare resets."""
    tb = Bench(dut)
    await tb.start()
    rng = random.Random(SEED)
    for _ in range(RANDOM_CYCLES):
        rst_n = 0 if rng.random() < 0.01 else 1
        init = int(rng.random() < 0.06)
        data = rng.choice((0x00, 0xFF)) if rng.random() < 0.15 else rng.getrandbits(8)
        await tb.step(rst_n, init, int(rng.random() < 0.7), data)
