"""The HTML shell shared by the run and sweep pages: one file, inline CSS, nothing fetched.

A Content-Security-Policy forbids every network load, so even text that slipped through escaping
could not pull in a script or an image; the page opens from disk with no server.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

CSS = """
:root{--fg:#1d2330;--muted:#5f6b7a;--line:#dde2e8;--bg:#f6f7f9;--good:#137333;--bad:#b3261e;--accent:#0b57d0}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;
color:var(--fg);background:var(--bg)}
header{background:#1d2330;color:#fff;padding:18px 28px}
header h1{margin:0;font-size:22px;font-weight:600}
header .sub{color:#c4cad3;margin-top:4px}
main{max-width:1220px;margin:0 auto;padding:18px 28px 60px}
section{overflow-x:auto;background:#fff;border:1px solid var(--line);border-radius:8px;padding:14px 18px;margin:16px 0}
h2{font-size:17px;margin:0 0 10px;font-weight:600}
h3{font-size:14px;margin:14px 0 6px;color:var(--muted);font-weight:600}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(170px,1fr));gap:12px;margin:16px 0}
.card{background:#fff;border:1px solid var(--line);border-radius:8px;padding:12px 14px}
.card .k{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.04em}
.card .v{font-size:22px;font-weight:600;margin:2px 0}
.card .d{font-size:12.5px;color:var(--muted)}
.good{color:var(--good)}.bad{color:var(--bad)}.muted{color:var(--muted)}
table{border-collapse:collapse;width:100%;margin:4px 0 8px;font-variant-numeric:tabular-nums}
th,td{border-bottom:1px solid var(--line);padding:5px 8px;text-align:left;vertical-align:top}
th{background:#f0f2f5;font-weight:600;font-size:12.5px}
td.n,th.n{text-align:right}td.n{white-space:nowrap}
code,pre,.mono{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12.5px}
pre{background:#f6f8fa;border:1px solid var(--line);border-radius:6px;padding:8px 10px;overflow:auto;
max-height:520px;margin:6px 0}
.charts{display:flex;flex-wrap:wrap;gap:14px}
figure.chart{margin:0}
svg.plot{background:#fff;display:block}
svg .grid{stroke:#eceff3;stroke-width:1}
svg .frame{fill:none;stroke:#b8c0ca;stroke-width:1}
svg .tick{font-size:11px;fill:#5f6b7a}
svg .axis{font-size:12px;fill:#1d2330}
svg .ptitle{font-size:13px;font-weight:600;fill:#1d2330}
svg .lbl{font-size:11.5px;fill:#1d2330}
.legend{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:12px;color:var(--muted);margin:4px 0 0 8px;max-width:530px}
.key{display:inline-flex;align-items:center;gap:5px}
.sw{display:inline-block;width:14px;height:10px;background:var(--c)}
.sw.line{height:3px}.sw.dash{height:0;border-top:2px dashed var(--c);background:none}
.sw.hollow{width:9px;height:9px;border-radius:50%;border:1.5px solid var(--c);background:none}
.sw.circle{width:9px;height:9px;border-radius:50%}
.sw.cross{background:none;width:10px;height:10px;position:relative}
.sw.cross:before{content:"\\00d7";color:var(--c);font-style:normal;font-weight:700;position:absolute;top:-5px;left:0}
.diff{max-height:640px}
pre.wrap{white-space:pre-wrap;word-break:break-word}
.diff .a{background:#e6f4ea;color:#0d652d;display:block}
.diff .r{background:#fce8e6;color:#a50e0e;display:block}
.diff .h{color:#6f42c1;display:block}
.diff .f{color:var(--muted);font-weight:600;display:block}
.cols pre{max-height:360px}
.problems{border-color:#f2c94c;background:#fffbea}
.pill{display:inline-block;padding:0 7px;border-radius:9px;font-size:12px;background:#eef1f4}
.pill.valid{background:#e6f4ea;color:#137333}.pill.rejected{background:#fce8e6;color:#a50e0e}
.pill.repaired,.pill.unproven{background:#fff4d6;color:#8a5a00}.pill.invalid{background:#fce8e6;color:#a50e0e}
.pill.complete{background:#e6f4ea;color:#137333}.pill.interrupted,.pill.no-valid-candidate{background:#fff4d6;color:#8a5a00}
table.kv td:first-child{color:var(--muted);width:30%;white-space:nowrap}
.cols{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:18px}
@media (max-width:900px){.cols{grid-template-columns:1fr}}
.verdict{font-size:15px;margin:14px 0 0}
.sw.square{width:10px;height:10px}.sw.star{background:none;width:12px;height:12px;position:relative}
.sw.star:before{content:"\\2605";color:var(--c);position:absolute;top:-5px;left:0;font-size:14px;
-webkit-text-stroke:.6px #000}
.sw.diamond{width:9px;height:9px;transform:rotate(45deg)}
.sw.tri{background:none;width:0;height:0;border-left:5px solid transparent;border-right:5px solid transparent;
border-bottom:9px solid var(--c)}
details summary{cursor:pointer;color:var(--accent);margin:4px 0}
.na{color:var(--muted);font-style:italic}
footer{color:var(--muted);font-size:12px;text-align:center;margin:20px}
"""


def page(title: str, subtitle: str, body: Iterable[str]) -> str:
    """A complete HTML document; ``title`` and ``subtitle`` are escaped here, ``body`` is trusted markup."""
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"
        f"<header><h1>{escape(title)}</h1><div class=\"sub\">{escape(subtitle)}</div></header>"
        f"<main>{''.join(body)}</main>"
        "<footer>Generated by HyperHeurist (hh report). Self-contained: no scripts, no network.</footer>"
        "</body></html>\n"
    )


def section(title: str, *parts: str, anchor: str = "", cls: str = "") -> str:
    ident = f' id="{escape(anchor)}"' if anchor else ""
    klass = f' class="{cls}"' if cls else ""
    return f"<section{ident}{klass}><h2>{escape(title)}</h2>{''.join(parts)}</section>"


def not_recorded(what: str) -> str:
    return f'<p class="na">{escape(what)}: not recorded.</p>'


def card(key: str, value: str, detail: str = "", detail_cls: str = "") -> str:
    d = f'<div class="d {detail_cls}">{escape(detail)}</div>' if detail else ""
    return f'<div class="card"><div class="k">{escape(key)}</div><div class="v">{escape(value)}</div>{d}</div>'


def table(headers: Sequence[str], rows: Iterable[Sequence[str]], numeric: Sequence[bool] | None = None,
          raw: bool = False) -> str:
    """A table; cells are escaped unless ``raw`` (then the caller escaped them)."""
    num = list(numeric) if numeric is not None else [False] * len(headers)
    head = "".join(f'<th class="n">{escape(h)}</th>' if n else f"<th>{escape(h)}</th>"
                   for h, n in zip(headers, num, strict=True))
    body = []
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            c = cell if raw else escape(cell)
            cells.append(f'<td class="n">{c}</td>' if i < len(num) and num[i] else f"<td>{c}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def kv_table(rows: Iterable[Sequence[str]], raw: bool = False) -> str:
    """A two-column key/value table without a header row."""
    body = "".join(f"<tr><td>{escape(k)}</td><td>{v if raw else escape(v)}</td></tr>" for k, v in rows)
    return f'<table class="kv"><tbody>{body}</tbody></table>'


def pre(text: str, cls: str = "") -> str:
    klass = f' class="{cls}"' if cls else ""
    return f"<pre{klass}>{escape(text)}</pre>"
