"""`sahab registry list|seed|pin`: a stack's artifacts from their upstreams to its in-country registries.

- `list`: every image and chart with its upstream source and in-country target (the seed list of an airgapped site;
  text is tab-separated after `#` comments, JSON carries `schemaVersion`).
- `seed`: copies them in with skopeo or crane, from their upstreams or from an OCI layout (`--from DIR`).
- `pin`: records the digest each registry answers for each of them in the stack config folder's digests.lock, so
  every component names its images by digest.
Registry credentials come from the environment or the Docker config (sahab/registry/credentials.py), never from
the command line.
"""

from __future__ import annotations

import argparse

HELP = "List, seed and pin every image and chart of a stack, from its upstream to its in-country registry."
COLUMNS = ("kind", "cluster_kind", "how", "source", "target", "digest")
DIGEST_RULE = "kubernetes-all-workload-image-digest-pinned"


def _ca_file(text: str):
    """--ca-file: a file of PEM CA certificates that TLS can load (checked before any registry is asked)."""
    import ssl

    from sahab.workloads.inputs import input_file

    path = input_file("a PEM file of CA certificates")(text)
    try:
        ssl.create_default_context().load_verify_locations(cafile=str(path))
    except (ssl.SSLError, OSError, ValueError) as exc:
        raise argparse.ArgumentTypeError(f"{text}: not a usable PEM file of CA certificates "
                                         f"({getattr(exc, 'reason', None) or exc})") from None
    return path


def _layout(text: str):
    from pathlib import Path

    path = Path(text)
    if not (path / "index.json").is_file() or not (path / "oci-layout").is_file():
        raise argparse.ArgumentTypeError(f"{text}: not an OCI image layout (no index.json and oci-layout)")
    return path.resolve()


def _common(parser: argparse.ArgumentParser) -> None:
    from sahab.commands.plan import stack_name

    parser.add_argument("--stack", "-s", default="dev", type=stack_name,
                        help="stack name: reads Pulumi.<stack>.yaml (default: dev)")
    parser.add_argument("--program", metavar="DIR", default=None,
                        help="folder holding Pulumi.yaml (default: the nearest one from the current folder up)")


def _registry_options(parser: argparse.ArgumentParser) -> None:
    from sahab.components.registry_config import Registries

    # One registry per cluster kind: the kinds with a registry are the registries schema's fields.
    parser.add_argument("--kind", choices=tuple(Registries.model_fields), action="append", default=None,
                        help="only the registry of this kind of cluster (repeatable; default: every one)")
    parser.add_argument("--ca-file", metavar="PEM", type=_ca_file, default=None,
                        help="a CA to trust for the in-country registries (default: the system's)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="every artifact of the stack: source, target, digest",
                                 description=HELP)
    _common(listing)
    listing.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    listing.add_argument("--output", "-o", metavar="FILE", default=None,
                         help="write the seed list here (default: stdout)")
    seeding = actions.add_parser("seed", help="copy the stack's artifacts into its registries (skopeo or crane)",
                                 description="Copy each artifact the stack's registries must hold from its upstream, "
                                             "or from an OCI layout, with skopeo (else crane).")
    _common(seeding)
    _registry_options(seeding)
    seeding.add_argument("--from", dest="layout", metavar="DIR", type=_layout, default=None,
                         help="an OCI image layout to copy from (an airgapped site's transfer disk) instead of the "
                              "upstreams")
    seeding.add_argument("--all", action="store_true",
                         help="also copy what the registries would cache on first pull (default: only `seed` and, "
                              "from a layout, `build` entries)")
    pinning = actions.add_parser("pin", help="record each artifact's digest, as its registry answers, in digests.lock",
                                 description="Ask each registry (v2 API) for the digest of every artifact of the "
                                             "stack and record them in the stack config folder's digests.lock.")
    _common(pinning)
    _registry_options(pinning)


def document(project: str, stack: str, fleet, entries) -> dict:
    from sahab.schema import versions

    return {
        **versions(),
        "project": project,
        "stack": stack,
        "registries": {kind: fleet.registries.host_of(kind) for kind, registry in fleet.registries if registry},
        "artifacts": [{"kind": e.kind, "clusterKind": e.cluster_kind, "how": e.how, "source": e.source,
                       "target": e.target, "version": e.version, "digest": e.digest} for e in entries],
    }


def text(doc: dict) -> str:
    lines = [f"# sahab registry list --stack {doc['stack']}: {len(doc['artifacts'])} artifacts",
             "# how: cache = the registry pulls it through on first use; seed = copy it in (sahab registry seed); "
             "build = build it from this repository and push it",
             "# " + "\t".join(COLUMNS)]
    for a in doc["artifacts"]:
        lines.append("\t".join((a["kind"], a["clusterKind"], a["how"], a["source"], a["target"], a["digest"] or "-")))
    return "\n".join(lines) + "\n"


def _project(program_dir):
    from sahab.project import find_project, project_dir

    return find_project(project_dir(program_dir))


def registry_document(program_dir, stack_name: str) -> dict:
    """The document of a program's stack (`sahab evidence` lists the same artifacts)."""
    from sahab.registry.stack import entries

    project = _project(program_dir)
    fleet, found = entries(project, stack_name)
    return document(project.name, stack_name, fleet, found)


def run(args: argparse.Namespace) -> int:
    return {"list": _list, "seed": _seed, "pin": _pin}[args.action](args)


def _list(args: argparse.Namespace) -> int:
    import json
    import sys
    from pathlib import Path

    if args.output:
        from sahab.workloads.outputs import check_writable

        check_writable("--output", Path(args.output), make_folders=False)
    doc = registry_document(args.program, args.stack)
    out = json.dumps(doc, indent=2) + "\n" if args.format == "json" else text(doc)
    if args.output:
        from sahab.errors import UsageError
        from sahab.workloads.outputs import write_atomic

        try:
            write_atomic(args.output, out)
        except OSError as exc:
            raise UsageError(f"--output {args.output}: {exc.strerror or exc}") from None
        print(f"wrote {len(doc['artifacts'])} artifacts to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(out)
    if not doc["registries"]:
        print("warning: the stack names no registry (sahab:fleet.registries): nothing to seed; its clusters pull "
              "from the upstream registries", file=sys.stderr)
    return 0


def _selected(args: argparse.Namespace):
    from sahab.errors import UsageError
    from sahab.registry.stack import entries

    project = _project(args.program)
    fleet, found = entries(project, args.stack)
    kinds = args.kind or [kind for kind, _ in fleet.registries]
    missing = [k for k in kinds if not fleet.registries.host_of(k)]
    if args.kind and missing:
        raise UsageError(f"--kind {missing[0]}: the stack names no {missing[0]} registry (sahab:fleet.registries)")
    return project, [e for e in found if e.cluster_kind in kinds]


def _seed(args: argparse.Namespace) -> int:
    import sys

    from sahab.registry.seed import plan_copies, seed

    _, found = _selected(args)
    copies, notes = plan_copies(found, args.layout, args.all or args.layout is not None)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    failures = seed(copies, args.ca_file)
    for failure in failures:
        print(f"failed: {failure}", file=sys.stderr)
    print(f"{len(copies) - len(failures)} of {len(copies)} artifacts seeded", file=sys.stderr)
    return 1 if failures else 0


def _pin(args: argparse.Namespace) -> int:
    import sys

    from sahab.registry.pin import pin, write_lock
    from sahab.registry.stack import digest_lock

    project, found = _selected(args)
    digests, failures = pin(found, args.ca_file)
    lock = digest_lock(project)
    if digests:
        write_lock(lock, digests)
    for failure in failures:
        print(f"failed: {failure}", file=sys.stderr)
    print(f"{len(digests)} digests recorded in {lock}", file=sys.stderr)
    if not failures and not args.kind:  # with --kind, the stack's other registries may not be pinned yet
        _waivers_left(args.stack)
    return 1 if failures else 0


def _waivers_left(stack: str) -> None:
    """Every image of the stack is pinned: say which digest-rule waivers of the stack no longer have a reason."""
    import sys

    from sahab.policies.waivers import load_waivers

    left = [w for w in load_waivers() if w.policy in (DIGEST_RULE, "SAHAB-K8S-013")
            and w.resource.startswith(f"urn:pulumi:{stack}::")]
    if left:
        print(f"note: every artifact of {stack} is pinned; policies/waivers.yaml still waives {DIGEST_RULE} for it "
              f"({len(left)} entries): delete them", file=sys.stderr)
