"""A site of test hosts on which Sahab's real playbooks form a Kubernetes cluster with the stand-in kubeadm.

Every host is a Debian 12 test host (tools/testhost.py) that also sees, through bind mounts:
- /srv/site-mirror: the site's package mirror, a flat apt repository whose kubelet, kubeadm and kubectl
  packages (at two Kubernetes releases, as pkgs.k8s.io versions them) install the stand-ins (standin/);
- /run/sahab-site: the cluster the stand-ins share (its API server and etcd, as one JSON document), and the
  site's CA, which `kubeadm init` takes as the one it generates.
The kubelet unit of systemctl is the stand-in too (/usr/local/bin/systemctl, ahead of the real one on PATH);
every other unit goes to the real systemctl. The hosts stay chroots for everything else: the roles touch no
running kernel (sahab_form_cluster is set, so the kubeadm steps run).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from sahab.components.onprem.cluster import OnPremClusterArgs, control_plane_inventory, control_plane_variables
from sahab.components.onprem.host_args import OnPremAccessArgs, OnPremHostArgs
from sahab.components.onprem.inventory import converge_inputs, group_for, hosts_for
from sahab.components.onprem.node_pool import OnPremNodePoolArgs, pool_vars
from sahab.components.onprem.playbook_run import PlaybookProvider

from tools import testhost

STANDIN = Path(__file__).parent / "standin" / "standin.py"
# Two releases as pkgs.k8s.io packages them (<version>-1.1), both read from kubernetes/kubernetes CHANGELOG-1.33.md
# and CHANGELOG-1.34.md: a cluster starts on the first and is upgraded to the second.
RELEASES = ("1.33.5", "1.34.7")
PACKAGES = ("kubelet", "kubeadm", "kubectl")
VIP = "127.0.0.100"
ENCRYPTION_SECRET = "site-etcd-secrets-encryption-secret-never-logged-1a2b3c4d5e"
CERTIFICATE_SECRET = "site-kubeadm-certificate-secret-never-logged-6f7a8b9c0d1e"
# As the host tests: the base image's apt cache is the Debian "mirror" (its containerd is 1.6).
HOST_VARIABLES = {
    "sahab_os_apt_cache_valid_time": 10**9,
    "sahab_containerd_packages": ["containerd"],
    "sahab_containerd_min_major": 1,
    "sahab_form_cluster": True,
}


# The NVIDIA stack as NVIDIA's CUDA repository names it, for the HGX scenario. From the 580 branch on, Fabric Manager
# and NSCQ are unversioned packages at the driver's build (NVIDIA/gpu-driver-container ubuntu22.04/install.sh,
# commit 78fa4ac "add driver 580.65.06": `nvidia-fabricmanager=${DRIVER_VERSION}-1`, `libnvidia-nscq=...` for
# DRIVER_BRANCH >= 580; nvidia-fabricmanager-<branch> only before). nvidia-open is a metapackage whose dependency
# on the driver proper is a lower bound, so the mirror also carries a newer branch's driver (590.48.01) that apt
# takes unless the version is pinned; and a newer 580 build (DRIVER_BUMP) for a driver bump on a running node.
DRIVER = "580.126.20"
DRIVER_BUMP = "580.159.03"
NEWER_BRANCH = "590.48.01"
NVIDIA_SMI = """#!/bin/sh
[ "$1" = "-L" ] || exit 2
i=0
for dev in /sys/bus/pci/devices/*; do
  if [ "$(cat "$dev/vendor")" = 0x10de ] && [ "$(cat "$dev/class")" = 0x030200 ]; then
    echo "GPU $i: NVIDIA H100 80GB HBM3 (UUID: GPU-0000000$i-sahab-test)"; i=$((i + 1))
  fi
done
"""


def _unit(description: str) -> str:
    return (f"[Unit]\nDescription={description}\n\n[Service]\nExecStart=/bin/true\n\n"
            "[Install]\nWantedBy=multi-user.target\n")


Files = dict[str, tuple[str, int]]


def nvidia_packages() -> list[tuple[str, str, Files, str]]:
    """(package, version, {path: (content, mode)}, Depends) of the NVIDIA stand-ins."""
    kernel = subprocess.run(["uname", "-r"], capture_output=True, text=True, check=True).stdout.strip()
    fabricmanager = {"lib/systemd/system/nvidia-fabricmanager.service": (_unit("NVIDIA Fabric Manager"), 0o644)}
    packages = []
    for build in (DRIVER, DRIVER_BUMP):
        packages += [
            ("nvidia-open", f"{build}-1", {}, f"nvidia-driver-open (>= {build})"),
            ("nvidia-fabricmanager", f"{build}-1", fabricmanager, ""),
            ("libnvidia-nscq", f"{build}-1", {"usr/lib/libnvidia-nscq.so.2": ("", 0o644)}, "")]
    for build in (DRIVER, DRIVER_BUMP, NEWER_BRANCH):
        packages.append(("nvidia-driver-open", f"{build}-1", {"usr/bin/nvidia-smi": (NVIDIA_SMI, 0o755)}, ""))
    return [
        *packages,
        ("nvidia-fabricmanager", "580.95.05-1", fabricmanager, ""),  # an older build of the branch
        ("nvidia-container-toolkit", "1.17.8-1", {"usr/bin/nvidia-container-runtime": ("#!/bin/sh\n", 0o755)}, ""),
        ("datacenter-gpu-manager-4-cuda12", "4.2.3-1", {
            "lib/systemd/system/nvidia-dcgm.service": (_unit("NVIDIA DCGM hostengine"), 0o644)}, ""),
        (f"linux-headers-{kernel}", "1.0-1", {f"usr/src/linux-headers-{kernel}/Makefile": ("# stand-in\n", 0o644)}, ""),
    ]


def _deb(work: Path, directory: Path, package: str, version: str, files: Files, depends: str = "") -> None:
    root = work / f"{package}-{version}"
    (root / "DEBIAN").mkdir(parents=True)
    for path, (content, mode) in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
        target.chmod(mode)
    (root / "DEBIAN/control").write_text(
        f"Package: {package}\nVersion: {version}\nArchitecture: all\nMaintainer: Sahab tests\n"
        + (f"Depends: {depends}\n" if depends else "") +
        f"Description: stand-in {package} {version} for Sahab's site tests\n")
    subprocess.run(["dpkg-deb", "--root-owner-group", "-Zgzip", "--build", str(root),
                    str(directory / f"{package}_{version}_all.deb")], check=True, capture_output=True)


def build_mirror(directory: Path) -> None:
    """A flat apt repository: stand-in kubelet, kubeadm and kubectl at every release, and the NVIDIA stack."""
    directory.mkdir(parents=True, exist_ok=True)
    source = STANDIN.read_text()
    with tempfile.TemporaryDirectory() as work:
        for release in RELEASES:
            for package in PACKAGES:
                binary = source.replace('VERSION = "v0.0.0"', f'VERSION = "v{release}"', 1)
                _deb(Path(work), directory, package, f"{release}-1.1", {f"usr/bin/{package}": (binary, 0o755)})
        for package, version, files, depends in nvidia_packages():
            _deb(Path(work), directory, package, version, files, depends)
    packages = subprocess.run(["dpkg-scanpackages", "--multiversion", "."], cwd=directory, check=True,
                              capture_output=True, text=True).stdout
    (directory / "Packages").write_text(packages)


def build_ca(directory: Path) -> str:
    """The site's CA (what kubeadm init's certs phase generates), and its sha256 public-key pin."""
    directory.mkdir(parents=True, exist_ok=True)
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kubernetes")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now)
            .not_valid_after(now + datetime.timedelta(days=3650))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    spki = key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    pin = "sha256:" + hashlib.sha256(spki).hexdigest()
    (directory / "ca.crt").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (directory / "ca.key").write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                                         serialization.PrivateFormat.TraditionalOpenSSL,
                                                         serialization.NoEncryption()))
    (directory / "ca.hash").write_text(pin + "\n")
    return pin


class Site:
    """Hosts sharing one cluster directory and one package mirror; converges them as Pulumi would."""

    def __init__(self, name: str, base: Path, client_key: tuple[Path, str]) -> None:
        self.name = name
        self.base = base
        self.client_key = client_key
        self.workdir = Path(tempfile.mkdtemp(prefix=f"sahab-site-{name}-"))
        self.mirror = self.workdir / "mirror"
        self.shared = self.workdir / "cluster"
        try:
            build_mirror(self.mirror)
            self.ca_hash = build_ca(self.shared / "ca")
        except BaseException:
            shutil.rmtree(self.workdir, ignore_errors=True)
            raise
        self.hosts: dict[str, testhost.TestHost] = {}
        self.provider = PlaybookProvider()

    def add(self, name: str, index: int, binds: dict[str, str] | None = None) -> testhost.TestHost:
        host = testhost.TestHost(name, index, self.workdir / "hosts" / name)
        host.create(self.base, self.client_key[1])
        upper = host.directory / "upper"
        systemctl = upper / "usr/local/bin/systemctl"
        systemctl.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(STANDIN, systemctl)
        systemctl.chmod(0o755)
        (upper / "etc/sahab-standin").mkdir(parents=True)
        sources = upper / "etc/apt/sources.list.d"
        sources.mkdir(parents=True)
        (sources / "sahab-site-mirror.list").write_text("deb [trusted=yes] file:/srv/site-mirror ./\n")
        host.start(binds={str(self.mirror): "/srv/site-mirror", str(self.shared): "/run/sahab-site", **(binds or {})})
        self.run(host, ["apt-get", "update", "-qq", "-o", "Dir::Etc::sourcelist=sources.list.d/sahab-site-mirror.list",
                        "-o", "Dir::Etc::sourceparts=-", "-o", "APT::Get::List-Cleanup=0"])
        self.hosts[name] = host
        return host

    @staticmethod
    def run(host: testhost.TestHost, argv: list[str]) -> str:
        result = subprocess.run(["nsenter", "--target", str(host.process.pid), "--mount", "--uts", "--root", "--wd",
                                 *argv], capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            raise RuntimeError(f"{host.name}: {' '.join(argv)}: {result.stderr[-1000:]}")
        return result.stdout

    def inject(self, host: str, failure: str) -> None:
        """Make the stand-in fail once at this phase (init:<phase>, join:<phase>, upgrade:apply|node)."""
        path = self.hosts[host].path("/etc/sahab-standin/fail-at")
        path.write_text(path.read_text() + failure + "\n" if path.exists() else failure + "\n")

    def state(self) -> dict:
        path = self.shared / "cluster.json"
        return json.loads(path.read_text()) if path.exists() else {}

    def known_hosts(self) -> str:
        return "\n".join(h.known_hosts_line for h in self.hosts.values() if h.port)

    def spec(self, name: str) -> OnPremHostArgs:
        host = self.hosts[name]
        return OnPremHostArgs(name=name, address=host.address, port=host.port, cpus=8, memory_gib=32)

    def access(self, minor: str, endpoint: str | None = None, **overrides) -> OnPremAccessArgs:
        """As from_config.access_for gives it: the Kubernetes minor, the endpoint nodes join through, and (as
        from_config.firewall_sources) every host of the site, spares included, and the VIP as firewall sources."""
        variables = {**HOST_VARIABLES, "sahab_kubernetes_version": minor,
                     "sahab_os_firewall_cluster_cidrs": [h.address for h in self.hosts.values()] + [VIP],
                     **({"sahab_control_plane_endpoint": endpoint} if endpoint else {}),
                     **overrides.pop("variables", {})}  # a scenario's own, on top
        settings = {"ssh_private_key": self.client_key[0].read_text(), "known_hosts": self.known_hosts(),
                    "airgapped": True, "skip_hardware_checks": True, "variables": variables,
                    "secret_variables": {"sahab_control_plane_encryption_secret": ENCRYPTION_SECRET,
                                         "sahab_control_plane_certificate_secret": CERTIFICATE_SECRET}}
        return OnPremAccessArgs(**{**settings, **overrides})

    def cluster_props(self, control_plane: list[str], minor: str) -> dict:
        args = OnPremClusterArgs(
            control_plane_hosts=tuple(self.spec(n) for n in control_plane),
            vip=VIP if len(control_plane) > 1 else None,
            access=self.access(minor))
        access = args.access.model_copy(update={"variables": {**args.access.variables,
                                                              **control_plane_variables(args)}})
        return {"run_name": f"{self.name}-control-plane",
                **converge_inputs(control_plane_inventory(args), access, "control_plane"), "_endpoint": args.endpoint}

    def pool_props(self, control_plane: list[str], workers: list[str], minor: str, accelerator: str = "cpu",
                   gpus: int = 0, **access) -> dict:
        endpoint = (f"{VIP}:6443" if len(control_plane) > 1 else
                    f"{self.hosts[control_plane[0]].address}:6443" if control_plane else None)
        access = self.access(minor, endpoint, **access)
        pool = OnPremNodePoolArgs(pool=f"{accelerator}-pool", cluster=self.name, accelerator=accelerator,
                                  gpus_per_node=gpus, hosts=tuple(self.spec(n) for n in workers),
                                  control_plane_hosts=tuple(self.spec(n) for n in control_plane),
                                  labels={"sahab.io/pool": f"{accelerator}-pool", "sahab.io/accelerator": accelerator},
                                  access=access)
        hosts = hosts_for(pool.control_plane_hosts, "control_plane") + hosts_for(
            pool.hosts, group_for(accelerator), pool_vars(pool))
        return {"run_name": f"{self.name}-pool", **converge_inputs(hosts, access, ",".join(workers))}

    def converge(self, props: dict) -> dict:
        """One converge as PlaybookRun does it; raises RuntimeError naming the failed hosts past the budget."""
        props = {k: v for k, v in props.items() if not k.startswith("_")}
        return self.provider.create(props).outs

    def destroy(self) -> None:
        for host in self.hosts.values():
            host.destroy()
        shutil.rmtree(self.workdir, ignore_errors=True)
