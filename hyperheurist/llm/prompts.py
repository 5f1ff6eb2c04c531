"""Chat messages for each role, rendered from the editable templates in ``hyperheurist/prompts/*.md``.

Placeholders are ``{{name}}``; values are inserted once (never re-scanned), so Verilog braces and
``$`` in the inserted text are safe. ``HH_PROMPTS_DIR`` points at a folder of replacement templates.

``trim`` (0..3) shortens a prompt that does not fit the model's context, least useful context first:
1 drops the specification's examples, 2 also cuts long logs (gate messages, cell lists), 3 also
drops the failure-rule history. The design, the interface and the task always stay.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from ..candidate import Candidate
from ..config import DesignConfig
from ..ppa.metrics import PPAJson
from .chat import ChatMessage

if TYPE_CHECKING:
    from .rules import RuleMemory

PROMPTS_DIR = Path(__file__).resolve().parent.parent / "prompts"
PLACEHOLDER = re.compile(r"\{\{\s*([a-z_]+)\s*\}\}")
MAX_RULES = 8  # most frequent first; a prompt is not a rule book
TOP_CELLS = 8
TRIM_STEPS = 3
LOG_CHARS = 1200  # a gate message longer than this keeps its head and tail (trim >= 2)
OMITTED = "(omitted to fit the model's context)"
EXAMPLE_HEADING = re.compile(r"^(#+)\s*.*\bexamples?\b.*$", re.I | re.M)
FENCED = re.compile(r"^```.*?^```[ \t]*$", re.S | re.M)

# Generation variants: the same spec asked for with a different emphasis gives diverse candidates.
STYLES = (
    "the most straightforward, readable implementation of the specification",
    "small area: share resources, use the narrowest widths that are exact",
    "short critical path: parallel or balanced logic rather than long chains",
    "low power: avoid needless switching; registers load only when their value changes",
    "a different architecture from the obvious one (another encoding, algorithm or datapath organisation)",
)
GOALS = {
    "area": "Reduce the cell area: fewer and smaller cells (share or remove logic, narrow datapaths, "
            "simpler arithmetic such as shifts and adds for constant products).",
    "timing": "Shorten the critical path reported above (reduce logic depth between its start and end points: "
              "balance adder trees, precompute, choose faster arithmetic structures) without adding latency.",
    "power": "Reduce power: less switching activity and fewer or smaller cells "
             "(avoid toggling unused logic, avoid loading registers that do not change).",
}
SCOPES = {
    "local": "Make ONE small, local edit (a few lines) that you expect to help; leave the rest of the design as it is.",
    "rewrite": "You may restructure the design (another architecture, encoding or arithmetic organisation) "
               "as long as the interface and the exact cycle-level behaviour are kept.",
}


def template(name: str) -> str:
    """The text of template ``name`` (``HH_PROMPTS_DIR`` first, then the bundled one)."""
    override = os.environ.get("HH_PROMPTS_DIR")
    for folder in ([Path(override)] if override else []) + [PROMPTS_DIR]:
        p = folder / f"{name}.md"
        if p.is_file():
            return p.read_text(encoding="utf-8")
    raise FileNotFoundError(f"prompt template {name}.md not found in {PROMPTS_DIR}")


def render(name: str, **values: object) -> str:
    """Fill every ``{{placeholder}}`` of a template; a placeholder without a value is an error."""
    text = template(name)
    missing = sorted({m.group(1) for m in PLACEHOLDER.finditer(text)} - set(values))
    if missing:
        raise KeyError(f"prompt template {name}.md: no value for {', '.join(missing)}")
    return PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), text).strip() + "\n"


def interface_text(design: DesignConfig) -> str:
    itf = design.interface
    lines = []
    for p in itf.declared_ports():
        lines.append(f"- {p.declaration()}")
    several = len(itf.clocks) > 1
    for c in itf.clocks:
        domain = f", domain {c.domain_name}" if several else ""
        lines.append(f"- clock: `{c.name}` (rising edge{domain})")
    if not itf.clocks:
        lines.append("- no clock: the design is purely combinational")
    if several:
        lines.append("- the clocks are " + ("synchronous (their edges coincide)" if itf.synchronous_clocks
                                           else "asynchronous to each other: synchronize every crossing"))
    for r in itf.resets:
        domain = f", domain {r.domain or itf.clocks[0].domain_name}" if several else ""
        lines.append(f"- reset: `{r.name}`, active {r.active}, {'synchronous' if r.sync else 'asynchronous'}{domain}")
    return "\n".join(lines)


def rules_text(rules: RuleMemory | None) -> str:
    active = rules.active(MAX_RULES) if rules is not None else []
    return "\n".join(f"- {r}" for r in active) if active else "(none yet)"


def ppa_report(metrics: PPAJson | None, period_ns: float) -> str:
    """The measurements a mutation prompt shows: area, top cells, critical path, delay, slack, power."""
    if not metrics:
        return "(no measurements)"
    m = metrics
    hist = sorted((m.get("cell_histogram") or {}).items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_CELLS]
    cp = m.get("critical_path") or {}
    lines = [
        f"- area: {m.get('area_um2', 0):.1f} um2 in {m.get('cells', 0)} cells",
        "- top cells: " + (", ".join(f"{c} x{n}" for c, n in hist) or "none"),
        f"- critical path: {cp.get('start', '?')} -> {cp.get('end', '?')}",
        f"- delay: {m.get('delay_ns', 0):.3f} ns (clock period {period_ns:g} ns, slack {m.get('slack_ns', 0):.3f} ns)",
        f"- power: {m.get('power_mw', 0):.4f} mW (dynamic {m.get('dynamic_mw', 0):.4f}, "
        f"leakage {m.get('leakage_mw', 0):.6f})",
    ]
    return "\n".join(lines)


def drop_examples(spec: str) -> str:
    """The specification without example sections and fenced blocks (``trim`` >= 1)."""
    out = FENCED.sub("(example omitted)", spec)
    m = EXAMPLE_HEADING.search(out)
    while m:
        nxt = re.compile(rf"^#{{1,{len(m.group(1))}}}\s", re.M).search(out, m.end())
        out = out[:m.start()] + (out[nxt.start():] if nxt else "")
        m = EXAMPLE_HEADING.search(out, m.start())  # the text shrank: always progresses
    return out.strip()


def short_log(text: str, limit: int = LOG_CHARS) -> str:
    """A long log's head and tail (``trim`` >= 2): the first error and the summary usually sit there."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half].rstrip()}\n[... {len(text) - limit} characters cut ...]\n{text[-half:].lstrip()}"


def _spec(design: DesignConfig, trim: int) -> str:
    text = design.spec_text().strip()
    return drop_examples(text) if trim >= 1 else text


def _rules(rules: RuleMemory | None, trim: int) -> str:
    return OMITTED if trim >= 3 else rules_text(rules)


def _report(metrics: PPAJson | None, period_ns: float, trim: int) -> str:
    text = ppa_report(metrics, period_ns)
    return "\n".join(ln for ln in text.splitlines() if not ln.startswith("- top cells")) if trim >= 2 else text


def _messages(design: DesignConfig, user: str) -> list[ChatMessage]:
    return [{"role": "system", "content": render("system", top=design.top)}, {"role": "user", "content": user}]


def generate_messages(design: DesignConfig, rules: RuleMemory | None, variant: int, count: int,
                      trim: int = 0) -> list[ChatMessage]:
    user = render("generate", spec=_spec(design, trim), top=design.top, interface=interface_text(design),
                  rules=_rules(rules, trim), variant=variant + 1, count=count, style=STYLES[variant % len(STYLES)])
    return _messages(design, user)


def repair_messages(design: DesignConfig, cand: Candidate, gate: str, message: str, rules: RuleMemory | None,
                    trim: int = 0) -> list[ChatMessage]:
    log = message or "(no message)"
    user = render("repair", spec=_spec(design, trim), top=design.top, interface=interface_text(design),
                  code=cand.text.strip(), gate=gate, message=short_log(log) if trim >= 2 else log,
                  rules=_rules(rules, trim))
    return _messages(design, user)


def mutate_messages(design: DesignConfig, cand: Candidate, metrics: PPAJson | None, goal: str, scope: str,
                    rules: RuleMemory | None, trim: int = 0) -> list[ChatMessage]:
    user = render("mutate", spec=_spec(design, trim), top=design.top, interface=interface_text(design),
                  code=cand.text.strip(), liberty=design.ppa.liberty, period=f"{design.ppa.clock_period_ns:g}",
                  report=_report(metrics, design.ppa.clock_period_ns, trim), goal=goal, goal_text=GOALS[goal],
                  scope_text=SCOPES[scope], rules=_rules(rules, trim))
    return _messages(design, user)


def critique_messages(design: DesignConfig, parent: Candidate, proposal: Candidate, metrics: PPAJson | None,
                      goal: str, trim: int = 0) -> list[ChatMessage]:
    user = render("critique", top=design.top, interface=interface_text(design), parent=parent.text.strip(),
                  proposal=proposal.text.strip(), report=_report(metrics, design.ppa.clock_period_ns, trim), goal=goal)
    return _messages(design, user)
