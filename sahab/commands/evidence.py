"""`sahab evidence`: a signed, verifiable compliance bundle of a stack (see sahab/evidence/__init__.py).

    sahab evidence --stack S --out DIR --key KEY [--audit FILE]   write and sign a bundle
    sahab evidence verify DIR --public-key PUB                       judge it: exit 0 holds, 1 differs
    sahab evidence diff A B                                          what changed between two bundles
"""

from __future__ import annotations

import argparse

HELP = "Write a signed compliance evidence bundle of a stack (control matrix, waivers, readiness, artifacts); " \
       "verify or diff bundles."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from sahab.commands.plan import stack_name
    from sahab.workloads.inputs import input_file, seconds_option

    parser.epilog = ("Exit codes: 0 written (or verified, or no control newly failing); 1 a bundle that does not "
                     "verify, or a diff in which a control newly fails; 2 bad input.")
    parser.add_argument("--stack", "-s", default="dev", type=stack_name,
                        help="stack name: reads Pulumi.<stack>.yaml (default: dev)")
    parser.add_argument("--program", metavar="DIR", default=None,
                        help="folder holding Pulumi.yaml (default: this Sahab project)")
    parser.add_argument("--out", "-o", metavar="DIR", default=None,
                        help="the bundle's folder: new or empty (required)")
    parser.add_argument("--key", metavar="FILE", default=None,
                        help="the organisation's Ed25519 private key, PEM (required; an encrypted key's passphrase "
                             "in $SAHAB_EVIDENCE_KEY_PASSPHRASE)")
    parser.add_argument("--audit", metavar="FILE", default=None,
                        type=input_file("the JSON file `sahab audit aws --evidence FILE` wrote"),
                        help="merge in a live audit: the file `sahab audit aws --evidence FILE` wrote")
    parser.add_argument("--policy-config", metavar="FILE", default=None, type=input_file("a policy config JSON file"),
                        help="enforcement levels and settings, as for `sahab check`")
    parser.add_argument("--waivers", metavar="FILE", default=None, type=input_file("a waivers YAML file"),
                        help="waivers file (default: the pack's policies/waivers.yaml)")
    parser.add_argument("--timeout", type=seconds_option(0, 86400), metavar="SECONDS", default=None,
                        help="stop a program that runs longer (default: $SAHAB_PROGRAM_TIMEOUT or 300)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress line on stderr")
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    verify = actions.add_parser("verify", help="judge a bundle: every file against its signed statement",
                                description="Judge a bundle: the signature under PUB, then every file against the "
                                            "signed statement (changed, missing, added). Exit 0 holds, 1 differs.")
    verify.add_argument("bundle", metavar="DIR")
    verify.add_argument("--public-key", metavar="PUB", default=None,
                        help="the organisation's Ed25519 public key, PEM (required)")
    diff = actions.add_parser("diff", help="what changed between two bundles",
                              description="Resources added and removed, verdicts changed, waivers added or "
                                          "expired, controls newly failing from bundle A to bundle B. Exit 1 when "
                                          "a control newly fails.")
    diff.add_argument("before", metavar="A")
    diff.add_argument("after", metavar="B")
    diff.add_argument("--public-key", metavar="PUB", default=None,
                      help="verify both bundles with this key first (default: compare them unverified)")
    diff.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")


def run(args: argparse.Namespace) -> int:
    if args.action == "verify":
        return _verify(args)
    if args.action == "diff":
        return _diff(args)
    return _build(args)


def _required(value, option: str, allowed: str):
    from sahab.errors import UsageError

    if not value:
        raise UsageError(f"{option}: required; allowed: {allowed}")
    return value


def _build(args: argparse.Namespace) -> int:
    import sys
    from pathlib import Path

    from sahab.engine import plan
    from sahab.evidence import bundle, signing
    from sahab.evidence.provenance import generated_at
    from sahab.policy_check import policy_config_layers, preload
    from sahab.progress import spinner
    from sahab.project import project_dir

    out = Path(_required(args.out, "--out", "a new or empty folder for the bundle"))
    signer = signing.load_signer(Path(_required(args.key, "--key", signing.KEY_HELP)))
    bundle.require_empty_folder(out)
    audit, audit_raw = bundle.read_audit(Path(args.audit)) if args.audit else (None, None)
    program_dir = project_dir(args.program)
    layers = policy_config_layers(program_dir, args.stack, args.policy_config)
    when = generated_at()

    preload()
    with spinner(f"gathering evidence for {args.stack}", args.quiet):
        planned = plan(program_dir, args.stack, preview=True, timeout=args.timeout)
        doc = bundle.collect(planned, layers=layers, waivers_path=args.waivers, when=when, audit=audit,
                             audit_sha256=_sha256(audit_raw))
    for warning in planned.notices:
        print(f"warning: {warning}", file=sys.stderr)
    written = bundle.write(doc, out, signer, audit_raw)
    s = doc["summary"]
    failing = s["controls"].get("fail", 0)
    print(f"sahab evidence {doc['stack']}: {len(written)} files in {out}, signed by key id {signer.public_key.keyid}; "
          f"policy {'passed' if s['passed'] else 'failed'}, readiness {'ready' if s['ready'] else 'not ready'}, "
          f"{failing} control(s) failing", file=sys.stderr)
    return 0


def _sha256(raw: bytes | None) -> str | None:
    import hashlib

    return hashlib.sha256(raw).hexdigest() if raw is not None else None


def _verify(args: argparse.Namespace) -> int:
    from pathlib import Path

    from sahab.evidence import signing

    key = signing.load_public_key(Path(_required(args.public_key, "--public-key", signing.PUBLIC_KEY_HELP)))
    verdict = signing.verify(Path(args.bundle), key)
    for problem in verdict.problems:
        print(problem)
    if verdict.ok:
        p = verdict.predicate or {}
        print(f"verified: {verdict.files} files of {p.get('project')}/{p.get('stack')} ({p.get('generatedAt')}) "
              f"match the statement signed by key id {verdict.keyid}")
        return 0
    print(f"FAILED: {args.bundle} does not match its signed statement ({len(verdict.problems)} difference(s))")
    return 1


def _diff(args: argparse.Namespace) -> int:
    import json
    import sys
    from pathlib import Path

    from sahab.evidence import diff, signing

    if args.public_key:
        key = signing.load_public_key(Path(args.public_key))
        for folder in (args.before, args.after):
            verdict = signing.verify(Path(folder), key)
            if not verdict.ok:
                for problem in verdict.problems:
                    print(f"{folder}: {problem}")
                print(f"FAILED: {folder} does not verify; not compared")
                return 1
    changes = diff.compare(diff.load(Path(args.before)), diff.load(Path(args.after)))
    if args.format == "json":
        sys.stdout.write(json.dumps(changes, indent=2) + "\n")
    else:
        sys.stdout.write(diff.text(changes))
    return 1 if changes["controlsNewlyFailing"] else 0
