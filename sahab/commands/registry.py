"""`sahab registry list`: every image and chart a stack installs, with its upstream source and in-country target.

The list is the seed list of an airgapped site: each line says what to copy (or build) and where to push it
(README: seeding the registry). Text is tab-separated, one artifact a line after `#` comments, so a shell loop
reads it; JSON carries `schemaVersion`.
"""

from __future__ import annotations

import argparse

HELP = "List (and write as a seed list) every image and chart of a stack, from its upstream to its in-country registry."
COLUMNS = ("kind", "cluster_kind", "how", "source", "target", "digest")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from sahab.commands.plan import stack_name

    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help=HELP, description=HELP)
    listing.add_argument("--stack", "-s", default="dev", type=stack_name,
                         help="stack name: reads Pulumi.<stack>.yaml (default: dev)")
    listing.add_argument("--program", metavar="DIR", default=None,
                         help="folder holding Pulumi.yaml (default: the nearest one from the current folder up)")
    listing.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    listing.add_argument("--output", "-o", metavar="FILE", default=None,
                         help="write the seed list here (default: stdout)")


def document(project: str, stack: str, fleet, entries) -> dict:
    from sahab.schema import versions

    return {
        **versions(),
        "project": project,
        "stack": stack,
        "registries": {kind: fleet.registries.host_of(kind) for kind in ("eks", "aks", "onprem")
                       if fleet.registries.host_of(kind)},
        "artifacts": [{"kind": e.kind, "clusterKind": e.cluster_kind, "how": e.how, "source": e.source,
                       "target": e.target, "version": e.version, "digest": e.digest} for e in entries],
    }


def text(doc: dict) -> str:
    lines = [f"# sahab registry list --stack {doc['stack']}: {len(doc['artifacts'])} artifacts",
             "# how: cache = the registry pulls it through on first use; seed = copy it in (skopeo/crane/oras, "
             "helm push); build = build it from this repository and push it",
             "# " + "\t".join(COLUMNS)]
    for a in doc["artifacts"]:
        lines.append("\t".join((a["kind"], a["clusterKind"], a["how"], a["source"], a["target"], a["digest"] or "-")))
    return "\n".join(lines) + "\n"


def registry_document(program_dir, stack_name: str) -> dict:
    """The document of a program's stack (`sahab evidence` lists the same artifacts)."""
    import json

    from components.artifacts import read_digest_lock
    from components.config import parse_fleet
    from components.registry_plan import seed_list
    from sahab.errors import ConfigError
    from sahab.project import find_project, load_stack, project_dir

    project = find_project(project_dir(program_dir))
    stack = load_stack(project, stack_name)
    raw = stack.values.get("sahab:fleet")
    if raw is None:
        raise ConfigError("sahab:fleet", f"missing in {stack.path.name}; every stack sets its whole fleet under it")
    fleet = parse_fleet(json.loads(raw))
    return document(project.name, stack_name, fleet, seed_list(fleet, read_digest_lock()))


def run(args: argparse.Namespace) -> int:
    import json
    import sys
    from pathlib import Path

    if args.output:
        from sahab.writable import ensure_writable

        ensure_writable(args.output, "--output")
    doc = registry_document(args.program, args.stack)
    out = json.dumps(doc, indent=2) + "\n" if args.format == "json" else text(doc)
    if args.output:
        Path(args.output).write_text(out, encoding="utf-8")
        print(f"wrote {len(doc['artifacts'])} artifacts to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(out)
    if not doc["registries"]:
        print("warning: the stack names no registry (sahab:fleet.registries): nothing to seed; its clusters pull "
              "from the upstream registries",
              file=sys.stderr)
    return 0
