"""The probe: one POSIX shell script a server runs over SSH, printing what it is in marked sections.

Read-only: it changes nothing on the server. Sections a server cannot answer come back empty (no lsblk, no
nvidia-smi, no chrony) and the parser says so; a server that stops answering halfway lacks the end marker.
Only `blkid -p` needs root (a low-level probe for any partition table, filesystem, LUKS, LVM or RAID signature on
a disk that looks empty): through `sudo -n`, never a password.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from sahab.starter.facts import MARK, HostFacts, ProbeFailed, parse_probe
from sahab.starter.ssh import SshTarget, why_ssh_failed

PROBE_TIMEOUT_S = 60.0

SCRIPT = r"""
export LC_ALL=C PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
s() { printf '\n@@sahab-probe %s\n' "$1"; }
if [ "$(id -u)" = 0 ]; then SUDO=""; elif sudo -n true 2>/dev/null; then SUDO="sudo -n"; else SUDO=none; fi
s sudo; if [ "$SUDO" = none ]; then echo no; else echo yes; fi
s hostname; hostname 2>/dev/null || cat /etc/hostname 2>/dev/null
s os-release; cat /etc/os-release 2>/dev/null || cat /usr/lib/os-release 2>/dev/null
s arch; uname -m
s cpuinfo; sed -n '1,/^$/p' /proc/cpuinfo 2>/dev/null
s nproc; getconf _NPROCESSORS_ONLN 2>/dev/null || nproc 2>/dev/null
s meminfo; grep '^MemTotal:' /proc/meminfo 2>/dev/null
s lsblk; lsblk -J -b -o NAME,PATH,TYPE,SIZE,RO,RM,FSTYPE,MOUNTPOINT,MODEL,SERIAL 2>/dev/null
s by-id; for f in /dev/disk/by-id/*; do [ -e "$f" ] && printf '%s %s\n' "$f" "$(readlink -f "$f")"; done
s signatures
if [ "$SUDO" != none ]; then
  lsblk -dnr -o PATH,TYPE 2>/dev/null | while read -r p t; do
    [ "$t" = disk ] || continue
    out=$($SUDO blkid -p -o export "$p" 2>/dev/null); rc=$?
    printf '%s %s %s\n' "$p" "$rc" "$(printf '%s' "$out" | tr '\n' ' ')"
  done
fi
s addresses; ip -o addr show scope global 2>/dev/null || hostname -I 2>/dev/null
s pci
for d in /sys/bus/pci/devices/*; do
  [ -r "$d/vendor" ] && printf '%s %s %s %s\n' "${d##*/}" "$(cat "$d/vendor")" "$(cat "$d/device")" "$(cat "$d/class")"
done
s nvidia-smi
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=pci.bus_id,name,memory.total --format=csv,noheader,nounits 2>/dev/null
fi
s chrony; command -v chronyc >/dev/null 2>&1 && chronyc -n tracking 2>/dev/null
s timedatectl; command -v timedatectl >/dev/null 2>&1 && timedatectl show 2>/dev/null
s rootfs; df -P -B1 / 2>/dev/null | tail -n 1
s end
"""


def probe(target: SshTarget, timeout: float = PROBE_TIMEOUT_S) -> HostFacts:
    """What the server at `target` is; raises ProbeFailed with one line saying why when it cannot be told."""
    where = f"host {target.address}" + (f":{target.port}" if target.port != 22 else "")
    try:
        done = target.run("sh -s", stdin=SCRIPT, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise ProbeFailed(f"{where}: no answer to the probe within {timeout:.0f} s") from None
    except OSError as exc:
        raise ProbeFailed(f"{where}: cannot run ssh: {exc.strerror or exc}") from None
    if MARK not in done.stdout:  # never got a shell: ssh's own failure (exit 255) or a refused login
        raise ProbeFailed(f"{where}: {why_ssh_failed(done.stderr, done.returncode)}")
    return parse_probe(done.stdout, target.address, target.port, where)


def probe_all(targets: Sequence[SshTarget], timeout: float = PROBE_TIMEOUT_S) -> list[HostFacts | ProbeFailed]:
    """Every target probed at once; each answer or failure in the order given."""

    def one(target: SshTarget) -> HostFacts | ProbeFailed:
        try:
            return probe(target, timeout)
        except ProbeFailed as failed:
            return failed

    with ThreadPoolExecutor(max_workers=min(8, max(1, len(targets)))) as pool:
        return list(pool.map(one, targets))
