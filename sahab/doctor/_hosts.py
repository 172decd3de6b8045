"""The stack's on-prem servers as `pulumi up` reaches them: one SSH session per host, shared by the areas that
ask about hosts (ssh, clock) through the doctor context's memo.

Each session logs in as the site's `ssh_user`, verifying host keys against what the runner would use (the site's
recorded `ssh_host_keys`, else the operator's known_hosts), with the operator's ssh-agent and default keys as
Ansible uses them when the stack sets no key. It asks for passwordless sudo, the host's clock and its time sync.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from sahab.doctor import DoctorContext
from sahab.starter.facts import key_values, read_time_sync
from sahab.starter.ssh import SshTarget, known_hosts_name, user_known_hosts, why_ssh_failed

QUERY = r"""
export LC_ALL=C PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
if [ "$(id -u)" = 0 ] || sudo -n true 2>/dev/null; then echo "sudo=yes"; else echo "sudo=no"; fi
echo "clock=$(date +%s.%N)"
echo "@@chrony"; command -v chronyc >/dev/null 2>&1 && chronyc -n tracking 2>/dev/null
echo "@@timedatectl"; command -v timedatectl >/dev/null 2>&1 && timedatectl show 2>/dev/null
echo "@@end"
"""


@dataclass(frozen=True)
class HostAnswer:
    name: str
    where: str  # user@address:port
    error: str = ""  # why the session failed; empty when it answered
    sudo: bool = False
    skew_s: float | None = None  # the host's clock minus this machine's, at the session's midpoint
    uncertainty_s: float = 0.0  # half the round trip: the skew is known to within this
    time_sync: str = ""


def stack_hosts(ctx: DoctorContext) -> Iterator[tuple[object, object]]:
    """(site, host) for every on-prem host of the stack."""
    for site in getattr(ctx.fleet, "sites", ()) or ():
        for host in site.hosts:
            yield site, host


def answers(ctx: DoctorContext) -> list[HostAnswer]:
    return ctx.cached("onprem-hosts", lambda: _ask_all(ctx))


def _ask_all(ctx: DoctorContext) -> list[HostAnswer]:
    pairs = list(stack_hosts(ctx))
    if not pairs:
        return []
    with tempfile.TemporaryDirectory(prefix="sahab-doctor-") as work, \
            ThreadPoolExecutor(max_workers=min(8, len(pairs))) as pool:
        return list(pool.map(lambda pair: _ask(ctx, *pair, Path(work)), pairs))


def _ask(ctx: DoctorContext, site, host, work: Path) -> HostAnswer:
    files = user_known_hosts()
    if host.ssh_host_keys:  # the runner then trusts only the site's recorded keys
        recorded = work / f"{site.name}-{host.name}"
        recorded.write_text("".join(f"{known_hosts_name(h.address, h.port)} {key}\n"
                                    for h in site.hosts for key in h.ssh_host_keys))
        files = (recorded,)
    target = SshTarget(host.address, host.port, site.ssh_user, None, files, False,
                       connect_timeout=max(1, int(ctx.timeout)))
    where = f"{site.ssh_user}@{host.address}" + (f":{host.port}" if host.port != 22 else "")
    start = time.time()
    try:
        done = target.run("sh -s", stdin=QUERY, timeout=ctx.timeout + 5)
    except Exception as exc:  # a timeout, no ssh binary: the host is not reachable from here either way
        return HostAnswer(host.name, where, error=f"no answer ({type(exc).__name__})")
    end = time.time()
    if "@@end" not in done.stdout:
        return HostAnswer(host.name, where, error=why_ssh_failed(done.stderr, done.returncode))
    head, _, rest = done.stdout.partition("@@chrony")
    chrony, _, rest = rest.partition("@@timedatectl")
    timedatectl = rest.partition("@@end")[0]
    values = key_values(head, "=")
    try:
        skew = float(values.get("clock", "")) - (start + end) / 2
    except ValueError:
        skew = None
    return HostAnswer(host.name, where, sudo=values.get("sudo") == "yes", skew_s=skew,
                      uncertainty_s=(end - start) / 2, time_sync=read_time_sync(chrony, timedatectl))
