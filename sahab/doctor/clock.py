"""Clocks: this machine's, and each on-prem server's against it. Certificates kubeadm signs on the control plane,
bootstrap tokens and etcd leases all assume the servers agree on the time."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

from sahab.doctor import FAIL, OK, SKIP, Check, DoctorContext
from sahab.doctor._hosts import answers
from sahab.starter.facts import read_time_sync

AREA = "clock"
# Beyond this, after allowing for the round trip, a server's clock is off: a certificate signed on one node can
# then be "not yet valid" on another, and kubeadm's join tokens and etcd leases run short.
MAX_SKEW_S = 2.0


def local_time_sync() -> str:
    def ask(argv: list[str]) -> str:
        try:
            return subprocess.run(argv, capture_output=True, text=True, timeout=5).stdout
        except (OSError, subprocess.TimeoutExpired):
            return ""

    return read_time_sync(ask(["chronyc", "-n", "tracking"]), ask(["timedatectl", "show"]))


def checks(ctx: DoctorContext) -> Iterator[Check]:
    state = local_time_sync()
    if state.startswith("synchronised"):
        yield Check(AREA, "this machine", OK, state)
    elif state.startswith("not"):
        yield Check(AREA, "this machine", FAIL, state, "enable NTP here (chrony, or timedatectl set-ntp true)")
    else:
        yield Check(AREA, "this machine", SKIP, state)
    for answer in answers(ctx):
        name = f"{answer.name} ({answer.where})"
        if answer.error or answer.skew_s is None:
            yield Check(AREA, name, SKIP, f"not asked: {answer.error or 'no clock reading'} (see ssh)")
            continue
        off = abs(answer.skew_s) - answer.uncertainty_s
        text = (f"{answer.skew_s:+.3f} s from this machine (+/- {answer.uncertainty_s:.3f} s); "
                f"time {answer.time_sync}")
        if off > MAX_SKEW_S:
            yield Check(AREA, name, FAIL, text, f"set its clock from NTP (chrony); allowed skew: {MAX_SKEW_S:.0f} s")
        else:
            yield Check(AREA, name, OK, text)
