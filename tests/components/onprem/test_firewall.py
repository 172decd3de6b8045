"""The host firewall admits the site's own nodes, whatever their network: sources come from the site's hosts, its
VIP and its node_networks (IPv4 and IPv6), never from an assumed 10.0.0.0/8; each role opens only the ports it
serves, and pods reach only those. Rendered by Ansible's templating from the real template, then checked by nft."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest
import yaml
from sahab.components.errors import ConfigError
from sahab.components.fleet_config import parse_fleet
from sahab.components.onprem.from_config import cluster_args, pool_args
from sahab.components.onprem.runner import ANSIBLE_DIR

from tests.components.onprem.test_kubeadm_rendering import render

ROLE = ANSIBLE_DIR / "roles" / "sahab_os"
# The role's defaults as a play sees them: its forwarded networks are the cluster's (group_vars/all).
NETWORKS = yaml.safe_load((ANSIBLE_DIR / "group_vars/all/cluster_networks.yml").read_text())
DEFAULTS = yaml.safe_load((ROLE / "defaults/main.yml").read_text())
DEFAULTS["sahab_os_firewall_forward_cidrs"] = [render(cidr, **NETWORKS)
                                              for cidr in DEFAULTS["sahab_os_firewall_forward_cidrs"]]


def fleet(addresses: list[str], vip: str | None = None, node_networks: list[str] | None = None) -> dict:
    site = {"name": "lab", "emirate": "dubai", "city": "Dubai",
            "hosts": [{"name": f"n{i}", "address": a, "cpus": 16, "memory_gib": 64}
                      for i, a in enumerate(addresses, 1)]}
    if node_networks:
        site["node_networks"] = node_networks
    control = ["n1", "n2", "n3"] if vip else ["n1"]
    cluster = {"name": "lab", "kind": "onprem", "site": "lab", "control_plane_hosts": control}
    if vip:
        cluster["control_plane_vip"] = vip
    return {"environment": "dev", "sites": [site], "clusters": [cluster],
            "node_pools": [{"name": "cpu", "cluster": "lab", "hosts": [f"n{len(addresses)}"]}]}


def ruleset(sources: list[str], control_plane: bool) -> str:
    variables = {k: v for k, v in DEFAULTS.items() if not isinstance(v, str) or "{{" not in v}
    return render((ROLE / "templates/nftables.conf.j2").read_text(), **{
        **variables, "sahab_os_firewall_cluster_cidrs": sources, "sahab_os_firewall_control_plane": control_plane})


def admitted(nft: str, family: str) -> set[str]:
    """The node sources admitted to the kubelet's port (the pod network's own rule aside)."""
    match = "ip6 saddr" if family == "ipv6" else "ip saddr"
    pods = DEFAULTS["sahab_os_firewall_forward_cidrs"][0]
    found = set()
    for line in nft.splitlines():
        m = re.match(rf"\s*{match} {{ (.*) }} tcp dport {{ (.*) }} accept", line)
        if m and "10250" in m.group(2) and m.group(1) != pods:
            found |= set(m.group(1).split(", "))
    return found


def nft_check(nft: str, tmp_path) -> None:
    """nft's own parser and the kernel's check (-c: nothing is applied)."""
    if shutil.which("nft") is None or os.geteuid() != 0:
        pytest.skip("nft -c needs nft and root")
    path = tmp_path / "nftables.conf"
    path.write_text(nft)
    done = subprocess.run(["nft", "-c", "-f", str(path)], capture_output=True, text=True)
    if "Operation not permitted" in done.stderr:
        pytest.skip("nft -c is not permitted here")
    assert done.returncode == 0, done.stderr


def test_a_site_on_192_168_50_0_24_admits_its_own_hosts_and_vip(tmp_path):
    config = parse_fleet(fleet(["192.168.50.10", "192.168.50.11", "192.168.50.12", "192.168.50.13"],
                               vip="192.168.50.100"))
    sources = cluster_args(config, config.clusters[0]).access.variables["sahab_os_firewall_cluster_cidrs"]
    assert sources == ["192.168.50.10", "192.168.50.11", "192.168.50.12", "192.168.50.13", "192.168.50.100"]
    pool = pool_args(config, config.node_pools[0]).access.variables["sahab_os_firewall_cluster_cidrs"]
    assert pool == sources  # a worker and the control plane admit the same nodes
    nft = ruleset(sources, control_plane=True)
    assert admitted(nft, "ipv4") == {f"192.168.50.{i}/32" for i in (10, 11, 12, 13, 100)}
    assert "10.0.0.0/8" not in nft
    nft_check(nft, tmp_path)


def test_a_site_with_node_networks_admits_them(tmp_path):
    config = parse_fleet(fleet(["192.168.50.10", "192.168.50.11", "192.168.50.12", "192.168.50.13"],
                               vip="192.168.50.100", node_networks=["192.168.50.0/24"]))
    sources = cluster_args(config, config.clusters[0]).access.variables["sahab_os_firewall_cluster_cidrs"]
    assert sources == ["192.168.50.0/24"]
    assert admitted(ruleset(sources, control_plane=False), "ipv4") == {"192.168.50.0/24"}


def test_an_ipv6_ula_site_admits_its_hosts_over_ip6(tmp_path):
    hosts = ["fd12:3456:789a:1::10", "fd12:3456:789a:1::11", "fd12:3456:789a:1::12", "fd12:3456:789a:1::13"]
    config = parse_fleet(fleet(hosts, vip="fd12:3456:789a:1::100"))
    sources = cluster_args(config, config.clusters[0]).access.variables["sahab_os_firewall_cluster_cidrs"]
    nft = ruleset(sources, control_plane=True)
    assert admitted(nft, "ipv6") == {f"{h}/128" for h in [*hosts, "fd12:3456:789a:1::100"]}
    assert admitted(nft, "ipv4") == set()
    assert re.search(r"ip6 saddr \{ .* \} udp dport \{ 8472, 51871 \} accept", nft)  # VXLAN, WireGuard
    nft_check(nft, tmp_path)


def test_a_dual_stack_site_gets_both_families():
    nft = ruleset(["10.9.0.0/24", "fd00:9::/64"], control_plane=False)
    assert admitted(nft, "ipv4") == {"10.9.0.0/24"} and admitted(nft, "ipv6") == {"fd00:9::/64"}


def test_each_role_opens_only_the_ports_it_serves_and_pods_reach_only_those():
    worker = ruleset(["192.168.50.0/24"], control_plane=False)
    control = ruleset(["192.168.50.0/24"], control_plane=True)
    assert "6443" not in worker and "2379-2380" not in worker
    assert "tcp dport { 6443, 2379-2380, 10257, 10259, 10250, 30000-32767, 4240, 4244 } accept" in control
    for nft in (worker, control):
        input_chain = nft.split("chain forward")[0]
        # No source is admitted to every port: not the pod network, not the CNI's interfaces.
        for line in input_chain.splitlines():
            if "saddr" in line or ("iifname" in line and "lo" not in line):
                assert "dport" in line, line
        assert re.search(r'iifname "lxc\*" tcp dport \{ [^}]*10250[^}]* \} accept', input_chain)
        assert re.search(r"ip saddr \{ 10\.244\.0\.0/16 \} tcp dport \{ [^}]*10250[^}]* \} accept", input_chain)
        assert "10.96.0.0/12" not in input_chain  # service addresses are never a source


@pytest.mark.parametrize(("addresses", "vip", "networks", "path", "says"), [
    (["192.168.50.10", "192.168.60.11"], None, ["192.168.50.0/24"], "sites[0].hosts[1].address",
     "outside the site's node_networks"),
    (["fd00:1::10", "fd00:1::11", "fd00:1::12", "fd00:2::13"], "fd00:1::100", ["fd00:1::/64"],
     "sites[0].hosts[3].address", "outside the site's node_networks"),
    (["192.168.50.10", "192.168.50.11", "192.168.50.12", "192.168.50.13"], "192.168.51.100", ["192.168.50.0/24"],
     "clusters[0].control_plane_vip", "outside site lab's node_networks"),
    (["192.168.50.10", "192.168.50.11"], None, ["192.168.50.1/24"], "sites[0].node_networks[0]", "host bits zero"),
    (["192.168.50.10", "192.168.50.11"], None, ["0.0.0.0/0"], "sites[0].node_networks[0]", "or narrower"),
])
def test_a_host_or_vip_outside_the_node_networks_is_refused(addresses, vip, networks, path, says):
    with pytest.raises(ConfigError) as info:
        parse_fleet(fleet(addresses, vip=vip, node_networks=networks))
    assert info.value.path == f"sahab:fleet.{path}"
    assert says in info.value.message


def test_the_role_refuses_a_host_outside_the_sources_it_admits():
    tasks = yaml.safe_load((ROLE / "tasks/firewall.yml").read_text())
    check = tasks[0]["ansible.builtin.assert"]["that"]
    inside = render("{{ " + check + " }}", ansible_host="192.168.50.10",
                    sahab_os_firewall_cluster_cidrs=["192.168.50.0/24"])
    outside = render("{{ " + check + " }}", ansible_host="fd00::10",
                     sahab_os_firewall_cluster_cidrs=["192.168.50.0/24"])
    assert inside is True and outside is False
