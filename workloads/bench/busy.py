"""How busy the node was while a probe ran: the share of this process's CPUs that went to someone else.

A slow result on a node whose CPUs were taken by other processes (a noisy neighbour, a runaway job, a
hypervisor stealing time) says nothing about the hardware: such a run is inconclusive, not a failure.
Measured from /proc/stat over the CPUs this process may run on (busy time, steal included) less this
process's own CPU time and its reaped children's (/proc/self/stat).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

BUSY_SHARE = 0.35  # others took more than a third of our CPUs: a slow figure is not the hardware's fault


@dataclass(frozen=True)
class CpuTicks:
    busy: int  # on our CPUs: user, nice, system, irq, softirq, steal
    total: int  # on our CPUs: every state
    own: int  # this process and its reaped children: utime, stime, cutime, cstime


def read_ticks(cpus: set[int] | None = None) -> CpuTicks | None:
    """Tick counters now; None where /proc is not Linux's."""
    cpus = os.sched_getaffinity(0) if cpus is None else cpus
    busy = total = 0
    try:
        with open("/proc/stat") as f:
            for line in f:
                name, *fields = line.split()
                if not name.startswith("cpu") or name == "cpu" or int(name[3:]) not in cpus:
                    continue
                # user nice system idle iowait irq softirq steal [guest guest_nice: already in user]
                values = [int(v) for v in fields[:8]]
                total += sum(values)
                busy += sum(values) - values[3] - values[4]
        with open("/proc/self/stat") as f:
            stat = f.read().rsplit(")", 1)[1].split()
        own = sum(int(v) for v in stat[11:15])  # fields 14-17 of proc(5), counted after the ")"
    except (OSError, ValueError, IndexError):
        return None
    return CpuTicks(busy, total, own)


def others_share(before: CpuTicks | None, after: CpuTicks | None) -> float | None:
    """Fraction of our CPUs' time that other processes (or the hypervisor) used between two readings."""
    if before is None or after is None or after.total <= before.total:
        return None
    others = (after.busy - before.busy) - (after.own - before.own)
    return min(1.0, max(0.0, others / (after.total - before.total)))


class BusyMeter:
    """`with BusyMeter() as meter: ...` then `meter.share` (None if it could not be told)."""

    share: float | None = None

    def __enter__(self) -> BusyMeter:
        self._before = read_ticks()
        return self

    def __exit__(self, *exc) -> None:
        self.share = others_share(self._before, read_ticks())
