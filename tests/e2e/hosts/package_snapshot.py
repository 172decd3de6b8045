"""A "site mirror" snapshot of extra Debian packages for test hosts: the .debs and the apt index they came from.

The base image (testhost.py) carries the packages the cluster roles install. A role with packages of its own (the
site gateway's strongSwan and FRR) gets a snapshot built once per machine beside the base image, in an overlay of
it: `apt-get update` and `--download-only`, so the index and the .debs agree. Copied into a host, apt installs them
from its cache without the network, as from a site's mirror. Building the snapshot needs the Debian mirror once.
"""

from __future__ import annotations

import fcntl
import hashlib
import shutil
import subprocess
import tempfile
from pathlib import Path

from tools import testhost

RECIPE_VERSION = 2

# An overlay of the base tree in a mount namespace of its own. The .debs apt fetched are in the upper layer (those
# the base image already caches stay there); the index is copied whole from the merged view.
_BUILD = r"""
set -e
mount --make-rprivate /
mount -t overlay overlay -o "lowerdir=$LOWER,upperdir=$UPPER,workdir=$WORK" "$ROOT"
mount -t proc proc "$ROOT/proc"
chroot "$ROOT" apt-get -q update
chroot "$ROOT" apt-get -q -y --no-install-recommends --download-only install $PACKAGES
mkdir -p "$OUT/archives" "$OUT/lists"
cp -p "$UPPER"/var/cache/apt/archives/*.deb "$OUT/archives/"
find "$ROOT/var/lib/apt/lists" -maxdepth 1 -type f ! -name lock -exec cp -p {} "$OUT/lists/" \;
"""


def snapshot(packages: tuple[str, ...]) -> Path:
    """The snapshot directory (`archives/*.deb`, `lists/`) for these packages, built on first use."""
    base = testhost.base_rootfs()
    digest = hashlib.sha256("\n".join([str(RECIPE_VERSION), base.name, *sorted(packages)]).encode()).hexdigest()[:12]
    target = testhost.CACHE_DIR / f"packages-{digest}"
    with open(testhost.CACHE_DIR / ".packages-lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (target / ".complete").exists():
            _build(base, packages, target)
    return target


def _build(base: Path, packages: tuple[str, ...], target: Path) -> None:
    work = Path(tempfile.mkdtemp(prefix="sahab-packages-", dir=testhost.CACHE_DIR))
    try:
        upper, overlay_work, root = work / "upper", work / "work", work / "root"
        for path in (upper / "etc", overlay_work, root):
            path.mkdir(parents=True)
        shutil.copy("/etc/resolv.conf", upper / "etc/resolv.conf")
        env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LOWER": str(base), "UPPER": str(upper),
               "WORK": str(overlay_work), "ROOT": str(root), "PACKAGES": " ".join(packages), "OUT": str(target),
               "DEBIAN_FRONTEND": "noninteractive"}
        shutil.rmtree(target, ignore_errors=True)
        done = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", _BUILD], env=env,
                              capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            raise testhost.HostUnavailable(f"cannot snapshot {', '.join(packages)}: {done.stderr[-2000:]}")
        (target / ".complete").touch()
    finally:
        shutil.rmtree(work, ignore_errors=True)


def install_into(host: testhost.TestHost, snapshot_dir: Path) -> None:
    """Make the snapshot the host's package sources: its index and its apt cache."""
    lists = host.path("/var/lib/apt/lists")
    for old in lists.iterdir():
        if old.is_file() and old.name != "lock":
            old.unlink()
    for item in (snapshot_dir / "lists").iterdir():
        if item.is_file():
            shutil.copy2(item, lists / item.name)
    for cache in host.path("/var/cache/apt").glob("*.bin"):
        cache.unlink()  # apt rebuilds its binary cache from the new index
    archives = host.path("/var/cache/apt/archives")
    for deb in (snapshot_dir / "archives").glob("*.deb"):
        shutil.copy2(deb, archives / deb.name)
