"""`sahab forwarders`: the conditional forwarders a site's DNS servers need, to the clouds' inbound resolvers."""

from __future__ import annotations

import argparse

HELP = ("Print the conditional forwarders each site's DNS servers need to resolve the clouds' private names "
        "(EKS, ECR, AKS, ACR, Blob, Key Vault) through the inbound resolvers, in the site's DNS software's format. "
        "The resolvers' addresses are fixed: apply this before the first `pulumi up`.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from sahab.commands.plan import stack_name

    parser.add_argument("--stack", "-s", default="dev", type=stack_name,
                        help="stack name: reads Pulumi.<stack>.yaml (default: dev)")
    parser.add_argument("--program", metavar="DIR", default=None,
                        help="folder holding Pulumi.yaml (default: this Sahab project)")
    parser.add_argument("--site", default=None, help="only this site (default: every site with links)")


def run(args: argparse.Namespace) -> int:
    import json
    import sys

    from sahab.components.fleet_config import parse_fleet
    from sahab.components.hybrid_plan import render_forwarders, site_forwarders
    from sahab.errors import UsageError
    from sahab.project import find_project, load_stack, project_dir

    project = find_project(project_dir(args.program))
    raw = load_stack(project, args.stack).values.get("sahab:fleet")
    fleet = parse_fleet(json.loads(raw)) if raw is not None else None
    linked = [s for s in (fleet.sites if fleet else ()) if s.links]
    if args.site is not None:
        chosen = [s for s in linked if s.name == args.site]
        if not chosen:
            raise UsageError(f"--site: {args.site!r} is not a site of stack {args.stack} with links; allowed: "
                             f"{', '.join(s.name for s in linked) or 'none'}")
        linked = chosen
    if not linked:
        print(f"no site of stack {args.stack} links to a cloud: nothing to forward", file=sys.stderr)
        return 1
    for i, site in enumerate(linked):
        if len(linked) > 1:
            print(("\n" if i else "") + f"{'//' if site.dns.software == 'bind' else '#'} site {site.name}")
        print(render_forwarders(site.dns.software, site_forwarders(fleet, site)), end="")
    return 0
