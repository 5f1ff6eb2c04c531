"""The rewrite rules over the e-graph's constructors (see ``encode``), each with the width condition it needs.

A rule's pattern variables in width positions (``w n m k lo``) are the widths the constructors carry;
its ``when`` clauses are egglog facts over them. Rules that compute with constant values use i64
arithmetic, so they are limited to widths whose masks fit (``w <= 62``; a product of two constants
``w <= 31``). Every rule is proven by ``rulecheck`` on all values at small widths and on samples at wide
ones.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from hyperheurist.egraph.encode import BINARY, COMPARES, SHIFTS, UNARY


@dataclass(frozen=True)
class Rule:
    name: str
    family: str
    lhs: str
    rhs: str
    when: tuple[str, ...] = ()
    probe: str = ""  # a helper-free pattern the companions turn into lhs (when lhs holds a helper)
    companions: tuple[str, ...] = ()  # rules the check runs beside this one (to make or expand helpers)
    subsume: bool = False  # the left side is hidden once rewritten (a simplification)

    def egglog(self, ruleset: str) -> str:
        facts = " ".join((f"(= __e {self.lhs})", *self.when))
        hide = f" (subsume {self.lhs})" if self.subsume else ""
        return f'(rule ({facts}) ((union __e {self.rhs}){hide}) :ruleset {ruleset} :name "{self.name}")'


def mask(w: str) -> str:
    return f"(- (<< 1 {w}) 1)"


def _ac() -> list[Rule]:
    out = []
    for op in ("Add", "Mul", "And", "Or", "Xor"):
        low = op.lower()
        out.append(Rule(f"comm-{low}", "reassociate", f"({op} w a b)", f"({op} w b a)"))
        out.append(Rule(f"assoc-{low}", "reassociate", f"({op} w ({op} w a b) c)", f"({op} w a ({op} w b c))"))
        out.append(Rule(f"assoc-{low}-rev", "reassociate", f"({op} w a ({op} w b c))", f"({op} w ({op} w a b) c)"))
    for a, b in (("Lt", "Gt"), ("Le", "Ge"), ("Gt", "Lt"), ("Ge", "Le"), ("Eq", "Eq"), ("Ne", "Ne")):
        out.append(Rule(f"swap-{a.lower()}", "reassociate", f"({a} n x y)", f"({b} n y x)"))
    return out


def _mux_sharing() -> list[Rule]:
    out = []
    for op in BINARY:
        low = op.lower()
        out.append(Rule(f"share-{low}-left", "mux-sharing", f"(Mux w c ({op} w a b) ({op} w a d))",
                        f"({op} w a (Mux w c b d))"))
        out.append(Rule(f"share-{low}-right", "mux-sharing", f"(Mux w c ({op} w b a) ({op} w d a))",
                        f"({op} w (Mux w c b d) a)"))
    for op in SHIFTS:
        low = op.lower()
        out.append(Rule(f"share-{low}-value", "mux-sharing", f"(Mux w c ({op} w n a s) ({op} w n a t))",
                        f"({op} w n a (Mux n c s t))"))
        out.append(Rule(f"share-{low}-amount", "mux-sharing", f"(Mux w c ({op} w n a s) ({op} w n b s))",
                        f"({op} w n (Mux w c a b) s)"))
    for op in COMPARES:
        low = op.lower()
        out.append(Rule(f"share-{low}-left", "mux-sharing", f"(Mux 1 c ({op} n a b) ({op} n a d))",
                        f"({op} n a (Mux n c b d))"))
        out.append(Rule(f"share-{low}-right", "mux-sharing", f"(Mux 1 c ({op} n b a) ({op} n d a))",
                        f"({op} n (Mux n c b d) a)"))
    for op in UNARY:
        out.append(Rule(f"share-{op.lower()}", "mux-sharing", f"(Mux w c ({op} w a) ({op} w b))",
                        f"({op} w (Mux w c a b))"))
    return out


def _factoring() -> list[Rule]:
    out = [
        Rule("factor-mul-add", "factoring", "(Add w (Mul w a b) (Mul w a c))", "(Mul w a (Add w b c))"),
        Rule("factor-mul-sub", "factoring", "(Sub w (Mul w a b) (Mul w a c))", "(Mul w a (Sub w b c))"),
        # with a constant only: a*b + a == a*(b+1) for a variable b would grow b+1, b+2, ... without end
        Rule("factor-mul-add-one", "factoring", "(Add w (Mul w a (Const w c)) a)",
             f"(Mul w a (Const w (& (+ c 1) {mask('w')})))", ("(<= w 62)",)),
        # and back (distribution): a*(b + c) == a*b + a*c lets a product another output already computes
        # serve this one too (a*(b+1) beside a*b is a*b + a); extraction keeps it only where that is cheaper
        Rule("distribute-mul-add", "factoring", "(Mul w a (Add w b c))", "(Add w (Mul w a b) (Mul w a c))"),
        Rule("distribute-mul-sub", "factoring", "(Mul w a (Sub w b c))", "(Sub w (Mul w a b) (Mul w a c))"),
        # a product by a shifted operand is the shifted product (modulo 2**w), so x*(c << k) beside x*c
        # is (x*c) << k: one multiplier
        Rule("mul-shl", "factoring", "(Mul w a (Shl w n b s))", "(Shl w n (Mul w a b) s)"),
        Rule("factor-and-or", "factoring", "(Or w (And w a b) (And w a c))", "(And w a (Or w b c))"),
        Rule("factor-or-and", "factoring", "(And w (Or w a b) (Or w a c))", "(Or w a (And w b c))"),
        Rule("factor-and-xor", "factoring", "(Xor w (And w a b) (And w a c))", "(And w a (Xor w b c))"),
    ]
    # (a << s) op (b << s) == (a op b) << s for ring and bitwise ops; only bitwise ops pass through >>
    for sh, ops in (("Shl", ("Add", "Sub", "And", "Or", "Xor")), ("Shr", ("And", "Or", "Xor"))):
        for op in ops:
            out.append(Rule(f"factor-{sh.lower()}-{op.lower()}", "factoring",
                            f"({op} w ({sh} w n a s) ({sh} w n b s))", f"({sh} w n ({op} w a b) s)"))
    return out


def _strength() -> list[Rule]:
    k_even = "(log2 (& c (- 0 c)))"  # the trailing zeros of c
    n_even = f"(+ (log2 {k_even}) 1)"  # the bits that count takes
    return [
        # c == 2**k: x*c == x << k (the amount takes as many bits as k needs)
        Rule("mul-pow2", "strength", "(Mul w x (Const w c))",
             "(Shl w (+ (log2 (log2 c)) 1) x (Const (+ (log2 (log2 c)) 1) (log2 c)))",
             ("(<= w 62)", "(> c 1)", "(= (& c (- c 1)) 0)")),
        # canonical signed digits, one digit a step: x*c == (x*(c >> k)) << k, x*(c-1) + x, x*(c+1) - x
        Rule("mul-even", "strength", "(Mul w x (Const w c))",
             f"(Shl w {n_even} (Mul w x (Const w (>> c {k_even}))) (Const {n_even} {k_even}))",
             ("(<= w 62)", "(> c 0)", "(= (& c 1) 0)", "(!= (& c (- c 1)) 0)")),
        Rule("mul-csd-add", "strength", "(Mul w x (Const w c))", "(Add w (Mul w x (Const w (- c 1))) x)",
             ("(<= w 62)", "(> c 1)", "(= (& c 3) 1)")),
        Rule("mul-csd-sub", "strength", "(Mul w x (Const w c))",
             f"(Sub w (Mul w x (Const w (& (+ c 1) {mask('w')}))) x)", ("(<= w 62)", "(= (& c 3) 3)")),
        Rule("shl-const", "strength", "(Shl w n a (Const n k))",
             "(Concat w (- w k) (Slice (- w k) 0 w a) (Const k 0))", ("(> k 0)", "(< k w)")),
        Rule("shr-const", "strength", "(Shr w n a (Const n k))", "(Zext w (- w k) (Slice (- w k) k w a))",
             ("(> k 0)", "(< k w)")),
        Rule("add-self", "strength", "(Add w a a)", "(Shl w 1 a (Const 1 1))"),
        Rule("shl-zero", "identity", "(Shl w n a (Const n 0))", "a"),
        Rule("shr-zero", "identity", "(Shr w n a (Const n 0))", "a"),
        Rule("shl-over", "fold", "(Shl w n a (Const n k))", "(Const w 0)", ("(>= k w)",)),
        Rule("shr-over", "fold", "(Shr w n a (Const n k))", "(Const w 0)", ("(>= k w)",)),
    ]


def _width() -> list[Rule]:
    n1 = "(+ n 1)"
    d = f"(Sub {n1} (Zext {n1} n a) (Zext {n1} n b))"
    out = [
        # the sum of two n-bit values needs n+1 bits; their product n+m
        Rule("narrow-add", "width", "(Add w (Zext w n a) (Zext w n b))",
             f"(Zext w {n1} (Add {n1} (Zext {n1} n a) (Zext {n1} n b)))", (f"(< {n1} w)",)),
        Rule("narrow-mul", "width", "(Mul w (Zext w n a) (Zext w m b))",
             "(Zext w (+ n m) (Mul (+ n m) (Zext (+ n m) n a) (Zext (+ n m) m b)))", ("(< (+ n m) w)",)),
        # a difference of two n-bit values: n+1 bits, the borrow (bit n) repeated above them
        Rule("narrow-sub", "width", "(Sub w (Zext w n a) (Zext w n b))",
             f"(Concat w (- w {n1}) (Rep (- w {n1}) (Slice 1 n {n1} {d})) {d})", (f"(< {n1} w)",),
             companions=("rep-one", "rep-split")),
        Rule("zext-full", "width", "(Zext w w a)", "a"),
        Rule("zext-zext", "width", "(Zext w m (Zext m n a))", "(Zext w n a)"),
        Rule("slice-full", "width", "(Slice w 0 w a)", "a"),
        Rule("slice-slice", "width", "(Slice k lo m (Slice m lo2 n a))", "(Slice k (+ lo lo2) n a)"),
        Rule("slice-zext", "width", "(Slice k 0 w (Zext w n a))", "(Slice k 0 n a)", ("(<= k n)",)),
        Rule("slice-concat-low", "width", "(Slice k lo w (Concat w n a b))", "(Slice k lo (- w n) b)",
             ("(<= (+ lo k) (- w n))",)),
        Rule("slice-concat-high", "width", "(Slice k lo w (Concat w n a b))", "(Slice k (- lo (- w n)) n a)",
             ("(>= lo (- w n))",)),
        Rule("concat-zero-zext", "width", "(Concat w m (Const m 0) a)", "(Zext w (- w m) a)"),
    ]
    for op in ("And", "Or", "Xor"):
        out.append(Rule(f"narrow-{op.lower()}", "width", f"({op} w (Zext w n a) (Zext w n b))",
                        f"(Zext w n ({op} n a b))", ("(< n w)",)))
    for op in COMPARES:
        low = op.lower()
        out.append(Rule(f"narrow-{low}", "width", f"({op} n (Zext n m a) (Zext n m b))", f"({op} m a b)"))
        out.append(Rule(f"narrow-{low}-const", "width", f"({op} n (Zext n m a) (Const n k))",
                        f"({op} m a (Const m k))", ("(<= m 62)", "(< k (<< 1 m))")))
    # the low k bits of a ring or bitwise result depend only on the low k bits of its operands
    for op in BINARY:
        out.append(Rule(f"trunc-{op.lower()}", "width", f"(Slice k 0 w ({op} w a b))",
                        f"({op} k (Slice k 0 w a) (Slice k 0 w b))", ("(< k w)",)))
    for op in UNARY:
        out.append(Rule(f"trunc-{op.lower()}", "width", f"(Slice k 0 w ({op} w a))", f"({op} k (Slice k 0 w a))",
                        ("(< k w)",)))
    return out


def _signed() -> list[Rule]:
    """Sign extension: Verilog's signed operands, extended to their context, as the lifting states them."""
    n1 = "(+ n 1)"
    out = [
        Rule("sext-full", "signed", "(Sext w w a)", "a"),
        Rule("sext-sext", "signed", "(Sext w m (Sext m n a))", "(Sext w n a)"),
        Rule("sext-zext", "signed", "(Sext w m (Zext m n a))", "(Zext w n a)", ("(< n m)",)),
        # {{k{x[n-1]}}, x}: a sign extension written out (Verilog-2001 style), one step whatever k is
        Rule("sext-top", "signed", "(Concat w k (Sext k 1 (Slice 1 lo n a)) a)", "(Sext w n a)", ("(= lo (- n 1))",)),
        Rule("sext-top-one", "signed", "(Concat w 1 (Slice 1 lo n a) a)", "(Sext w n a)", ("(= lo (- n 1))",)),
        Rule("slice-sext", "signed", "(Slice k 0 w (Sext w n a))", "(Slice k 0 n a)", ("(<= k n)",)),
        Rule("fold-sext-pos", "fold", "(Sext w n (Const n x))", "(Const w x)", ("(< x (<< 1 (- n 1)))",)),
        Rule("fold-sext-neg", "fold", "(Sext w n (Const n x))", "(Const w (| x (- (<< 1 w) (<< 1 n))))",
             ("(<= w 62)", "(>= x (<< 1 (- n 1)))")),
        # a signed sum or difference of two n-bit values needs n+1 bits, a product n+m (sign-extended above)
        *(Rule(f"narrow-s{op.lower()}", "signed", f"({op} w (Sext w n a) (Sext w n b))",
               f"(Sext w {n1} ({op} {n1} (Sext {n1} n a) (Sext {n1} n b)))", (f"(< {n1} w)",))
          for op in ("Add", "Sub")),
        Rule("narrow-smul", "signed", "(Mul w (Sext w n a) (Sext w m b))",
             "(Sext w (+ n m) (Mul (+ n m) (Sext (+ n m) n a) (Sext (+ n m) m b)))", ("(< (+ n m) w)",)),
    ]
    # sign extension keeps the unsigned order of two values (the same prefix, or ones above a top 1 bit)
    for op in COMPARES:
        out.append(Rule(f"narrow-{op.lower()}-sext", "signed", f"({op} n (Sext n m a) (Sext n m b))", f"({op} m a b)"))
    return out


def _compare_sharing() -> list[Rule]:
    """A comparison and a subtraction of the same operands share one subtractor: a < b is the borrow of
    a - b computed one bit wider. Each rule fires only where its partner exists (``when``), so a lone
    subtraction is not widened again and again."""
    n1 = "(+ n 1)"
    d = f"(Sub {n1} (Zext {n1} n a) (Zext {n1} n b))"
    both = f"(Concat {n1} 1 (Lt n a b) (Sub n a b))"
    return [
        Rule("lt-borrow", "compare-sharing", "(Lt n a b)", f"(Slice 1 n {n1} {d})", ("(= __s (Sub n a b))",),
             probe=both),
        Rule("sub-widened", "compare-sharing", "(Sub n a b)", f"(Slice n 0 {n1} {d})", ("(= __c (Lt n a b))",),
             probe=both),
        # (x + k) REL (y + k) == x REL y when neither sum can overflow (x, y are n-bit values zero-extended)
        *(Rule(f"cancel-{op.lower()}", "compare-sharing",
               f"({op} w (Add w (Zext w n a) (Const w k)) (Add w (Zext w n b) (Const w k)))", f"({op} n a b)",
               ("(<= w 62)", "(< (+ (- (<< 1 n) 1) k) (<< 1 w))")) for op in COMPARES),
        # a - b = -(b - a), where b - a is computed anyway (one subtractor and a negation, or a mux of both)
        Rule("sub-negated-swap", "compare-sharing", "(Sub n a b)", "(Neg n (Sub n b a))", ("(= __t (Sub n b a))",),
             probe="(Concat (+ n n) n (Sub n a b) (Sub n b a))"),
    ]


def _fold() -> list[Rule]:
    m = mask("w")
    arith = {"Add": "+", "Sub": "-", "Mul": "*", "And": "&", "Or": "|", "Xor": "^"}
    out = [
        Rule(f"fold-{op.lower()}", "fold", f"({op} w (Const w x) (Const w y))", f"(Const w (& ({f} x y) {m}))",
             ("(<= w 31)" if op == "Mul" else "(<= w 62)",))
        for op, f in arith.items()
    ]
    out += [
        Rule("fold-not", "fold", "(Not w (Const w x))", f"(Const w (^ x {m}))", ("(<= w 62)",)),
        Rule("fold-neg", "fold", "(Neg w (Const w x))", f"(Const w (& (- 0 x) {m}))", ("(<= w 62)",)),
        Rule("fold-zext", "fold", "(Zext w n (Const n x))", "(Const w x)"),
        Rule("fold-slice", "fold", "(Slice k lo n (Const n x))", f"(Const k (& (>> x lo) {mask('k')}))",
             ("(<= n 62)",)),
        Rule("fold-concat", "fold", "(Concat w n (Const n x) (Const m y))", "(Const w (| (<< x m) y))",
             ("(<= w 62)",)),
        Rule("fold-mux-1", "fold", "(Mux w (Const 1 1) a b)", "a"),
        Rule("fold-mux-0", "fold", "(Mux w (Const 1 0) a b)", "b"),
        Rule("fold-redor", "fold", "(RedOr n (Const n x))", "(Const 1 (min x 1))"),
        Rule("fold-redand-1", "fold", "(RedAnd n (Const n x))", "(Const 1 1)", ("(<= n 62)", f"(= x {mask('n')})")),
        Rule("fold-redand-0", "fold", "(RedAnd n (Const n x))", "(Const 1 0)", ("(<= n 62)", f"(!= x {mask('n')})")),
    ]
    truth = {"Eq": "=", "Ne": "!=", "Lt": "<", "Le": "<=", "Gt": ">", "Ge": ">="}
    negation = {"=": "!=", "!=": "=", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}
    for op, f in truth.items():
        low = op.lower()
        out.append(Rule(f"fold-{low}-true", "fold", f"({op} n (Const n x) (Const n y))", "(Const 1 1)",
                        (f"({f} x y)",)))
        out.append(Rule(f"fold-{low}-false", "fold", f"({op} n (Const n x) (Const n y))", "(Const 1 0)",
                        (f"({negation[f]} x y)",)))
        reflexive = int(op in ("Eq", "Le", "Ge"))
        out.append(Rule(f"{low}-self", "identity", f"({op} n a a)", f"(Const 1 {reflexive})"))
    return out


def _identities() -> list[Rule]:
    m = mask("w")
    # the constant on either side: the left-hand forms, made by commutativity in the same iteration, must
    # be simplified (and hidden) too
    with_constant = [
        Rule(f"{name}{side}", "identity", f"({op} w a {k})" if side == "" else f"({op} w {k} a)", rhs, when)
        for name, op, k, rhs, when in (
            ("add-zero", "Add", "(Const w 0)", "a", ()),
            ("mul-one", "Mul", "(Const w 1)", "a", ()),
            ("mul-zero", "Mul", "(Const w 0)", "(Const w 0)", ()),
            ("and-zero", "And", "(Const w 0)", "(Const w 0)", ()),
            ("and-ones", "And", "(Const w x)", "a", ("(<= w 62)", f"(= x {m})")),
            ("or-zero", "Or", "(Const w 0)", "a", ()),
            ("or-ones", "Or", "(Const w x)", "(Const w x)", ("(<= w 62)", f"(= x {m})")),
            ("xor-zero", "Xor", "(Const w 0)", "a", ()),
            ("xor-ones", "Xor", "(Const w x)", "(Not w a)", ("(<= w 62)", f"(= x {m})")),
        )
        for side in ("", "-left")
    ]
    return with_constant + [
        Rule("sub-zero", "identity", "(Sub w a (Const w 0))", "a"),
        Rule("xor-self", "identity", "(Xor w a a)", "(Const w 0)"),
        Rule("sub-self", "identity", "(Sub w a a)", "(Const w 0)"),
        Rule("and-self", "identity", "(And w a a)", "a"),
        Rule("or-self", "identity", "(Or w a a)", "a"),
        Rule("mux-same", "identity", "(Mux w c a a)", "a"),
        Rule("not-not", "identity", "(Not w (Not w a))", "a"),
        Rule("neg-neg", "identity", "(Neg w (Neg w a))", "a"),
        Rule("sub-add-neg", "identity", "(Sub w a b)", "(Add w a (Neg w b))"),
        Rule("add-neg-sub", "identity", "(Add w a (Neg w b))", "(Sub w a b)"),
        Rule("zero-sub-neg", "identity", "(Sub w (Const w 0) a)", "(Neg w a)"),
    ]


def _mux() -> list[Rule]:
    zero_probe = "(Mux w c a (Const w 0))"
    rep = ("rep-one", "rep-split")
    return [
        Rule("mux-select", "mux", "(Mux 1 c (Const 1 1) (Const 1 0))", "c"),
        Rule("mux-not-select", "mux", "(Mux 1 c (Const 1 0) (Const 1 1))", "(Not 1 c)"),
        Rule("mux-or", "mux", "(Mux 1 c (Const 1 1) b)", "(Or 1 c b)"),
        Rule("mux-swap", "mux", "(Mux w (Not 1 c) a b)", "(Mux w c b a)"),
        # mux(c, x, 0) == x & {w{c}}: the replicated select is a concat of w copies
        Rule("mux-else-zero", "mux", "(Mux w c a (Const w 0))", "(And w a (Rep w c))", companions=rep),
        Rule("mux-then-zero", "mux", "(Mux w c (Const w 0) a)", "(And w a (Rep w (Not 1 c)))",
             companions=rep),
        # c ? -b : b == (b ^ {w{c}}) + c: an add/subtract unit is one adder with a carry in
        Rule("mux-negate", "mux", "(Mux w c (Neg w b) b)", "(Add w (Xor w b (Rep w c)) (Zext w 1 c))",
             ("(> w 1)",), companions=rep),
        # c ? x + 1 : x == x + c: an incrementer and a mux are one adder's carry in (and x - 1 a borrow)
        Rule("mux-inc", "mux", "(Mux w c (Add w x (Const w 1)) x)", "(Add w x (Zext w 1 c))"),
        Rule("mux-inc-else", "mux", "(Mux w c x (Add w x (Const w 1)))", "(Add w x (Zext w 1 (Not 1 c)))"),
        Rule("mux-dec", "mux", "(Mux w c (Sub w x (Const w 1)) x)", "(Sub w x (Zext w 1 c))"),
        Rule("mux-dec-else", "mux", "(Mux w c x (Sub w x (Const w 1)))", "(Sub w x (Zext w 1 (Not 1 c)))"),
        Rule("rep-one", "mux", "(Rep 1 c)", "c", probe=zero_probe, companions=("mux-else-zero",)),
        Rule("rep-split", "mux", "(Rep w c)", "(Concat w (- w (/ w 2)) (Rep (- w (/ w 2)) c) (Rep (/ w 2) c))",
             ("(> w 1)",), probe=zero_probe, companions=("mux-else-zero", "rep-one")),
    ]


def _decoder() -> list[Rule]:
    shl_probe = "(Shl w n (Const w 1) s)"
    expand = ("decode-shl-one", "dec-split", "dec-bit", "dec-bit-over")
    bank_probe = "(Concat w 1 (Eq n s (Const n hi)) (Eq n s (Const n lo)))"
    return [
        # 1 << s == {s == w-1, ..., s == 1, s == 0}: one comparison per bit, MSB first (split in halves, so
        # a w-bit decoder takes log2(w) iterations)
        Rule("decode-shl-one", "decoder", shl_probe, "(Dec w n s 0)", ("(<= n 62)",),
             companions=expand[1:]),
        Rule("dec-split", "decoder", "(Dec w n s lo)",
             "(Concat w (- w (/ w 2)) (Dec (- w (/ w 2)) n s (+ lo (/ w 2))) (Dec (/ w 2) n s lo))",
             ("(> w 1)",), probe=shl_probe, companions=expand[:1] + expand[2:]),
        Rule("dec-bit", "decoder", "(Dec 1 n s lo)", "(Eq n s (Const n lo))", ("(< lo (<< 1 n))",),
             probe=shl_probe, companions=expand[:2] + expand[3:]),
        Rule("dec-bit-over", "decoder", "(Dec 1 n s lo)", "(Const 1 0)", ("(>= lo (<< 1 n))",),
             probe=shl_probe, companions=expand[:3]),
        # and back: a bank of comparisons of s with 0..w-1 is 1 << s
        Rule("eq-dec-bit", "decoder", "(Eq n s (Const n lo))", "(Dec 1 n s lo)", ("(<= n 62)",),
             companions=("dec-bit",)),
        Rule("dec-join", "decoder", "(Concat w m (Dec m n s hi) (Dec k n s lo))", "(Dec w n s lo)",
             ("(= hi (+ lo k))", "(= w (+ m k))"), probe=bank_probe, companions=("eq-dec-bit", "dec-shl-one")),
        Rule("dec-shl-one", "decoder", "(Dec w n s 0)", "(Shl w n (Const w 1) s)", probe=bank_probe,
             companions=("eq-dec-bit", "dec-join")),
    ]


# Simplifications whose left side is never worth keeping: hiding it (egglog's subsume) stops an absorbing
# node from feeding other rules forever (x*0 in the class of 0 makes 0 a product that associativity
# rewrites into e*e, e*e*e, ...). Not neg-neg: sub-negated-swap puts -(b - a) in a - b's class and
# -(a - b) in b - a's, so -(b - a) is also a double negation, and hiding it lost the shared subtractor.
SIMPLIFICATIONS = frozenset({
    *(f"{r}{side}" for r in ("add-zero", "mul-one", "mul-zero", "and-zero", "and-ones", "or-zero", "or-ones",
                             "xor-zero") for side in ("", "-left")),
    "sub-zero", "xor-self", "sub-self", "and-self", "or-self", "mux-same", "not-not", "shl-zero", "shr-zero",
    "shl-over", "shr-over", "zext-full", "sext-full", "sext-sext", "slice-full", "zext-zext", "slice-slice",
    "mux-select", "add-self",
    *(f"{c}-self" for c in ("eq", "ne", "lt", "le", "gt", "ge")),
})
RULES: tuple[Rule, ...] = tuple(
    replace(r, subsume=r.name in SIMPLIFICATIONS or r.family == "fold")
    for r in _ac() + _mux_sharing() + _factoring() + _strength() + _width() + _signed() + _compare_sharing() + _fold()
    + _identities() + _mux() + _decoder()
)
BY_NAME: dict[str, Rule] = {r.name: r for r in RULES}
assert len(BY_NAME) == len(RULES), "rule names must be unique"
