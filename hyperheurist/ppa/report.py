"""Plain-text PPA report for humans and LLM prompts."""

from __future__ import annotations

from .metrics import PPAMetrics


def ppa_report_text(m: PPAMetrics, top_cells: int = 12, *, show_stages: bool = True) -> str:
    """Area by cell type, the critical path (start, end, delay; in RTL terms and stage by stage with
    ``show_stages``) and the power split."""
    lines = [f"Area: {m.area_um2:.1f} um2 in {m.cells} cells (liberty {m.liberty})"]
    by_area = sorted(m.area_by_cell.items(), key=lambda kv: (-kv[1], kv[0]))
    for name, area in by_area[:top_cells]:
        share = 100.0 * area / m.area_um2 if m.area_um2 else 0.0
        lines.append(f"  {name:<12} x{m.cell_histogram.get(name, 0):<5} {area:10.1f} um2  {share:5.1f}%")
    if len(by_area) > top_cells:
        rest = sum(a for _, a in by_area[top_cells:])
        lines.append(f"  (other {len(by_area) - top_cells} cell types) {rest:.1f} um2")
    cp = m.critical_path
    status = "met" if m.met_timing else "VIOLATED"
    lines.append(f"Timing: critical path {m.delay_ns:.3f} ns at a {m.clock_period_ns:g} ns clock, slack "
                 f"{m.slack_ns:.3f} ns ({status}), fmax {m.fmax_mhz:.1f} MHz")
    if cp.get("start") or cp.get("end"):
        lines.append(f"  from {cp.get('start', '?')} ({cp.get('start_kind', '')}) to {cp.get('end', '?')} "
                     f"({cp.get('end_kind', '')})")
    if cp.get("rtl_start") or cp.get("rtl_end"):
        lines.append(f"  in RTL: from {cp.get('rtl_start') or '?'} to {cp.get('rtl_end') or '?'}")
    stages = m.details.get("critical_path_stages")
    if isinstance(stages, list) and stages and show_stages:
        lines.append(f"  {'incr ns':>8} {'at ns':>8}  pin (cell)  signal  source")
        lines += [f"  {s.get('incr_ns', 0):8.3f} {s.get('time_ns', 0):8.3f}  {s.get('pin', '')} ({s.get('cell', '')})"
                  f"  {s.get('signal', '')}  {s.get('src', '')}".rstrip() for s in stages if isinstance(s, dict)]
    sp = m.power_split
    lines.append(f"Power ({m.power_fidelity}): {m.power_mw:.4f} mW total = internal {sp.get('internal_mw', 0):.4f}"
                 f" + switching {sp.get('switching_mw', 0):.4f} + leakage {m.leakage_mw:.6f} mW")
    return "\n".join(lines)
