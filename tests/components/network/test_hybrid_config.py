"""The hybrid schema and its pure planning: what a site may declare and the error that names a bad setting; tunnel
addressing, resolver addresses, forwarders for each DNS server, the router's file; the role's files for the
kernel backend (route-based XFRM interfaces), rendered from its templates."""

from __future__ import annotations

import base64
import ipaddress
import subprocess
import sys

import jinja2
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sahab.components.errors import ConfigError
from sahab.components.fleet_config import parse_fleet
from sahab.components.hybrid_config import deployer_of
from sahab.components.hybrid_plan import (
    aws_inside_cidrs,
    forward_zones,
    gateway_tunnel,
    mirrored,
    render_forwarders,
    render_router_config,
    zone_of,
)
from sahab.components.network_plan import (
    plan_gateway_subnet,
    plan_private_endpoint_subnet,
    plan_resolver_address,
    plan_resolver_addresses,
    plan_resolver_subnet,
    plan_vnet_subnets,
    plan_vpc_subnets,
)
from sahab.components.onprem.runner import ANSIBLE_DIR

from tests.components.network.fleets import DX_GATEWAY, ER_CIRCUIT, fleet, site

ROOT = "sahab:fleet"


def refused(config: dict) -> str:
    with pytest.raises(ConfigError) as err:
        parse_fleet(config)
    return str(err.value)


def test_a_site_links_to_each_cloud_over_vpn_by_default():
    parsed = parse_fleet(fleet(site("auh", 10, links=[{"cloud": "aws"}, {"cloud": "azure"}]),
                               clouds=("aws", "azure")))
    links = parsed.sites[0].links
    assert [(lk.cloud, lk.type, lk.routing) for lk in links] == [("aws", "vpn", "bgp"), ("azure", "vpn", "bgp")]
    assert parsed.clouds.aws.hybrid_hub == "virtual-private-gateway"
    assert deployer_of(parsed).site == "auh"  # the documented default: the first site with links


@pytest.mark.parametrize(("change", "path", "says"), [
    (lambda c: c["sites"][0].pop("gateway"), "sites[0].gateway", "needs the site's gateway"),
    (lambda c: c["sites"][0]["links"].append({"cloud": "aws"}), "sites[0].links[1].cloud", "one link per cloud"),
    (lambda c: c["sites"][0]["links"].__setitem__(0, {"cloud": "azure"}), "sites[0].links[0].cloud",
     "not a cloud of this stack"),
    (lambda c: c["sites"][0]["links"].__setitem__(0, {"cloud": "aws", "type": "expressroute",
                                                      "expressroute_circuit_id": ER_CIRCUIT}),
     "sites[0].links[0].type", "expressroute reaches azure, not aws"),
    (lambda c: c["sites"][0]["links"].__setitem__(0, {"cloud": "aws", "type": "direct-connect"}),
     "sites[0].links[0].direct_connect_gateway_id", "required with type direct-connect"),
    (lambda c: c["sites"][0]["links"].__setitem__(0, {"cloud": "aws", "type": "direct-connect", "routing": "static",
                                                      "direct_connect_gateway_id": DX_GATEWAY}),
     "sites[0].links[0].routing", "over BGP"),
    (lambda c: c["sites"][0].__setitem__("networks", []), "sites[0].networks", "needs its networks"),
    (lambda c: c["sites"][0].__setitem__("networks", ["10.99.0.0/16"]), "sites[0].hosts[0].address",
     "outside the site's networks"),
    (lambda c: c["sites"][0].__setitem__("networks", ["8.8.0.0/16"]), "sites[0].networks[0]", "public addresses"),
    (lambda c: c["sites"][0]["gateway"].__setitem__("public_ip", "10.1.2.3"), "sites[0].gateway.public_ip",
     "cannot be reached from a cloud"),
    (lambda c: c["sites"][0]["gateway"].__setitem__("asn", 64512), "sites[0].gateway.asn", "clouds' own side"),
    (lambda c: c["sites"][0]["gateway"].__setitem__("asn", 3356), "sites[0].gateway.asn", "public ASN"),
    (lambda c: c["sites"][0]["gateway"].pop("host"), "sites[0].gateway.host", "needs the gateway host"),
    (lambda c: c["sites"][0]["gateway"]["host"].__setitem__("name", "auh-cp1"), "sites[0].gateway.host.name",
     "already a host name"),
    (lambda c: c.__setitem__("deployer", {"site": "nowhere"}), "deployer.site", "not a site"),
    (lambda c: c.__setitem__("deployer", {"site": "auh", "cidrs": ["10.11.0.0/24"]}), "deployer.cidrs[0]",
     "outside site auh's networks"),
    (lambda c: c.__setitem__("deployer", {}), "deployer", "name the site"),
])
def test_a_bad_link_setting_is_refused_naming_it(change, path, says):
    config = fleet(site("auh", 10))
    change(config)
    message = refused(config)
    assert message.startswith(f"{ROOT}.{path}: ") and says in message, message


def test_circuits_and_routers_need_no_gateway_host():
    config = fleet(site("auh", 10, links=[{"cloud": "aws", "type": "direct-connect",
                                             "direct_connect_gateway_id": DX_GATEWAY}],
                        gateway={"public_ip": "198.51.100.10", "terminates_on": "router"}))
    assert parse_fleet(config).sites[0].gateway.host is None


def test_a_bad_setting_exits_2_with_one_error_line(tmp_path):
    """Through the CLI: a site whose host lies outside its networks."""
    import yaml

    from tests.fleets import ROOT as PROJECT

    config = fleet(site("auh", 10))
    config["sites"][0]["networks"] = ["10.99.0.0/16"]
    (tmp_path / "Pulumi.yaml").write_text(f"name: sahab\nruntime: python\nmain: {PROJECT / 'stacks'}\n")
    (tmp_path / "Pulumi.t.yaml").write_text(yaml.safe_dump({"config": {"sahab:fleet": config}}))
    done = subprocess.run([sys.executable, "-m", "sahab", "plan", "--program", str(tmp_path), "--stack", "t"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    assert done.stderr.startswith("error: sahab:fleet.sites[0].hosts[0].address:") and "Traceback" not in done.stderr


# ---- planning ----------------------------------------------------------------------------------------------------
def test_tunnel_inside_blocks_are_aws_valid_and_unique_per_site():
    seen = set()
    for index in range(100):
        for block in aws_inside_cidrs(index):
            net = ipaddress.ip_network(block)
            assert net.prefixlen == 30 and net.subnet_of(ipaddress.ip_network("169.254.0.0/16"))
            assert net not in seen and not net.overlaps(ipaddress.ip_network("169.254.0.0/21")) \
                and block != "169.254.169.252/30"
            seen.add(net)
    with pytest.raises(ValueError):
        aws_inside_cidrs(100)


@given(st.integers(min_value=16, max_value=24), st.integers(min_value=0, max_value=255), st.integers(2, 3))
def test_resolver_and_gateway_subnets_never_collide_with_what_the_network_already_uses(prefix, second, zones):
    cidr = str(ipaddress.ip_network(f"10.{second}.0.0/{prefix}", strict=False))
    vnet_used = [*plan_vnet_subnets(cidr, ["a", "b", "c"]).values(), plan_private_endpoint_subnet(cidr)]
    mine = [plan_gateway_subnet(cidr), plan_resolver_subnet(cidr)]
    for a in mine:
        assert all(not ipaddress.ip_network(a).overlaps(ipaddress.ip_network(b)) for b in vnet_used)
    assert not ipaddress.ip_network(mine[0]).overlaps(ipaddress.ip_network(mine[1]))
    assert ipaddress.ip_address(plan_resolver_address(cidr)) in ipaddress.ip_network(mine[1])
    private = plan_vpc_subnets(cidr, zones).private
    addresses = plan_resolver_addresses(cidr, zones)
    assert [any(ipaddress.ip_address(a) in ipaddress.ip_network(s) for s in private) for a in addresses] == [True, True]


def test_forwarders_for_each_dns_server_software():
    forwards = {zone: ["10.40.0.10", "10.40.64.10"] for zone in forward_zones("aws", "me-central-1")}
    forwards |= {zone: ["10.50.224.4"] for zone in forward_zones("azure", "uaenorth")}
    bind = render_forwarders("bind", forwards)
    assert 'zone "azurecr.io" { type forward; forward first; forwarders { 10.50.224.4; }; };' in bind
    assert 'zone "me-central-1.eks.amazonaws.com" { type forward; forward first; forwarders { 10.40.0.10; ' \
           '10.40.64.10; }; };' in bind
    unbound = render_forwarders("unbound", forwards)
    assert 'name: "ecr.me-central-1.amazonaws.com."' in unbound and "forward-addr: 10.40.64.10" in unbound
    windows = render_forwarders("windows", forwards)
    assert "Add-DnsServerConditionalForwarderZone -Name 'uaenorth.azmk8s.io' -MasterServers 10.50.224.4" in windows
    # Only what must resolve privately is forwarded: not all of S3 (Pulumi manages buckets over its public name).
    assert zone_of("sahab-bucket.s3.me-central-1.amazonaws.com", list(forwards)) is None
    assert zone_of("111122223333.dkr.ecr.me-central-1.amazonaws.com", list(forwards)) == \
        "ecr.me-central-1.amazonaws.com"


def _tunnel(**changes):
    return {**gateway_tunnel(name="aws-me-central-1-1", cloud="aws", remote_address="203.0.113.7",
                             local_id="198.51.100.10", psk="kSecret0123456789", routing="bgp",
                             remote_networks=["10.40.0.0/16"], remote_asn=64512, inside_address="169.254.100.2/30",
                             remote_inside_address="169.254.100.1", if_id=1), **changes}


def test_the_router_file_carries_every_parameter_and_the_mirror_swaps_the_ends():
    text = render_router_config("dxb", "198.51.100.20", 65020, ["10.20.0.0/16"], [_tunnel()])
    for expected in ("public_ip = 198.51.100.20", "asn = 65020", "remote_address = 203.0.113.7",
                     "pre_shared_key = kSecret0123456789", "aes256gcm16-prfsha384-ecp384", "IKEv2 only",
                     "peer 169.254.100.1 AS 64512"):
        assert expected in text
    other = mirrored(_tunnel(), "203.0.113.7", ["10.20.0.0/16"], 65020)
    assert (other["local_id"], other["remote_address"], other["inside_address"], other["remote_inside_address"],
            other["remote_asn"], other["initiator"]) == ("203.0.113.7", "198.51.100.10", "169.254.100.1/30",
                                                         "169.254.100.2", 65020, False)


# ---- the role's files, kernel backend ----------------------------------------------------------------------------
def render(template: str, **variables) -> str:
    """A template of the role as Ansible renders it (Jinja2, with the one Ansible filter the role uses)."""
    environment = jinja2.Environment(loader=jinja2.FileSystemLoader(ANSIBLE_DIR / "roles/sahab_site_gateway/templates"),
                                     trim_blocks=True, keep_trailing_newline=True, undefined=jinja2.StrictUndefined)
    environment.filters["b64encode"] = lambda text: base64.b64encode(text.encode()).decode()
    import yaml

    defaults = yaml.safe_load((ANSIBLE_DIR / "roles/sahab_site_gateway/defaults/main.yml").read_text())
    return environment.get_template(template).render(**{**defaults, "inventory_hostname": "auh-vpn1", **variables})


def test_kernel_backend_is_route_based_with_one_xfrm_interface_per_tunnel():
    tunnels = [_tunnel(), _tunnel(name="aws-me-central-1-2", remote_address="203.0.113.8",
                                  remote_id="203.0.113.8", inside_address="169.254.100.6/30",
                                  remote_inside_address="169.254.100.5", if_id=2),
               _tunnel(name="azure-uaenorth", cloud="azure", remote_address="20.1.2.3", remote_id="20.1.2.3",
                       routing="static", remote_networks=["10.50.0.0/16"], remote_asn=65515,
                       inside_address="169.254.22.1/32", remote_inside_address="169.254.21.1", if_id=3)]
    variables = {"sahab_site_gateway_tunnels": tunnels, "sahab_site_gateway_networks": ["10.10.0.0/16"]}
    swanctl = render("swanctl.conf.j2", **variables)
    assert swanctl.count("local_ts = 0.0.0.0/0") == 3 and "if_id_in = 2" in swanctl and "encap" not in swanctl
    assert swanctl.count("proposals = aes256gcm16-prfsha384-ecp384") == 3
    assert f"secret = 0s{base64.b64encode(b'kSecret0123456789').decode()}" in swanctl
    links = render("sahab-gateway-links.j2", **variables)
    assert "ip link add sahab-x3 type xfrm if_id 3" in links
    assert "ip addr replace 169.254.100.2/30 dev sahab-x1" in links
    frr = render("frr.conf.j2", **variables)
    assert "neighbor 169.254.100.1 remote-as 64512" in frr and "neighbor 169.254.100.5 remote-as 64512" in frr
    assert "neighbor 169.254.21.1" not in frr  # the Azure tunnel is static
    assert "ip route 10.50.0.0/16 sahab-x3 13" in frr and "ip route 169.254.21.1/32 sahab-x3" in frr
    assert "ip prefix-list SAHAB-FROM-aws-me-central-1-1 seq 5 permit 10.40.0.0/16 le 32" in frr
    assert "ip prefix-list SAHAB-SITE seq 5 permit 10.10.0.0/16" in frr and "network 10.10.0.0/16" in frr


def test_sahab_forwarders_prints_each_sites_settings_before_anything_exists():
    def forwarders(*args):
        return subprocess.run([sys.executable, "-m", "sahab", "forwarders", *args], capture_output=True, text=True,
                              timeout=120)

    both = forwarders("--stack", "prod")
    assert both.returncode == 0, both.stderr
    assert "// site auh-dc1" in both.stdout and "# site dxb-dc1" in both.stdout
    assert 'zone "me-central-1.eks.amazonaws.com" { type forward; forward first; forwarders { 10.40.0.10; ' \
           '10.40.64.10; }; };' in both.stdout  # auh-dc1's servers run BIND
    assert "Add-DnsServerConditionalForwarderZone -Name 'azurecr.io' -MasterServers 10.50.224.4" in both.stdout
    wrong = forwarders("--stack", "prod", "--site", "nowhere")
    assert wrong.returncode == 2 and wrong.stderr.startswith("error: --site:") and "auh-dc1, dxb-dc1" in wrong.stderr
