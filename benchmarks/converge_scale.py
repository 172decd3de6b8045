"""Converge time of Sahab's playbook for 1, 2 and 4 real Debian 12 hosts in one run.

Each size gets fresh hosts (the cached debootstrap tree, overlaid), converged once through the same driver
the OnPremNodePool resource uses (ansible-runner over SSH). Half the hosts are GPU-group, half CPU-group.
Target: 4 hosts in at most 1.5x the time of one.

    sudo .venv/bin/python benchmarks/converge_scale.py [--sizes 1 2 4] [--slowest 10]
"""

from __future__ import annotations

import argparse
import collections
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sahab.components.onprem.host_args import OnPremHostArgs
from sahab.components.onprem.inventory import base_variables, group_for, hosts_for, pool_host_vars
from sahab.components.onprem.runner import run_playbook

from tools import testhost

# The test hosts' mirror is Debian 12's archive: its containerd is 1.6 (sites mirror containerd.io 2.x).
TEST_VARIABLES = {"sahab_os_apt_cache_valid_time": 10**9, "sahab_kubernetes_packages_required": False,
                  "sahab_containerd_packages": ["containerd"], "sahab_containerd_min_major": 1}


def _cpu_seconds() -> float:
    """CPU time of every finished child: after a run, ansible-playbook and its workers (the controller)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def converge(size: int, lower: Path, key: Path, public_key: str, workdir: Path) -> tuple[float, float, float, dict]:
    hosts, inventory = [], []
    try:
        for i in range(size):
            accelerator = "nvidia-a100" if i % 2 == 0 else "cpu"
            host = testhost.TestHost(f"node-{size}-{i}", 20 + i, workdir / f"node-{size}-{i}")
            hosts.append(host)
            host.create(lower, public_key)
            host.start()
            spec = OnPremHostArgs(name=host.name, address=host.address, port=host.port)
            inventory += hosts_for(
                [spec], group_for(accelerator), pool_host_vars("bench", accelerator, {}, [])
            )
        known_hosts = "\n".join(h.known_hosts_line for h in hosts)
        variables = base_variables(True, True, TEST_VARIABLES)
        cpu_before = _cpu_seconds()
        started = time.perf_counter()
        result = run_playbook(
            inventory, private_key=key.read_text(), known_hosts=known_hosts, variables=variables
        )
        elapsed = time.perf_counter() - started
        controller_cpu = _cpu_seconds() - cpu_before
        hosts_cpu = sum(h.cpu_seconds() for h in hosts)
        bad = result.failed_hosts
        if bad:
            raise SystemExit(f"{size} hosts: {', '.join(f'{n}: {result.outcomes[n].message}' for n in bad)}")
    finally:
        for host in hosts:
            host.destroy()
    return elapsed, controller_cpu, hosts_cpu, result.task_seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--slowest", type=int, default=0, help="also print the N slowest tasks of each run")
    args = parser.parse_args()
    reason = testhost.unavailable_reason()
    if reason:
        print(f"error: {reason}", file=sys.stderr)
        return 2
    lower = testhost.base_rootfs()
    workdir = Path(tempfile.mkdtemp(prefix="sahab-bench-"))
    try:
        key, public_key = testhost.generate_client_key(workdir)
        times = {}
        for size in args.sizes:
            times[size], controller_cpu, hosts_cpu, tasks = converge(size, lower, key, public_key, workdir)
            print(f"{size} host(s): {times[size]:6.1f} s wall; CPU: controller {controller_cpu:5.1f} s, "
                  f"inside the hosts {hosts_cpu:5.1f} s")
            for task, seconds in collections.Counter(tasks).most_common(args.slowest):
                print(f"    {seconds:6.1f} s  {task}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    smallest, largest = min(times), max(times)
    ratio = times[largest] / times[smallest]
    verdict = "meets" if ratio <= 1.5 else "misses"
    print(f"ratio {largest} hosts / {smallest} host(s): {ratio:.2f} ({verdict} the 1.5x target)")
    # The test hosts share this machine's CPUs; real servers each bring their own, so only the controller's
    # share of the work competes there.
    print(f"machine: {os.cpu_count()} CPUs shared by the controller and every test host; "
          f"load average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
