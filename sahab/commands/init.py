"""`sahab init`: probe a small business's servers over SSH and write the stack that brings them up."""

from __future__ import annotations

import argparse

HELP = ("Probe servers over SSH, propose a fleet for them and write stacks/Pulumi.NAME.yaml with a comment on "
        "each choice, then judge it (schema, readiness, policy); exit 2 with one line per reason when it cannot.")

EMIRATES = ("abu-dhabi", "dubai", "sharjah", "ajman", "umm-al-quwain", "ras-al-khaimah", "fujairah")


def _name(text: str) -> str:
    from sahab.commands.plan import stack_name
    from sahab.starter.propose import NAME

    stack_name(text)
    if not NAME.match(text):
        raise argparse.ArgumentTypeError(f"{text!r} is not allowed; allowed: a lower-case DNS label of 2-24 "
                                         "letters, digits and -, e.g. office (it names the site, cluster and pools)")
    return text


def _host(text: str) -> tuple[str, int]:
    """ADDR, ADDR:PORT, [IPv6] or [IPv6]:PORT."""
    import re

    from sahab.components.validation import host_address

    found = re.fullmatch(r"\[(?P<v6>[0-9A-Fa-f:.]+)\](?::(?P<p6>[0-9]{1,5}))?"
                         r"|(?P<v4>[^:\[\]]+)(?::(?P<p4>[0-9]{1,5}))?", text) \
        or re.fullmatch(r"(?P<bare>[0-9A-Fa-f:]+)", text)
    if not found:
        raise argparse.ArgumentTypeError(f"{text!r}: allowed: ADDR, ADDR:PORT or [IPv6]:PORT")
    groups = found.groupdict()
    address = groups.get("v6") or groups.get("v4") or groups.get("bare")
    port = int(groups.get("p6") or groups.get("p4") or 22)
    problem = host_address(address)
    if problem or not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r}: allowed: {problem or 'a port from 1 to 65535'}")
    return address, port


def _data_disk(text: str) -> tuple[str, str]:
    host, sep, device = text.partition("=")
    if not sep or not host or not (device == "none" or device.startswith("/dev/")):
        raise argparse.ArgumentTypeError(f"{text!r}: allowed: HOST=/dev/disk/by-id/..., HOST=/dev/NAME or HOST=none")
    return host, device


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from sahab.workloads.inputs import input_file, seconds_option

    parser.add_argument("name", type=_name, metavar="NAME", help="the stack to write: stacks/Pulumi.NAME.yaml")
    parser.add_argument("--host", action="append", type=_host, required=True, metavar="ADDR[:PORT]",
                        help="a server, reached over SSH; repeat for each (the first runs the control plane)")
    parser.add_argument("--user", default="sahab", help="the SSH account on every server; it needs passwordless "
                                                        "sudo, as Ansible does (default: sahab)")
    parser.add_argument("--identity", metavar="FILE", type=input_file("an SSH private key file"),
                        help="SSH private key (default: your ssh-agent and keys)")
    parser.add_argument("--accept-new-host-keys", action="store_true",
                        help="trust a server's SSH host key on first contact and record it in the stack (Ansible "
                             "then trusts only the recorded keys); without it, keys must be in your known_hosts")
    parser.add_argument("--non-interactive", action="store_true", help="take the proposal; ask nothing")
    parser.add_argument("--force", action="store_true",
                        help="replace an existing stack file, keeping the old one as Pulumi.NAME.yaml.bak")
    parser.add_argument("--emirate", choices=EMIRATES, help="where the servers stand (residency evidence)")
    parser.add_argument("--city", help="the city they stand in (default: the emirate's)")
    parser.add_argument("--control-plane-trains", choices=("yes", "no"), default="yes",
                        help="whether the first host also trains (default: yes)")
    parser.add_argument("--pools", choices=("by-class", "single"), default="by-class",
                        help="one pool per hardware class, or one pool for all (refused when classes differ)")
    parser.add_argument("--data-disk", action="append", type=_data_disk, default=[], metavar="HOST=DEVICE",
                        help="the disk for HOST's encrypted data volume (default: its largest unused disk)")
    parser.add_argument("--no-encryption", action="store_true",
                        help="propose no data volumes (pods then get no encrypted volumes); default: every "
                             "training host needs an unused disk")
    parser.add_argument("--team", default="training", help="the team that trains (default: training)")
    parser.add_argument("--registry-mirror", metavar="HOST[:PORT]", help="the site's registry mirror (default: none)")
    parser.add_argument("--bench", action="store_true",
                        help="run `sahab bench` on every server over SSH and save each one's baseline beside the "
                             "stack (stacks/NAME.baselines/HOST.json)")
    parser.add_argument("--bench-command", default="sahab bench", metavar="CMD",
                        help="how a server runs the benchmark (default: sahab bench)")
    parser.add_argument("--program", metavar="DIR", default=None,
                        help="folder holding Pulumi.yaml (default: this Sahab project)")
    parser.add_argument("--timeout", type=seconds_option(0, 3600), default=60.0, metavar="SECONDS",
                        help="per-server budget for the probe (default: 60)")


def run(args: argparse.Namespace) -> int:
    import sys

    from sahab.errors import UsageError
    from sahab.project import find_project, project_dir
    from sahab.starter import session
    from sahab.starter.propose import Choices

    project = find_project(project_dir(args.program))
    path = project.stack_config_dir / f"Pulumi.{args.name}.yaml"
    if path.exists() and not args.force:
        raise UsageError(f"{path}: already exists; rerun with --force to replace it (the old file is kept as "
                         f"{path.name}.bak)")
    if len(set(args.host)) != len(args.host):
        raise UsageError("--host: a server is given twice")
    if args.non_interactive and not args.emirate:
        raise UsageError(f"--emirate: required with --non-interactive (where the servers stand, for the residency "
                         f"evidence); allowed: {', '.join(EMIRATES)}")
    choices = Choices(
        name=args.name, emirate=args.emirate, city=args.city, user=args.user,
        control_plane_trains=args.control_plane_trains == "yes", pools=args.pools,
        data_disks=dict(args.data_disk), team=args.team, registry_mirror=args.registry_mirror,
        encryption_required=not args.no_encryption)
    return session.init(project, path, args.host, choices, identity=str(args.identity) if args.identity else None,
                        accept_new=args.accept_new_host_keys, interactive=not args.non_interactive,
                        probe_timeout=args.timeout, bench_command=args.bench_command if args.bench else None,
                        out=sys.stdout)
