"""What `sahab check` adds to `sahab plan` on a synthetic ~1,000-resource program.

Writes a Pulumi program to a temporary folder: N "tenants", each an encrypted bucket with its separate
encryption, TLS-only policy, public-access block and versioning, a rotated KMS key and alias, an encrypted EBS
volume, a launch template and an IAM role (10 resources per tenant, plus the default provider). Plans it once
to warm the imports, then in one run times the preview alone (`sahab plan`) and the check (preview and update
runs, then the policy pack over them) (interleaved, medians of --repeat runs), and prints both and the ratio,
also taken within each run; then the same end to end: `sahab plan` and `sahab check` each in a fresh interpreter.
Times are CPU seconds of this process and the program's processes by default, which the load of other processes
on the machine does not distort.

    python benchmarks/check_overhead.py [--tenants 100] [--repeat 3]
"""

from __future__ import annotations

import argparse
import gc
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PROGRAM = '''
import json

import pulumi
import pulumi_aws as aws

for i in range({tenants}):
    name = f"t{{i:04d}}"
    key = aws.kms.Key(f"{{name}}-key", enable_key_rotation=True, deletion_window_in_days=30)
    aws.kms.Alias(f"{{name}}-alias", name=f"alias/{{name}}", target_key_id=key.key_id)
    bucket = aws.s3.Bucket(f"{{name}}-data")
    aws.s3.BucketServerSideEncryptionConfiguration(f"{{name}}-sse", bucket=bucket.id, rules=[{{
        "apply_server_side_encryption_by_default": {{"sse_algorithm": "aws:kms", "kms_master_key_id": key.arn}},
        "bucket_key_enabled": True}}])
    aws.s3.BucketPolicy(f"{{name}}-tls", bucket=bucket.id, policy=bucket.arn.apply(lambda arn: json.dumps({{
        "Version": "2012-10-17", "Statement": [{{"Effect": "Deny", "Principal": "*", "Action": "s3:*",
        "Resource": [arn, f"{{arn}}/*"], "Condition": {{"Bool": {{"aws:SecureTransport": "false"}}}}}}]}})))
    aws.s3.BucketPublicAccessBlock(f"{{name}}-pab", bucket=bucket.id, block_public_acls=True,
                                   block_public_policy=True, ignore_public_acls=True, restrict_public_buckets=True)
    aws.s3.BucketVersioning(f"{{name}}-versioning", bucket=bucket.id,
                            versioning_configuration={{"status": "Enabled"}})
    aws.ebs.Volume(f"{{name}}-scratch", availability_zone="me-central-1a", size=100, encrypted=True,
                   kms_key_id=key.arn)
    aws.ec2.LaunchTemplate(f"{{name}}-nodes", metadata_options={{"http_tokens": "required"}},
                           block_device_mappings=[{{"device_name": "/dev/xvda", "ebs": {{
                               "encrypted": "true", "kms_key_id": key.arn, "volume_size": 200}}}}])
    aws.iam.Role(f"{{name}}-role", assume_role_policy=json.dumps({{"Version": "2012-10-17", "Statement": [{{
        "Effect": "Allow", "Principal": {{"Service": "ec2.amazonaws.com"}}, "Action": "sts:AssumeRole"}}]}}))
'''


def write_program(folder: Path, tenants: int) -> None:
    (folder / "Pulumi.yaml").write_text("name: check-bench\nruntime: python\n")
    (folder / "Pulumi.bench.yaml").write_text("config:\n  aws:region: me-central-1\n")
    (folder / "__main__.py").write_text(PROGRAM.format(tenants=tenants))


def cli_cost(folder: Path, command: str, wall: bool) -> float:
    """Run `sahab <command>` on the program in a fresh interpreter; its CPU (or wall) seconds."""
    argv = [sys.executable, "-m", "sahab", command, "--program", str(folder), "--stack", "bench", "--format", "json"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"sahab {command} failed: {done.stderr.decode().strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed if wall else cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tenants", type=int, default=100, help="10 resources each (default: 100)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each, medians reported (default: 3)")
    parser.add_argument("--cli", action=argparse.BooleanOptionalAction, default=True,
                        help="also time `sahab plan` and `sahab check` end to end, each in a fresh interpreter")
    parser.add_argument("--wall", action="store_true",
                        help="time wall-clock instead of the process's CPU time (default: CPU, which other load "
                             "on the machine does not distort)")
    args = parser.parse_args()
    def cpu() -> float:  # this process and the program processes it has waited for
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        return time.process_time() + children.ru_utime + children.ru_stime

    clock = time.perf_counter if args.wall else cpu

    from sahab.engine import plan, plan_phases
    from sahab.policy_check import check_plan

    with tempfile.TemporaryDirectory(prefix="sahab-check-bench-") as tmp:
        folder = Path(tmp)
        write_program(folder, args.tenants)
        plan(folder, "bench", preview=True)  # warm-up: imports and first-run caches, kept out of both timings
        alone, combined, checks = [], [], []
        for _ in range(args.repeat):  # interleaved, so drift in the machine's speed hits both alike
            gc.collect()  # the previous plan's garbage is collected here, not inside the next timing
            start = clock()
            plan(folder, "bench", preview=True)
            alone.append(clock() - start)

            gc.collect()
            start = clock()
            preview, update = plan_phases(folder, "bench")
            planned_at = clock()
            result = check_plan(preview, update=update)
            combined.append(clock() - start)
            checks.append(clock() - planned_at)

        cli_plan, cli_check = [], []
        if args.cli:
            for _ in range(args.repeat):
                cli_plan.append(cli_cost(folder, "plan", args.wall))
                cli_check.append(cli_cost(folder, "check", args.wall))

    plan_alone, plan_and_check, check_only = (statistics.median(x) for x in (alone, combined, checks))
    resources = len([r for r in preview.resources if r.type != "pulumi:pulumi:Stack"])
    # Plan-to-plan variance (GC, the machine's other load) is several times the check's own cost, so the ratio
    # is taken within each run: the plan that ran, then the check over it.
    same_run = statistics.median((c / (c - k)) for c, k in zip(combined, checks, strict=True))
    print(f"resources planned:        {resources}")
    print(f"policies run:             {result.summary()['policies']}")
    print(f"violations:               {len(result.violations)} ({len(result.mandatory)} mandatory)")
    print(f"runs (median of):         {args.repeat}, {'wall-clock' if args.wall else 'process CPU'} time")
    print(f"sahab plan alone:         {plan_alone:.3f} s   runs: {', '.join(f'{t:.2f}' for t in alone)}")
    print(f"sahab plan + check:       {plan_and_check:.3f} s   runs: {', '.join(f'{t:.2f}' for t in combined)}")
    print(f"  of which check:         {check_only:.3f} s")
    print(f"ratio of medians (plan+check)/(plan alone): {plan_and_check / plan_alone:.3f}  (noisy)")
    print(f"ratio within each run (plan+check)/plan:    {same_run:.3f}  (target: <= 1.10)")
    if cli_plan:
        p, c = statistics.median(cli_plan), statistics.median(cli_check)
        print(f"end to end, `sahab plan --format json`:  {p:.3f} s   runs: {', '.join(f'{t:.2f}' for t in cli_plan)}")
        print(f"end to end, `sahab check --format json`: {c:.3f} s   runs: {', '.join(f'{t:.2f}' for t in cli_check)}")
        print(f"end-to-end ratio check/plan:             {c / p:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
