"""The fleet report: one self-contained HTML page, a bar chart per probe with floors and medians.

The page is templates/fleet_report.html.j2 (Jinja2, autoescaped): node names and units reach it as data."""

from __future__ import annotations

import base64
import io
from pathlib import Path

from ..outputs import write_atomic
from .peer_outliers import DEFAULT_TOLERANCE, class_medians, failing_nodes, outliers
from .validate import PROBE_ORDER, NodeResult

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
    rows = []
    for r in sorted(results, key=lambda r: r.node):
        cells = []
        for p in probes:
            pr = r.probes.get(p)
            if pr is None or pr.value is None:
                cells.append(None)
                continue
            css = "fail" if not pr.passed else "outlier" if (r.node, p) in flagged else "pass"
            cells.append({"css": css, "value": f"{pr.value:,.4g}", "unit": pr.unit,
                          "floor": None if pr.floor is None else f"{pr.floor:,.4g}"})
        excluded_node = r.node in excluded
        rows.append({"node": r.node, "hardware_class": r.hardware_class, "cells": cells,
                     "verdict": "excluded" if excluded_node else "passed",
                     "verdict_css": "fail" if excluded_node else "pass"})
    charts = [{"probe": p, "png": _probe_chart(p, results, medians, flagged)} for p in probes]
    return _template().render(nodes=len(results), excluded=len(excluded), tolerance=f"{tolerance:.0%}",
                              probes=probes, rows=rows, notes=[o.describe() for o in found], charts=charts)


def _template():
    """templates/fleet_report.html.j2, every value HTML-escaped (autoescape)."""
    from jinja2 import Environment, PackageLoader, select_autoescape

    env = Environment(loader=PackageLoader(__package__, "templates"),
                      autoescape=select_autoescape(default=True, default_for_string=True))
    return env.get_template("fleet_report.html.j2")


def write_report(results: list[NodeResult], path: Path, tolerance: float = DEFAULT_TOLERANCE) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, render(results, tolerance))
