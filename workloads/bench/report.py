"""The fleet report: one self-contained HTML page, a bar chart per probe with floors and medians."""

from __future__ import annotations

import base64
import html
import io
from pathlib import Path

from workloads.bench.fleet import DEFAULT_TOLERANCE, class_medians, failing_nodes, outliers
from workloads.bench.validate import PROBE_ORDER, NodeResult

PASS_COLOUR, FAIL_COLOUR, OUTLIER_COLOUR = "#3a7d44", "#c0392b", "#e67e22"


def _probe_chart(probe: str, results: list[NodeResult], medians: dict, flagged: set[tuple[str, str]]) -> str:
    """A PNG (base64) of one probe across the fleet: a bar per node, its floor as a tick, class medians."""
    import matplotlib

    matplotlib.use("Agg")  # no display in a container or CI
    import matplotlib.pyplot as plt

    rows = [r for r in results if probe in r.probes and r.probes[probe].value is not None]
    fig, ax = plt.subplots(figsize=(max(4.0, 0.6 * len(rows) + 2), 3.2), dpi=100)
    names = [r.node for r in rows]
    values = [r.probes[probe].value for r in rows]
    colours = []
    for r in rows:
        p = r.probes[probe]
        flag = OUTLIER_COLOUR if (r.node, probe) in flagged else PASS_COLOUR
        colours.append(flag if p.passed else FAIL_COLOUR)
    ax.bar(range(len(rows)), values, color=colours)
    labelled = False
    for i, r in enumerate(rows):
        floor = r.probes[probe].floor
        if floor is not None:
            ax.hlines(floor, i - 0.4, i + 0.4, colors="black", linestyles="dashed",
                      label=None if labelled else "floor")
            labelled = True
    for hw_class, per_probe in medians.items():
        if probe in per_probe:
            ax.axhline(per_probe[probe], color="grey", linewidth=0.8, label=f"{hw_class} median")
    ax.set_xticks(range(len(rows)), names, rotation=45, ha="right", fontsize=8)
    unit = rows[0].probes[probe].unit if rows else ""
    ax.set_ylabel(unit)
    ax.set_title(probe)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def render(results: list[NodeResult], tolerance: float = DEFAULT_TOLERANCE) -> str:
    medians = class_medians(results)
    found = outliers(results, tolerance)
    flagged = {(o.node, o.probe) for o in found}
    excluded = failing_nodes(results, tolerance)
    probes = [p for p in PROBE_ORDER if any(p in r.probes for r in results)]
    e = html.escape

    head = "".join(f"<th>{e(p)}</th>" for p in probes)
    body = []
    for r in sorted(results, key=lambda r: r.node):
        cells = []
        for p in probes:
            pr = r.probes.get(p)
            if pr is None or pr.value is None:
                cells.append("<td>n/a</td>")
                continue
            css = "fail" if not pr.passed else "outlier" if (r.node, p) in flagged else "pass"
            floor = "" if pr.floor is None else f"<br><small>floor {pr.floor:,.4g}</small>"
            cells.append(f'<td class="{css}">{pr.value:,.4g} {e(pr.unit)}{floor}</td>')
        verdict = "excluded" if r.node in excluded else "passed"
        verdict_css = "fail" if verdict == "excluded" else "pass"
        body.append(
            f"<tr><td>{e(r.node)}</td><td>{e(r.hardware_class)}</td>"
            f'<td class="{verdict_css}">{verdict}</td>{"".join(cells)}</tr>'
        )
    charts = "".join(
        f'<figure><img alt="{e(p)} per node" src="data:image/png;base64,'
        f'{_probe_chart(p, results, medians, flagged)}"></figure>'
        for p in probes
    )
    notes = "".join(f"<li>{e(o.describe())}</li>" for o in found) or "<li>none</li>"
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sahab fleet validation</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em; }}
table {{ border-collapse: collapse; }}
td, th {{ border: 1px solid #ccc; padding: 4px 8px; text-align: right; }}
.pass {{ background: #e8f5e9; }} .fail {{ background: #fdecea; }} .outlier {{ background: #fff3e0; }}
figure {{ display: inline-block; margin: 0.5em; }}
</style></head><body>
<h1>Fleet validation</h1>
<p>{len(results)} nodes, {len(excluded)} excluded from training.
Green passed; red below its floor; orange more than {tolerance:.0%} below its hardware class median.</p>
<table><tr><th>node</th><th>class</th><th>verdict</th>{head}</tr>
{"".join(body)}
</table>
<h2>Outliers against the class median</h2><ul>{notes}</ul>
<h2>Per probe</h2>
{charts}
</body></html>
"""


def write_report(results: list[NodeResult], path: Path, tolerance: float = DEFAULT_TOLERANCE) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(results, tolerance))
