"""Benchmark `sahab audit aws` against a moto server on loopback.

For each fleet size (default 250 and 1,000 buckets, and as many EBS volumes), a moto server
(`ThreadedMotoServer` on 127.0.0.1, in a child process so it does not share the scanner's GIL) is seeded
through moto's backends, then scanned over HTTP exactly as the CLI does: every enabled region, all services,
one thread pool. It prints the scan time and the API calls (counted with botocore's `before-call` event),
split into listings (must not grow with the fleet) and per-resource reads (must be constant per resource),
then the same scan with one worker to show what the region x service parallelism buys.

    /work/main/.venv/bin/python benchmarks/audit_scan.py [--sizes 250 1000] [--workers 16]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ACCOUNT = "123456789012"
REGIONS = ("me-central-1", "eu-west-1")  # half the fleet in the allowed region, half outside it


def _serve(size: int, ready: mp.Queue, stop: mp.Event) -> None:
    import logging

    os.environ["MOTO_EC2_LOAD_DEFAULT_AMIS"] = "false"  # no public AMI snapshots in every region
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no access log line per request
    from moto.ec2.models import ec2_backends
    from moto.moto_server.threaded_moto_server import ThreadedMotoServer
    from moto.s3.models import s3_backends

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    for i in range(size):
        region = REGIONS[i % 2]
        s3_backends[ACCOUNT]["aws"].create_bucket(f"fleet-{i:05d}", region)
        ec2_backends[ACCOUNT][region].create_volume(size=8, zone_name=f"{region}a", encrypted=False)
    ready.put(server.get_host_and_port())
    stop.wait()
    server.stop()


def measure(size: int, workers: int) -> dict:
    from sahab.audit.clients import ClientFactory
    from sahab.audit.evaluate import evaluate
    from sahab.audit.scanner import ScanOptions, scan

    ctx = mp.get_context("spawn")
    ready, stop = ctx.Queue(), ctx.Event()
    server = ctx.Process(target=_serve, args=(size, ready, stop), daemon=True)
    server.start()
    try:
        host, port = ready.get(timeout=300)
        assert host == "127.0.0.1"
        url = f"http://{host}:{port}"
        clients = ClientFactory(endpoint_url=url, max_pool_connections=workers * 2)
        started = time.perf_counter()
        result = scan(ScanOptions(endpoint_url=url, max_workers=workers), clients)
        scan_seconds = time.perf_counter() - started
        started = time.perf_counter()
        evaluation = evaluate(result.resources, ["me-central-1"], [])
        eval_seconds = time.perf_counter() - started
    finally:
        stop.set()
        server.join(timeout=30)
    assert not result.errors, result.errors
    buckets = sum(r.type == "aws:s3/bucket:Bucket" for r in result.resources)
    volumes = sum(r.type == "aws:ebs/volume:Volume" for r in result.resources)
    assert (buckets, volumes) == (size, size), (buckets, volumes)
    per_resource_ops = {"s3.GetBucketLocation", "s3.GetBucketEncryption", "s3.GetPublicAccessBlock",
                        "s3.GetBucketPolicy", "s3.GetBucketReplication", "s3.GetBucketVersioning"}
    per_resource = sum(n for op, n in result.api_calls.items() if op in per_resource_ops)
    return {
        "size": size, "workers": workers, "regions": len(result.regions), "seconds": scan_seconds,
        "eval_seconds": eval_seconds, "calls": result.total_api_calls, "per_resource_calls": per_resource,
        "listing_calls": result.total_api_calls - per_resource, "resources": buckets + volumes,
        "findings": len(evaluation.findings),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[250, 1000], help="buckets (and volumes) per run")
    parser.add_argument("--workers", type=int, default=16, help="scanner thread pool size")
    parser.add_argument("--no-sequential", action="store_true", help="skip the one-worker comparison")
    args = parser.parse_args()
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "benchmark")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "benchmark")
    os.environ["AWS_DEFAULT_REGION"] = "us-east-1"
    os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1"  # loopback, never through a proxy

    runs = [measure(size, args.workers) for size in args.sizes]
    if not args.no_sequential:
        runs.append(measure(max(args.sizes), 1))
    print(f"{'buckets+volumes':>16} {'workers':>7} {'regions':>7} {'scan s':>7} {'rules s':>7} {'API calls':>9} "
          f"{'listing':>7} {'per-res':>7} {'calls/resource':>14} {'per-res/resource':>16} {'findings':>8}")
    for r in runs:
        print(f"{r['size']:>7}+{r['size']:<8} {r['workers']:>7} {r['regions']:>7} {r['seconds']:>7.2f} "
              f"{r['eval_seconds']:>7.2f} {r['calls']:>9} {r['listing_calls']:>7} {r['per_resource_calls']:>7} "
              f"{r['calls'] / r['resources']:>14.3f} {r['per_resource_calls'] / r['resources']:>16.3f} "
              f"{r['findings']:>8}")
    small, large = runs[0], runs[len(args.sizes) - 1]
    if small is not large:
        print(f"listing calls {small['listing_calls']} -> {large['listing_calls']} as the fleet grows "
              f"{large['size'] / small['size']:.0f}x; per-resource calls per resource "
              f"{small['per_resource_calls'] / small['resources']:.3f} -> "
              f"{large['per_resource_calls'] / large['resources']:.3f}")
    if not args.no_sequential:
        sequential = runs[-1]
        print(f"parallel speed-up at {large['size']}+{large['size']}: "
              f"{sequential['seconds'] / large['seconds']:.2f}x ({args.workers} workers vs 1)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
