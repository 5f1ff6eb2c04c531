"""Verilog generators for alternative operator architectures (the operator library's modules).

Each generator writes one plain, loop-free Verilog module (``wire x = expr;`` only) that Icarus,
Verilator and Yosys 0.23 all read and that synthesis flattens into its parent:

- adders ``y[n:0] = a + b`` (or ``a + b + c``, a carry in) and subtractors ``y[n-1:0] = a - b`` (``a + ~b + 1``) over a
  parallel-prefix carry network: Kogge-Stone (log depth, most nodes), Sklansky (log depth, high
  fan-out), Brent-Kung (2 log depth, fewest nodes; Yosys's own ``$lcu`` is one) or a ripple chain;
- ``y = a < b``: the borrow of ``a - b`` only, reduced by a balanced tree (``g = ~a & b``,
  ``p = ~a | b``) or a chain from the least significant bit;
- ``y[r-1:0] = a * b`` (mod 2^r): partial products (AND array, or radix-4 Booth recoding of ``b``
  with the sign-extension constant folded in) compressed column by column with a Dadda tree of full
  and half adders, then one Kogge-Stone or ripple adder;
- ``y[r-1:0] = 1 << s``: a predecoded decoder (two half-width decoders ANDed).

The module's port names are fixed: ``a``, ``b`` (or ``s``) in, ``y`` out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

Network = list[list[tuple[int, int]]]  # prefix levels: (i, k) sets node i to (node i) o (node k), k < i


def kogge_stone(n: int) -> Network:
    levels, d = [], 1
    while d < n:
        levels.append([(i, i - d) for i in range(d, n)])
        d *= 2
    return levels


def sklansky(n: int) -> Network:
    levels, d = [], 1
    while d < n:
        levels.append([(i, (i // (2 * d)) * 2 * d + d - 1) for i in range(n) if i & d])
        d *= 2
    return levels


def brent_kung(n: int) -> Network:
    up, d = [], 1
    while d < n:
        up.append([(i, i - d) for i in range(2 * d - 1, n, 2 * d)])
        d *= 2
    down = []
    while d > 1:
        d //= 2
        down.append([(i, i - d // 2) for i in range(d + d // 2 - 1, n, d)] if d > 1 else [])
    return [lv for lv in up + down if lv]


def ripple(n: int) -> Network:
    return [[(i, i - 1)] for i in range(1, n)]


NETWORKS: dict[str, Callable[[int], Network]] = {"ks": kogge_stone, "sk": sklansky, "bk": brent_kung, "rc": ripple}


class Emitter:
    """Collects ``wire`` declarations with fresh names."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.count = 0

    def wire(self, expr: str, prefix: str = "w") -> str:
        name = f"{prefix}{self.count}"
        self.count += 1
        self.lines.append(f"  wire {name} = {expr};")
        return name


def prefix_sum(e: Emitter, x: list[str], y: list[str], network: str, cin: str = "1'b0") -> tuple[list[str], str]:
    """Sum bits and carry out of ``x + y + cin`` (bit expressions, LSB first) over a prefix network."""
    n = len(x)
    p = [e.wire(f"{xi} ^ {yi}", "p") for xi, yi in zip(x, y, strict=True)]
    g = [e.wire(f"{xi} & {yi}", "g") for xi, yi in zip(x, y, strict=True)]
    if cin != "1'b0":
        g[0] = e.wire(f"{g[0]} | ({p[0]} & {cin})", "g")
    gg, pp = list(g), list(p)
    for level in NETWORKS[network](n):
        new_g, new_p = list(gg), list(pp)
        for i, k in level:
            new_g[i] = e.wire(f"{gg[i]} | ({pp[i]} & {gg[k]})", "g")
            new_p[i] = e.wire(f"{pp[i]} & {pp[k]}", "q")
        gg, pp = new_g, new_p
    carries = [cin, *gg[:-1]]
    return [f"{p[i]} ^ {carries[i]}" for i in range(n)], gg[-1]


def carry_select(e: Emitter, x: list[str], y: list[str], cin: str) -> tuple[list[str], str]:
    """``x + y + cin`` in blocks of about sqrt(n) bits, each summed for both carries in (ripple) and
    selected by the carry out of the blocks below."""
    n = len(x)
    size = max(2, round(n ** 0.5))
    sums, carry = [], cin
    for lo in range(0, n, size):
        xb, yb = x[lo:lo + size], y[lo:lo + size]
        if lo == 0:
            s, carry = prefix_sum(e, xb, yb, "rc", cin)
            sums += s
            continue
        s0, c0 = prefix_sum(e, xb, yb, "rc", "1'b0")
        s1, c1 = prefix_sum(e, xb, yb, "rc", "1'b1")
        sums += [e.wire(f"{carry} ? ({b1}) : ({b0})", "m") for b0, b1 in zip(s0, s1, strict=True)]
        carry = e.wire(f"{c0} | ({carry} & {c1})", "k")
    return sums, carry


def add_bits(e: Emitter, x: list[str], y: list[str], arch: str, cin: str = "1'b0") -> tuple[list[str], str]:
    """Sum bits and carry out of ``x + y + cin`` with adder architecture ``arch`` (a network or ``cs``)."""
    return carry_select(e, x, y, cin) if arch == "cs" else prefix_sum(e, x, y, arch, cin)


def _module(name: str, ports: str, e: Emitter, outputs: list[str]) -> str:
    body = "\n".join(e.lines)
    assign = "  assign y = {" + ", ".join(reversed(outputs)) + "};"
    return f"module {name}({ports});\n{body}\n{assign}\nendmodule\n"


def _bits(port: str, width: int, n: int) -> list[str]:
    """Bits 0..n-1 of a ``width``-bit port, zero-extended."""
    return [f"{port}[{i}]" if i < width else "1'b0" for i in range(n)]


def _ports(wa: int, wb: int, r: int, carry_in: bool = False) -> str:
    return f"input [{wa - 1}:0] a, input [{wb - 1}:0] b, {'input c, ' if carry_in else ''}output [{r - 1}:0] y"


def adder(name: str, wa: int, wb: int, r: int, arch: str, carry_in: bool = False) -> str:
    """y = a + b (+ c) (mod 2^r): an adder as wide as the wider operand, or as the result when narrower."""
    e = Emitter()
    n = min(r, max(wa, wb))
    s, c = add_bits(e, _bits("a", wa, n), _bits("b", wb, n), arch, "c" if carry_in else "1'b0")
    return _module(name, _ports(wa, wb, r, carry_in), e, ([*s, c] + ["1'b0"] * r)[:r])


def subtractor(name: str, wa: int, wb: int, r: int, arch: str) -> str:
    """y = a - b (mod 2^r) = a + ~b + 1 on r bits."""
    e = Emitter()
    s, _ = add_bits(e, _bits("a", wa, r), [f"~{x}" for x in _bits("b", wb, r)], arch, "1'b1")
    return _module(name, _ports(wa, wb, r), e, s)


def less_than(name: str, wa: int, wb: int, form: str) -> str:
    """y = a < b, the borrow of a - b."""
    n = max(wa, wb)
    a, b = _bits("a", wa, n), _bits("b", wb, n)
    e = Emitter()
    nodes = [(e.wire(f"~{a[i]} & {b[i]}", "g"), e.wire(f"~{a[i]} | {b[i]}", "p")) for i in range(n)]

    def combine(hi: tuple[str, str], lo: tuple[str, str], last: bool) -> tuple[str, str]:
        g = e.wire(f"{hi[0]} | ({hi[1]} & {lo[0]})", "g")
        return g, ("" if last else e.wire(f"{hi[1]} & {lo[1]}", "p"))

    if form == "chain":
        acc = nodes[0]
        for i in range(1, n):
            acc = (e.wire(f"{nodes[i][0]} | ({nodes[i][1]} & {acc[0]})", "g"), "")
    else:
        level = nodes
        while len(level) > 1:
            nxt = [combine(level[i + 1], level[i], len(level) == 2) for i in range(0, len(level) - 1, 2)]
            level = nxt + ([level[-1]] if len(level) % 2 else [])
        acc = level[0]
    return _module(name, _ports(wa, wb, 1), e, [acc[0]])


def _and_array(na: int, nb: int, r: int) -> list[list[str]]:
    cols: list[list[str]] = [[] for _ in range(r)]
    for j in range(nb):
        for i in range(na):
            if i + j < r:
                cols[i + j].append(f"(a[{i}] & b[{j}])")
    return cols


def _booth4(e: Emitter, na: int, nb: int, r: int) -> list[list[str]]:
    """Radix-4 Booth rows of a * b (b recoded, zero-extended so its digits stay non-negative overall).
    Row j is d_j * a * 4^j, d_j in {-2..2}: (m ^ neg) + neg with m = a or 2a (na+1 bits), sign = neg;
    -neg * 2^(na+1) = ~neg * 2^(na+1) - 2^(na+1), and the sum of the -2^(na+1+2j) goes in as a constant."""
    cols: list[list[str]] = [[] for _ in range(r)]

    def put(c: int, bit: str) -> None:
        if c < r:
            cols[c].append(bit)

    def bbit(k: int) -> str:
        return f"b[{k}]" if 0 <= k < nb else "1'b0"

    const = 0
    for j in range(nb // 2 + 1):
        hi, mid, lo = bbit(2 * j + 1), bbit(2 * j), bbit(2 * j - 1)
        if 2 * j >= r:
            break
        one = e.wire(f"{mid} ^ {lo}", "one")
        two = e.wire(f"({hi} & ~{mid} & ~{lo}) | (~{hi} & {mid} & {lo})", "two")
        neg = e.wire(hi, "neg")
        for i in range(na + 1):
            ai = f"a[{i}]" if i < na else "1'b0"
            am = f"a[{i - 1}]" if 0 < i <= na else "1'b0"
            put(2 * j + i, e.wire(f"((({one} & {ai}) | ({two} & {am}))) ^ {neg}", "pp"))
        put(2 * j, neg)
        put(2 * j + na + 1, f"~{neg}")
        const -= 1 << (2 * j + na + 1)
    const %= 1 << r
    for c in range(r):
        if const >> c & 1:
            cols[c].append("1'b1")
    return cols


def _dadda(e: Emitter, cols: list[list[str]]) -> list[list[str]]:
    """Reduce every column to at most two bits (carries out of the top column are dropped: mod 2^r)."""
    r = len(cols)
    heights = [2]
    while heights[-1] < max((len(c) for c in cols), default=0):
        heights.append(heights[-1] * 3 // 2)
    for target in reversed(heights[:-1]):
        for c in range(r):
            while len(cols[c]) > target:
                x, y = cols[c].pop(0), cols[c].pop(0)
                if len(cols[c]) + 2 > target + 1 and cols[c]:
                    z = cols[c].pop(0)
                    t = e.wire(f"{x} ^ {y}", "t")
                    cols[c].append(e.wire(f"{t} ^ {z}", "s"))
                    carry = e.wire(f"({x} & {y}) | ({z} & {t})", "c")
                else:
                    cols[c].append(e.wire(f"{x} ^ {y}", "s"))
                    carry = e.wire(f"{x} & {y}", "c")
                if c + 1 < r:
                    cols[c + 1].append(carry)
    return cols


def multiplier(name: str, wa: int, wb: int, r: int, pp: str, final: str) -> str:
    """y = a * b mod 2^r (only the low r bits of each operand matter)."""
    e = Emitter()
    na, nb = min(wa, r), min(wb, r)
    cols = _dadda(e, _booth4(e, na, nb, r) if pp == "booth" else _and_array(na, nb, r))
    x = [c[0] if c else "1'b0" for c in cols]
    y = [c[1] if len(c) > 1 else "1'b0" for c in cols]
    s, _ = prefix_sum(e, x, y, final)
    return _module(name, _ports(wa, wb, r), e, s)


def decoder(name: str, n: int, r: int) -> str:
    """``module name(input [n-1:0] s, output [r-1:0] y)``: y = 1 << s, from two predecoded halves."""
    e = Emitter()
    k = (n + 1) // 2
    lo = [e.wire(f"s[{k - 1}:0] == {k}'d{j}", "lo") for j in range(min(1 << k, r))]
    hi = [e.wire(f"s[{n - 1}:{k}] == {n - k}'d{m}", "hi") for m in range(min((r - 1 >> k) + 1, 1 << (n - k)))] \
        if n > k else []
    outs = [("1'b0" if i >> n else (f"{hi[i >> k]} & {lo[i & ((1 << k) - 1)]}" if hi else lo[i])) for i in range(r)]
    return _module(name, f"input [{n - 1}:0] s, output [{r - 1}:0] y", e, outs)


Make = Callable[[str, int, int, int], str]  # (module name, width of a (or s), width of b, width of y)


@dataclass(frozen=True)
class Arch:
    """One alternative architecture of one operator; ``make`` writes its module."""

    name: str
    op: str  # add, addc (with a 1-bit carry in ``c``), sub, lt, mul, dec
    make: Make


def _add(arch: str) -> Arch:
    return Arch(arch, "add", lambda m, wa, wb, r: adder(m, wa, wb, r, arch))


def _addc(arch: str) -> Arch:
    return Arch(arch, "addc", lambda m, wa, wb, r: adder(m, wa, wb, r, arch, carry_in=True))


def _sub(arch: str) -> Arch:
    return Arch(arch, "sub", lambda m, wa, wb, r: subtractor(m, wa, wb, r, arch))


def _lt(form: str) -> Arch:
    return Arch(form, "lt", lambda m, wa, wb, r: less_than(m, wa, wb, form))


def _mul(pp: str, final: str) -> Arch:
    return Arch(f"{'dadda' if pp == 'and' else pp}_{final}", "mul",
                lambda m, wa, wb, r: multiplier(m, wa, wb, r, pp, final))


ADDERS = [*NETWORKS, "cs"]
ALL_ARCHS = [*(_add(n) for n in ADDERS), *(_addc(n) for n in ADDERS), *(_sub(n) for n in ADDERS),
             _lt("tree"), _lt("chain"),
             *(_mul(pp, f) for pp in ("and", "booth") for f in ("ks", "rc")),
             Arch("predec", "dec", lambda m, ws, _, r: decoder(m, ws, r))]
