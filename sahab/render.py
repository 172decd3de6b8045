"""Text rendering of a plan: the resource tree and counts by type."""

from __future__ import annotations

from collections import Counter

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.tree import Tree

from sahab.engine import Plan
from sahab.readiness.readiness_types import Readiness


def render_plan_text(plan: Plan, console: Console | None = None) -> None:
    console = console or Console(highlight=False)
    by_urn = {r.urn: r for r in plan.resources}
    children: dict[str | None, list] = {}
    for res in plan.resources:
        parent = res.parent if res.parent in by_urn else None
        children.setdefault(parent, []).append(res)

    root = Tree(f"[bold]{plan.project}[/] / stack [bold]{plan.stack}[/]")

    def add(node: Tree, parent: str | None) -> None:
        for res in children.get(parent, []):
            if res.type == "pulumi:pulumi:Stack":
                add(node, res.urn)
                continue
            style = "cyan" if not res.custom else ("magenta" if res.type.startswith("pulumi:providers:") else "")
            label = f"[{style}]{res.type}[/] {res.name}" if style else f"{res.type} {res.name}"
            add(node.add(label), res.urn)

    add(root, None)
    console.print(root)
    counts = Counter(r.type for r in plan.resources if r.type != "pulumi:pulumi:Stack")
    table = Table(title="Resources by type", show_lines=False)
    table.add_column("type")
    table.add_column("count", justify="right")
    for type_, n in sorted(counts.items()):
        table.add_row(type_, str(n))
    table.add_row("[bold]total[/]", f"[bold]{sum(counts.values())}[/]")
    console.print(table)
    if plan.outputs:
        console.print("[bold]Stack outputs[/]: " + ", ".join(sorted(plan.outputs)))
    for warning in plan.warnings:
        console.print(f"[yellow]warning:[/] {warning}")


def render_readiness_text(readiness: Readiness, console: Console | None = None, quiet: bool = False) -> None:
    """Would the fleet come up: ready, or each problem (cluster, object, why); then where workloads run
    (`quiet`: the problems alone)."""
    console = console or Console(highlight=False)
    if readiness.ok:
        console.print("[bold green]Readiness: ready[/]")
    else:
        console.print(f"[bold red]Readiness: not ready[/] ({len(readiness.problems)} problem(s))")
        for p in readiness.problems:
            console.print(f"  [red]x[/] {escape(p.cluster)}: {escape(p.object)}: {escape(p.problem)}")
    if quiet:
        return
    if readiness.placements:
        table = Table(title="Placements")
        for column in ("workload", "cluster", "pool", "nodes"):
            table.add_column(column, justify="right" if column == "nodes" else "left")
        for p in readiness.placements:
            table.add_row(escape(p.workload), escape(p.cluster), escape(p.pool), str(p.nodes))
        console.print(table)
    if readiness.pools:
        table = Table(title="Cloud pools")
        for column in ("pool", "cluster", "region", "instance types", "zones"):
            table.add_column(column)
        for p in readiness.pools:
            table.add_row(escape(p.pool), escape(p.cluster), escape(p.region), escape(", ".join(p.instance_types)),
                          escape(", ".join(p.zones) or "regional"))
        console.print(table)
