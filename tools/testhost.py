"""Real Debian 12 test hosts: a debootstrapped root filesystem per host, each with its own sshd on 127.0.0.N.

The base root filesystem is built once per machine and cached outside the repository
(``SAHAB_TESTHOST_CACHE``, default /var/cache/sahab-testhosts): a tarball (what a CI cache keeps) and,
unpacked from it, a read-only tree. Every host is a copy-on-write overlay of that tree, so a host costs a
directory, not a 500 MB copy, and what a converge changed is exactly the host's upper layer.

Each host's sshd runs chrooted inside private mount and UTS namespaces (``unshare --mount --uts``), so the
host's overlay, /proc, /sys and /dev/pts mounts never appear on the test machine and vanish with the last
process of the host.
/proc/sys and /sys are read-only inside: nothing a role does can change the test machine's kernel.
/proc still shows the machine's PID 1, which is how Ansible's ``is_chroot`` fact tells it is in a chroot.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from tools.ports import free_port

SUITE = "bookworm"
MIRROR = os.environ.get("SAHAB_TESTHOST_MIRROR", "http://deb.debian.org/debian")
CACHE_DIR = Path(os.environ.get("SAHAB_TESTHOST_CACHE", "/var/cache/sahab-testhosts"))
# What a freshly installed Debian 12 server has that Ansible needs: python3 (+ apt bindings), sshd, systemd.
BASE_PACKAGES = ("python3", "python3-apt", "openssh-server", "sudo", "systemd", "systemd-sysv", "kmod", "procps")
# The account a site gives Ansible (components.fleet_config Site.ssh_user's default): key login, passwordless sudo.
SUDO_USER = "sahab"
# Packages the roles install from the host's sources. Their .debs sit in the image's apt cache: this is the
# "site mirror" snapshot, so a converge installs for real without reaching the network.
MIRRORED_PACKAGES = ("containerd", "chrony", "nftables", "cryptsetup")
RECIPE_VERSION = 3  # bump when _build_base changes, so every machine rebuilds its cache


class HostUnavailable(RuntimeError):
    """The machine cannot build or run test hosts (not root, no debootstrap, no network to the mirror)."""


def unavailable_reason() -> str | None:
    """Why test hosts cannot run here, or None when they can."""
    if os.geteuid() != 0:
        return "test hosts need root (debootstrap, chroot, mounts)"
    if "overlay" not in Path("/proc/filesystems").read_text():
        return "the kernel has no overlayfs (modprobe overlay)"
    for tool in ("debootstrap", "unshare", "chroot", "tar", "ssh-keygen", "ssh"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (apt-get install debootstrap openssh-client)"
    return None


def _recipe_digest() -> str:
    recipe = "\n".join([str(RECIPE_VERSION), SUITE, MIRROR, *BASE_PACKAGES, "--", *MIRRORED_PACKAGES])
    return hashlib.sha256(recipe.encode()).hexdigest()[:12]


def _compression() -> tuple[str, str]:
    return ("--zstd", "tar.zst") if shutil.which("zstd") else ("--gzip", "tar.gz")


def _run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise HostUnavailable(f"{' '.join(cmd[:3])}... failed ({result.returncode}): {result.stderr[-2000:]}")
    return result


def base_tarball() -> Path:
    """The cached base root filesystem, built with debootstrap on first use (one build per machine)."""
    reason = unavailable_reason()
    if reason:
        raise HostUnavailable(reason)
    flag, suffix = _compression()
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    tarball = CACHE_DIR / f"{SUITE}-{_recipe_digest()}.{suffix}"
    with open(CACHE_DIR / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # concurrent test runs wait for one build
        if not tarball.exists():
            _build_base(tarball, flag)
            for stale in CACHE_DIR.glob(f"{SUITE}-*"):  # images of older recipes
                if stale.name.startswith(tarball.name.split(".")[0] + "."):
                    continue
                if stale.is_dir():
                    shutil.rmtree(stale)
                else:
                    stale.unlink()
    return tarball


def base_rootfs() -> Path:
    """The cached base tree every host overlays, unpacked from the tarball once per machine."""
    tarball = base_tarball()
    tree = tarball.with_name(tarball.name.split(".")[0] + ".rootfs")
    stamp = tree / ".sahab-unpacked"
    with open(CACHE_DIR / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not stamp.exists():
            shutil.rmtree(tree, ignore_errors=True)
            tree.mkdir()
            _run(["tar", "-xpf", str(tarball), "--numeric-owner", "-C", str(tree)], timeout=600)
            stamp.touch()
    return tree


def _build_base(tarball: Path, flag: str) -> None:
    work = Path(tempfile.mkdtemp(prefix="sahab-base-", dir=CACHE_DIR))
    try:
        root = work / "root"
        _run(
            [
                "debootstrap",
                "--variant=minbase",
                f"--include={','.join(BASE_PACKAGES)}",
                SUITE,
                str(root),
                MIRROR,
            ],
            timeout=1800,
        )
        # Daemons must never start inside the image (there is no init), whatever a package's postinst wants.
        policy = root / "usr/sbin/policy-rc.d"
        policy.write_text("#!/bin/sh\nexit 101\n")
        policy.chmod(0o755)
        # '*' rather than useradd's '!': no password, but not a locked account that sshd would refuse.
        _run(["chroot", str(root), "useradd", "--create-home", "--shell", "/bin/bash", "--password", "*", SUDO_USER])
        sudoers = root / f"etc/sudoers.d/{SUDO_USER}"
        sudoers.write_text(f"{SUDO_USER} ALL=(ALL:ALL) NOPASSWD: ALL\n")
        sudoers.chmod(0o440)
        _run(["chroot", str(root), "apt-get", "clean"])  # debootstrap's own .debs are not needed again
        _run(["chroot", str(root), "apt-get", "update", "-q"], timeout=900)
        _run(
            ["chroot", str(root), "apt-get", "install", "-q", "-y", "--download-only", *MIRRORED_PACKAGES],
            timeout=900,
        )
        for key in (root / "etc/ssh").glob("ssh_host_*"):
            key.unlink()  # every host gets its own host keys
        partial = tarball.with_suffix(".partial")
        _run(["tar", flag, "-cpf", str(partial), "--numeric-owner", "-C", str(root), "."], timeout=900)
        partial.rename(tarball)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def generate_client_key(directory: Path) -> tuple[Path, str]:
    """An ed25519 key pair for the test client: (private key path, public key line)."""
    key = directory / "id_ed25519"
    _run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "sahab-tests", "-f", str(key)])
    return key, key.with_suffix(".pub").read_text().strip()


# The host's mounts, made in its own mount namespace, then sshd in the foreground as the namespace's anchor.
_LAUNCH = r"""
set -e
mount --make-rprivate /
hostname "$HOST_NAME"
mount -t overlay overlay -o "lowerdir=$LOWER,upperdir=$UPPER,workdir=$WORK" "$ROOT"
mount -t proc proc "$ROOT/proc"
mount --bind "$ROOT/proc/sys" "$ROOT/proc/sys"
mount -o remount,bind,ro "$ROOT/proc/sys"
mount -t sysfs -o ro,nosuid,nodev,noexec sysfs "$ROOT/sys"
mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$ROOT/dev/pts"
mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs "$ROOT/run"
mkdir -p "$ROOT/run/sshd"
for bind in $BINDS; do
  mkdir -p "$ROOT${bind#*:}"
  mount --bind "${bind%%:*}" "$ROOT${bind#*:}"
done
exec chroot "$ROOT" /usr/sbin/sshd -D -e -f /etc/ssh/sshd_config \
  -o ListenAddress="$ADDRESS" -o Port="$PORT" -o UsePAM=no -o PasswordAuthentication=no \
  -o PermitRootLogin=prohibit-password -o PidFile=none
"""


@dataclass
class TestHost:
    """One Debian 12 host: an overlay on the base tree, its sshd address and port, the process that runs it.

    ``directory`` holds ``root`` (the mount point, empty outside the host), ``upper`` (the host's own files)
    and ``work`` (overlayfs bookkeeping).
    """

    __test__ = False  # not a pytest test class

    name: str
    index: int
    directory: Path
    address: str = ""
    port: int = 0
    process: subprocess.Popen | None = field(default=None, repr=False)
    host_public_key: str = ""
    lower: Path | None = None

    @property
    def root(self) -> Path:
        return self.directory / "root"

    def create(self, lower: Path, authorized_key: str) -> None:
        """Lay out the host's own files in its upper layer: its name, the client key for root and the sudo user,
        its own host key."""
        self.address = f"127.0.0.{self.index}"
        upper = self.directory / "upper"
        for path in (self.root, upper / "etc/ssh", self.directory / "work"):
            path.mkdir(parents=True, exist_ok=True)
        self.lower = lower
        (upper / "etc/hostname").write_text(f"{self.name}\n")
        # As in Debian's container images: dpkg skips fsync and docs. A test host's disk is thrown away, and
        # several hosts unpacking packages at once on one test machine should not queue on fsync.
        dpkg_cfg = upper / "etc/dpkg/dpkg.cfg.d"
        dpkg_cfg.mkdir(parents=True)
        (dpkg_cfg / "sahab-testhost").write_text(
            "force-unsafe-io\npath-exclude=/usr/share/man/*\npath-exclude=/usr/share/doc/*\n"
            "path-exclude=/usr/share/locale/*\n"
        )
        (upper / "etc/hosts").write_text(f"127.0.0.1 localhost\n{self.address} {self.name}\n")
        self._keep_compiled_module_code(upper)
        for user in ("root", SUDO_USER):
            self._authorize(upper, user, authorized_key)
        host_key = upper / "etc/ssh/ssh_host_ed25519_key"
        _run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", f"root@{self.name}", "-f", str(host_key)])
        self.host_public_key = " ".join(host_key.with_suffix(".pub").read_text().split()[:2])

    def _keep_compiled_module_code(self, upper: Path) -> None:
        """The host's Python keeps what it compiles from Ansible's module zips (tools/zipimport_cache.py)."""
        (version,) = {p.name for p in self.lower.glob("usr/lib/python3.*") if p.name.removeprefix("python3.").isdigit()}
        site = upper / "usr/local/lib" / version / "dist-packages"
        site.mkdir(parents=True)
        shutil.copyfile(Path(__file__).with_name("zipimport_cache.py"), site / "sahab_zipimport_cache.py")
        (site / "sahab-zipimport-cache.pth").write_text("import sahab_zipimport_cache\n")
        (upper / "var/cache/sahab-testhost-code").mkdir(mode=0o755, parents=True)

    def _authorize(self, upper: Path, user: str, authorized_key: str) -> None:
        """The client key in ``user``'s authorized_keys, owned as sshd's StrictModes wants."""
        entry = next(
            line.split(":")
            for line in (self.lower / "etc/passwd").read_text().splitlines()
            if line.startswith(f"{user}:")
        )
        uid, gid, home = int(entry[2]), int(entry[3]), entry[5]
        home_dir = upper / home.lstrip("/")
        ssh_dir = home_dir / ".ssh"
        ssh_dir.mkdir(mode=0o700, parents=True)
        home_dir.chmod(0o700)
        (ssh_dir / "authorized_keys").write_text(authorized_key + "\n")
        (ssh_dir / "authorized_keys").chmod(0o600)
        for path in (home_dir, ssh_dir, ssh_dir / "authorized_keys"):
            os.chown(path, uid, gid)

    def start(self, timeout: float = 20.0, binds: dict[str, str] | None = None) -> None:
        """Run the host's sshd; ``binds`` maps directories of the test machine to paths inside the host (the
        site tests share one cluster directory and one package mirror between hosts this way)."""
        self.port = free_port(self.address)
        env = {
            "PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
            "ROOT": str(self.root),
            "LOWER": str(self.lower),
            "UPPER": str(self.directory / "upper"),
            "WORK": str(self.directory / "work"),
            "ADDRESS": self.address,
            "PORT": str(self.port),
            "HOST_NAME": self.name,
            "BINDS": " ".join(f"{src}:{dst}" for src, dst in (binds or {}).items()),
        }
        self.process = subprocess.Popen(
            ["unshare", "--mount", "--uts", "--propagation", "private", "sh", "-c", _LAUNCH],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise HostUnavailable(f"{self.name}: sshd exited: {self.process.stderr.read()[-2000:]}")
            with contextlib.suppress(OSError), socket.create_connection((self.address, self.port), 0.5):
                return
            time.sleep(0.05)
        raise HostUnavailable(f"{self.name}: sshd did not listen on {self.address}:{self.port}")

    @property
    def known_hosts_line(self) -> str:
        return f"[{self.address}]:{self.port} {self.host_public_key}"

    def processes(self) -> list[int]:
        """PIDs of every process running inside this host (its root is this host's root filesystem)."""
        pids = []
        root = str(self.root.resolve())
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError):
                target = os.readlink(entry / "root")
                if target == root or target.startswith(root + "/"):
                    pids.append(int(entry.name))
        return pids

    def path(self, path: str) -> Path:
        """A path inside the running host, as its own processes see it (through /proc/<sshd>/root)."""
        if self.process is None or self.process.poll() is not None:
            raise RuntimeError(f"{self.name} is not running")
        return Path(f"/proc/{self.process.pid}/root") / path.lstrip("/")

    def read(self, path: str) -> str:
        return self.path(path).read_text()

    def exists(self, path: str) -> bool:
        """Whether the path exists in the host (a symlink counts: its target is the host's, not ours)."""
        return os.path.lexists(self.path(path))

    def cpu_seconds(self) -> float:
        """CPU time used inside the host so far: every live process, plus what each has reaped."""
        ticks = 0
        for pid in self.processes():
            with contextlib.suppress(OSError):
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                ticks += sum(int(x) for x in fields[11:15])  # utime, stime, cutime, cstime
        return ticks / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        """Kill every process of the host; its mount namespace, and so its mounts, go with the last one."""
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
        for _ in range(100):
            pids = self.processes()
            if not pids:
                break
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.05)
        if self.process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=5)
            if self.process.stderr:
                self.process.stderr.close()

    def destroy(self) -> None:
        self.stop()
        if self.processes():
            raise RuntimeError(f"{self.name}: processes survive tear-down; not deleting {self.directory}")
        shutil.rmtree(self.directory, ignore_errors=True)


def mounts_under(path: Path) -> list[str]:
    """Mount points under ``path`` in any mount namespace on the machine (for tear-down checks)."""
    prefix = str(path.resolve())
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError), open(entry / "mountinfo") as mountinfo:
            for line in mountinfo:
                point = line.split()[4]
                if point == prefix or point.startswith(prefix + "/"):
                    found.add(point)
    return sorted(found)
