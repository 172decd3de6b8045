"""The site end of a hybrid link, brought up for real between two Debian 12 test hosts.

Both hosts are converged by the role sahab_site_gateway over SSH, with the tunnel Sahab hands the site
(components.hybrid_plan.gateway_tunnel) and its mirror image (`mirrored`) on the host that plays the cloud's
gateway. Each host's daemons (charon, FRR) then run from its own converged filesystem inside a network namespace
of their own: the two namespaces share one veth "internet" link (TEST-NET addresses), and each has a "LAN" host
behind it (benchmarking addresses). Nothing of it touches the machine's own network.

It shows: the IKEv2 SA and the AES-GCM CHILD_SA come up; the site learns the cloud's block over BGP inside the
tunnel (and nothing else); a datagram from the site's LAN reaches the cloud's LAN; a capture on the outer link sees
only IKE and ESP-in-UDP between the two gateways, never the datagram's payload.

This kernel has XFRM but neither ESP nor AES-GCM (no `esp4`, no `gcm(aes)`), so the tunnel uses strongSwan's
userspace `kernel-libipsec` backend (ESP in UDP 4500 through a TUN device); the kernel backend's XFRM interfaces are
rendered and checked as files only.
"""

from __future__ import annotations

import os
import re
import socket
import struct
import subprocess
import time
import uuid
from pathlib import Path

import pytest
import yaml
from sahab.components.hybrid_plan import gateway_tunnel, mirrored
from sahab.components.onprem.runner import ANSIBLE_DIR, Host, run_playbook

from tests.e2e.hosts import package_snapshot
from tools import testhost

pytestmark = [pytest.mark.hosts, pytest.mark.timeout(300)]

ROLE_DEFAULTS = yaml.safe_load((ANSIBLE_DIR / "roles/sahab_site_gateway/defaults/main.yml").read_text())
PACKAGES = tuple(ROLE_DEFAULTS["sahab_site_gateway_packages"] + ROLE_DEFAULTS["sahab_site_gateway_libipsec_packages"])
# The outer link (TEST-NET-1, RFC 5737) and the two LANs (benchmarking space, RFC 2544): never routed anywhere.
SITE_OUTSIDE, CLOUD_OUTSIDE = "192.0.2.1", "192.0.2.2"
SITE_LAN, CLOUD_LAN = "198.18.10.0/24", "198.18.40.0/24"
SITE_HOST, CLOUD_HOST = "198.18.10.1", "198.18.40.1"
# The cloud end also announces a block the site never asked for: the site's BGP filter must drop it.
STRAY = "198.19.99.0/24"
SITE_ASN, CLOUD_ASN = 65010, 64512
PORT = 9999
PSK = "kTestOnlyPreSharedKey0123456789abcdefXYZ"
MARKER = b"sahab-inner-payload-" + uuid.uuid4().hex.encode()


def _netns_available() -> str | None:
    for tool in ("ip", "nsenter", "tcpdump"):
        if not testhost.shutil.which(tool):
            return f"{tool} is not installed (make host-deps)"
    if not Path("/dev/net/tun").exists():
        return "no /dev/net/tun: strongSwan's libipsec backend needs a TUN device"
    return None


def _run(*cmd: str, check: bool = True, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(list(cmd), capture_output=True, text=True, **kwargs)
    if check and done.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} -> {done.returncode}: {done.stdout}{done.stderr}")
    return done


class Namespace:
    """A network namespace with one end of the outer veth link; its LAN host is an address on its loopback."""

    def __init__(self, name: str, outside: str, lan_address: str) -> None:
        self.name, self.outside, self.lan_address = name, outside, lan_address
        _run("ip", "netns", "add", name)
        self.exec("ip", "link", "set", "lo", "up")
        self.exec("ip", "addr", "add", f"{lan_address}/32", "dev", "lo")

    def exec(self, *cmd: str, **kwargs) -> subprocess.CompletedProcess:
        return _run("ip", "netns", "exec", self.name, *cmd, **kwargs)

    def inside(self, host: testhost.TestHost, *cmd: str) -> list[str]:
        """A command run from the host's own filesystem (its mount namespace, chrooted) in this namespace."""
        return ["nsenter", f"--mount=/proc/{host.process.pid}/ns/mnt", f"--net=/run/netns/{self.name}", "--",
                "chroot", str(host.root), *cmd]

    def delete(self) -> None:
        _run("ip", "netns", "delete", self.name, check=False)


@pytest.fixture(scope="module")
def link(host_factory, client_key):
    """Two converged gateways and their namespaces, daemons running; torn down whatever happens."""
    reason = _netns_available()
    if reason:
        pytest.skip(reason)
    try:
        snapshot = package_snapshot.snapshot(PACKAGES)
    except testhost.HostUnavailable as exc:
        pytest.skip(f"cannot snapshot the gateway's packages: {exc}")
    tag = f"{os.getpid() % 100000}"
    namespaces: list[Namespace] = []
    started: list[subprocess.Popen] = []
    try:
        site_ns = Namespace(f"sahab-site-{tag}", SITE_OUTSIDE, SITE_HOST)
        namespaces.append(site_ns)
        cloud_ns = Namespace(f"sahab-cloud-{tag}", CLOUD_OUTSIDE, CLOUD_HOST)
        namespaces.append(cloud_ns)
        veth_site, veth_cloud = f"sgs{tag}", f"sgc{tag}"
        _run("ip", "link", "add", veth_site, "type", "veth", "peer", "name", veth_cloud)
        for ns, end in ((site_ns, veth_site), (cloud_ns, veth_cloud)):
            _run("ip", "link", "set", end, "netns", ns.name)
            ns.exec("ip", "addr", "add", f"{ns.outside}/24", "dev", end)
            # The link is IPv4 (TEST-NET): without this, the kernel's own IPv6 neighbour discovery on bring-up would
            # be counted as traffic crossing outside the tunnel.
            ns.exec("sh", "-c", f"echo 1 > /proc/sys/net/ipv6/conf/{end}/disable_ipv6")
            ns.exec("ip", "link", "set", end, "up")
        site_gw = host_factory("site-gw", 61)
        cloud_gw = host_factory("cloud-gw", 62)
        for host in (site_gw, cloud_gw):
            package_snapshot.install_into(host, snapshot)
            # libipsec's TUN device, inside the host's /dev as the machine's.
            (host.path("/dev/net")).mkdir(exist_ok=True)
            os.mknod(host.path("/dev/net/tun"), 0o600 | 0o020000, os.makedev(10, 200))

        site_tunnel = gateway_tunnel(
            name="cloud-1", cloud="aws", remote_address=CLOUD_OUTSIDE, local_id=SITE_OUTSIDE, psk=PSK,
            routing="bgp", remote_networks=[CLOUD_LAN], remote_asn=CLOUD_ASN, inside_address="169.254.100.2/30",
            remote_inside_address="169.254.100.1", if_id=1)
        cloud_tunnel = mirrored(site_tunnel, CLOUD_OUTSIDE, remote_networks=[SITE_LAN], remote_asn=SITE_ASN)
        common = {"sahab_site_gateway_ipsec_backend": "libipsec", "sahab_site_gateway_apt_cache_valid_time": 10**9}
        hosts = [
            Host(name=site_gw.name, address=site_gw.address, port=site_gw.port, group="site_gateways", vars={
                **common, "sahab_site_gateway_tunnels": [site_tunnel], "sahab_site_gateway_networks": [SITE_LAN],
                "sahab_site_gateway_asn": SITE_ASN}),
            Host(name=cloud_gw.name, address=cloud_gw.address, port=cloud_gw.port, group="site_gateways", vars={
                **common, "sahab_site_gateway_tunnels": [cloud_tunnel],
                "sahab_site_gateway_networks": [CLOUD_LAN, STRAY],
                "sahab_site_gateway_asn": CLOUD_ASN}),
        ]
        converged = run_playbook(hosts, private_key=client_key[0].read_text(),
                                 known_hosts=host_factory.known_hosts())
        assert {o.status for o in converged.outcomes.values()} <= {"ok", "changed"}, \
            "; ".join(f"{o.host}: {o.status}: {o.message}" for o in converged.outcomes.values())
        for ns, host in ((site_ns, site_gw), (cloud_ns, cloud_gw)):
            started += _start(ns, host)
        yield {"site": (site_ns, site_gw), "cloud": (cloud_ns, cloud_gw), "converged": converged,
               "veth": veth_site}
    finally:
        for process in started:
            process.kill()
        for ns in namespaces:
            ns.delete()


def _start(ns: Namespace, host: testhost.TestHost) -> list[subprocess.Popen]:
    """What systemd would start on the gateway, from the units the role enabled: the tunnels' interfaces,
    charon (then `swanctl --load-all`, its ExecStartPost), FRR."""
    _run(*ns.inside(host, "/usr/local/sbin/sahab-gateway-links", "up"))
    charon = subprocess.Popen(ns.inside(host, "/usr/sbin/charon-systemd"), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 20
    while not host.exists("/run/charon.vici"):  # charon answers swanctl here once its plugins are loaded
        assert charon.poll() is None, f"charon-systemd exited ({charon.returncode}) on {host.name}"
        assert time.monotonic() < deadline, f"charon-systemd on {host.name} opened no vici socket"
        time.sleep(0.1)
    _run(*ns.inside(host, "/usr/sbin/swanctl", "--load-all", "--noprompt"))
    _run(*ns.inside(host, "/usr/lib/frr/frrinit.sh", "start"))
    return [charon]


def _until(what: str, probe, timeout: float = 45.0):
    deadline = time.monotonic() + timeout
    while True:
        found = probe()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.5)


def _sas(ns: Namespace, host: testhost.TestHost) -> str:
    return _run(*ns.inside(host, "/usr/sbin/swanctl", "--list-sas"), check=False).stdout


class Capture:
    """tcpdump on the site's outer link, into a pcap file."""

    def __init__(self, ns: Namespace, interface: str, path: Path) -> None:
        self.path = path
        self.process = subprocess.Popen(
            ["ip", "netns", "exec", ns.name, "tcpdump", "-i", interface, "-n", "-U", "-s", "0", "-w", str(path)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        line = self.process.stderr.readline()  # "listening on ...": capturing from here on
        assert "listening" in line, line

    def stop(self, until=lambda pcap: True, timeout: float = 20.0) -> bytes:
        """Stop once the file holds what `until` looks for (a loaded machine writes frames late), or at timeout;
        then the whole capture is judged."""
        deadline = time.monotonic() + timeout
        while not until(self.path.read_bytes()) and time.monotonic() < deadline:
            time.sleep(0.2)
        # Everything sent has crossed the link already (the listener had it): wait for the file to settle.
        size, still = -1, 0
        while still < 5 and time.monotonic() < deadline:
            now = self.path.stat().st_size
            still, size = (still + 1, size) if now == size else (0, now)
            time.sleep(0.2)
        self.process.terminate()
        self.process.wait(timeout=10)
        return self.path.read_bytes()


def frames(pcap: bytes) -> list[bytes]:
    """The frames of a classic pcap file (tcpdump -w)."""
    magic = pcap[:4]
    order = "<" if magic == b"\xd4\xc3\xb2\xa1" else ">"
    found, offset = [], 24
    while offset + 16 <= len(pcap):
        length = struct.unpack(order + "I", pcap[offset + 8:offset + 12])[0]
        found.append(pcap[offset + 16:offset + 16 + length])
        offset += 16 + length
    return found


def outer_kind(frame: bytes) -> str:
    """What an Ethernet frame on the outer link carries: 'arp', 'ike' (UDP 500), 'esp-in-udp' (UDP 4500),
    'esp' (IP protocol 50), or a description of anything else."""
    ethertype = struct.unpack("!H", frame[12:14])[0]
    if ethertype == 0x0806:
        return "arp"
    if ethertype != 0x0800:
        return f"ethertype {ethertype:#06x}"
    ip = frame[14:]
    header, protocol = (ip[0] & 0x0F) * 4, ip[9]
    src, dst = socket.inet_ntoa(ip[12:16]), socket.inet_ntoa(ip[16:20])
    if {src, dst} != {SITE_OUTSIDE, CLOUD_OUTSIDE}:
        return f"ip {src} -> {dst}"
    if protocol == 50:
        return "esp"
    if protocol == 17:
        ports = set(struct.unpack("!HH", ip[header:header + 4]))
        if ports == {500}:
            return "ike"
        if ports == {4500}:
            return "esp-in-udp"
        return f"udp {sorted(ports)}"
    return f"ip protocol {protocol}"


def _send(ns: Namespace, source: str, target: str, payload: bytes) -> None:
    code = (f"import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(({source!r}, 0)); "
            f"s.sendto({payload!r}, ({target!r}, {PORT}))")
    ns.exec("python3", "-c", code)


def _listen(ns: Namespace, address: str) -> subprocess.Popen:
    code = (f"import socket, sys; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(({address!r}, {PORT})); "
            "print('ready', flush=True); s.settimeout(20); data, peer = s.recvfrom(4096); "
            "print(peer[0], data.decode(), flush=True)")
    listener = subprocess.Popen(["ip", "netns", "exec", ns.name, "python3", "-c", code], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
    assert listener.stdout.readline().strip() == "ready", listener.stderr.read()
    return listener


def test_the_tunnel_comes_up_with_ikev2_and_aes_gcm(link):
    site_ns, site_gw = link["site"]
    cloud_ns, cloud_gw = link["cloud"]
    sas = _until("the IKE and CHILD SAs", lambda: (lambda out: out if "INSTALLED" in out else None)(
        _sas(site_ns, site_gw)))
    assert re.search(r"cloud-1: #\d+, ESTABLISHED, IKEv2", sas), sas
    assert "AES_GCM_16-256/PRF_HMAC_SHA2_384/ECP_384" in sas  # the IKE SA
    assert re.search(r"INSTALLED, TUNNEL-in-UDP, ESP:AES_GCM_16-256", sas), sas  # the CHILD SA
    assert "remote 169.254.100.1/32 198.18.40.0/24" in sas
    assert "ESTABLISHED" in _sas(cloud_ns, cloud_gw)


def test_routes_are_learnt_over_bgp_and_filtered(link):
    site_ns, _ = link["site"]
    cloud_ns, _ = link["cloud"]
    learnt = _until("the cloud's block in the site's routing table", lambda: site_ns.exec(
        "ip", "route", "show", "proto", "bgp").stdout.strip())
    assert re.fullmatch(rf"{re.escape(CLOUD_LAN)} (nhid \d+ )?via 169\.254\.100\.1 dev ipsec0 .*", learnt), learnt
    assert STRAY.split("/")[0] not in learnt  # announced by the cloud end, outside the tunnel's remote networks
    back = _until("the site's block on the cloud end", lambda: cloud_ns.exec(
        "ip", "route", "show", "proto", "bgp").stdout.strip())
    assert back.startswith(f"{SITE_LAN} ") and "dev ipsec0" in back, back


def test_traffic_crosses_only_inside_the_tunnel(link, tmp_path):
    site_ns, _ = link["site"]
    cloud_ns, _ = link["cloud"]
    _until("the cloud's route", lambda: site_ns.exec("ip", "route", "show", CLOUD_LAN, "proto", "bgp").stdout)
    capture = Capture(site_ns, link["veth"], tmp_path / "outer.pcap")
    try:
        listener = _listen(cloud_ns, CLOUD_HOST)
        _send(site_ns, SITE_HOST, CLOUD_HOST, MARKER)
        received, _ = listener.communicate(timeout=30)
    finally:
        pcap = capture.stop(until=lambda data: "esp-in-udp" in map(outer_kind, frames(data)))
    assert received.split() == [SITE_HOST, MARKER.decode()]  # from the site's LAN host, intact
    kinds = [outer_kind(f) for f in frames(pcap)]
    assert "esp-in-udp" in kinds, kinds
    assert set(kinds) <= {"arp", "ike", "esp-in-udp", "esp"}, kinds
    assert MARKER not in pcap


def test_the_capture_would_see_traffic_outside_the_tunnel(link, tmp_path):
    """The control: the same datagram between the two gateways' outer addresses (which no tunnel covers) is
    in clear on the outer link, so the capture above would have seen a leak."""
    site_ns, _ = link["site"]
    cloud_ns, _ = link["cloud"]
    capture = Capture(site_ns, link["veth"], tmp_path / "clear.pcap")
    try:
        listener = _listen(cloud_ns, CLOUD_OUTSIDE)
        _send(site_ns, SITE_OUTSIDE, CLOUD_OUTSIDE, MARKER)
        listener.communicate(timeout=30)
    finally:
        pcap = capture.stop(until=lambda data: MARKER in data)
    assert MARKER in pcap
    assert any(kind.startswith("udp ") and str(PORT) in kind for kind in map(outer_kind, frames(pcap)))
