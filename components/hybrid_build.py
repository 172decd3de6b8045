"""The hybrid network of a fleet, built from the validated config (components.hybrid_config) once the clouds'
networks exist: each site's links to every network of the clouds it names, its end of them (a converged Linux
gateway host, or a rendered router configuration), the conditional forwarders for its DNS servers, and where the
deployer runs.

What the readiness verdict reads (sahab/readiness/reach.py) is in the plan: a `sahab:network:Site` component per
site with links or networks (its blocks, forwarders, links and on-prem clusters, as inputs), a
`sahab:network:Deployer` component, and the cloud resources themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pulumi
from sahab.components.errors import ConfigError
from sahab.components.fleet_config import ROOT, FleetConfig, Site, secret_config
from sahab.components.hybrid_config import deployer_of
from sahab.components.hybrid_plan import render_forwarders, render_router_config, site_forwarders

if TYPE_CHECKING:
    from sahab.components.fleet import Fleet

SITE_TYPE = "sahab:network:Site"
DEPLOYER_TYPE = "sahab:network:Deployer"


def site_cidrs(config: FleetConfig, cloud: str) -> tuple[str, ...]:
    """Every block of every site with a link to `cloud`: what that cloud's networks route to and admit."""
    return tuple(block for site in config.sites if any(link.cloud == cloud for link in site.links)
                 for block in site.networks)


@dataclass
class CloudNetwork:
    """One network a site's link can reach: a VPC (per Region) or a VNet (per location)."""

    cloud: str
    region: str
    cidr: str
    resolvers: tuple[str, ...]
    provider: Any
    hub: Any = None  # AWS: components.aws.hybrid_hub.Hub; Azure: the AzureHybridGateway
    zone: Any = None  # Azure: the LandingZone


@dataclass
class Hybrid:
    """What Fleet keeps of the hybrid network: per site its component and the resources a deployer there waits
    for (links up, the gateway converged) before it talks to a cloud's private API."""

    sites: dict[str, Any] = field(default_factory=dict)
    ready: dict[str, list[pulumi.Resource]] = field(default_factory=dict)
    deployer_site: str | None = None

    def deployer_waits_for(self) -> list[pulumi.Resource]:
        return list(self.ready.get(self.deployer_site or "", []))


class SiteNetwork(pulumi.ComponentResource):
    """One site's side of the hybrid network: its links are children; its inputs state what readiness judges."""

    def __init__(self, name: str, props: dict[str, Any], opts: pulumi.ResourceOptions | None = None):
        super().__init__(SITE_TYPE, name, props, opts)
        self.register_outputs({})


class DeployerLocation(pulumi.ComponentResource):
    """Where `pulumi up` runs (components.hybrid_config.Deployer), as readiness reads it."""

    def __init__(self, name: str, props: dict[str, Any], opts: pulumi.ResourceOptions | None = None):
        super().__init__(DEPLOYER_TYPE, name, props, opts)
        self.register_outputs({})


def cloud_networks(fleet: Fleet) -> list[CloudNetwork]:
    """The networks this stack builds that sites can link to, in a fixed order (AWS by Region, Azure by location).
    An AWS network's hub is part of its VPC (components.aws.network); an Azure landing zone's gateways and
    resolver are built here (components.azure.hybrid_gateway) when a site links to Azure."""
    from sahab.components.kinds import aks, eks

    config: FleetConfig = fleet.config
    aws, azure = eks.state(fleet), aks.state(fleet)
    found = []
    for region, network in sorted(aws.networks.items()):
        found.append(CloudNetwork("aws", region, network.cidr, network.resolver_addresses,
                                  aws.providers[region], hub=network.hub))
    if not azure.zones:
        return found
    links = [link for site in config.sites for link in site.links if link.cloud == "azure"]
    subscription = None
    if links:
        import pulumi_azure_native as azure_native

        subscription = azure_native.authorization.get_client_config_output(
            opts=pulumi.InvokeOutputOptions(provider=azure.provider)).subscription_id
    for location, zone in sorted(azure.zones.items()):
        gateway = None
        if links:
            from sahab.components.azure.hybrid_gateway import AzureHybridGateway, AzureHybridGatewayArgs

            gateway = AzureHybridGateway(f"{fleet.fleet_name}-{location}-hybrid", AzureHybridGatewayArgs(
                location=location, resource_group_name=zone.resource_group_name, subscription_id=subscription,
                vnet_id=zone.vnet_id, vnet_cidr=zone.vnet_cidr, gateway_subnet_id=zone.gateway_subnet_id,
                resolver_subnet_id=zone.resolver_subnet_id, vpn=any(lk.type == "vpn" for lk in links),
                expressroute=any(lk.type == "expressroute" for lk in links), tags=fleet.tags),
                opts=pulumi.ResourceOptions(parent=fleet, providers=[azure.provider]))
        found.append(CloudNetwork("azure", location, zone.vnet_cidr,
                                  (gateway.resolver_address,) if gateway else (), azure.provider,
                                  hub=gateway, zone=zone))
    return found


def build_hybrid(fleet: Fleet) -> Hybrid:
    """Every site's links and end, the forwarders, the deployer; exports `hybrid`."""
    config: FleetConfig = fleet.config
    hybrid = Hybrid()
    networks = cloud_networks(fleet)
    deployer = deployer_of(config)
    exported_sites: dict[str, Any] = {}
    for index, site in enumerate(config.sites):
        if not (site.links or site.networks):
            continue
        reachable = [n for n in networks if any(link.cloud == n.cloud for link in site.links) and n.hub is not None]
        forwards = site_forwarders(config, site)
        component = SiteNetwork(f"{fleet.fleet_name}-{site.name}-network", {
            "site": site.name, "networks": list(site.networks), "dnsSoftware": site.dns.software,
            "forwarders": forwards,
            "links": [{"cloud": link.cloud, "type": link.type, "routing": link.routing} for link in site.links],
            "clusters": [c.name for c in config.clusters if getattr(c, "site", None) == site.name],  # on-prem ones
            "gateway": {"terminatesOn": site.gateway.terminates_on, "publicIp": site.gateway.public_ip}
            if site.gateway else None,
        }, opts=pulumi.ResourceOptions(parent=fleet))
        hybrid.sites[site.name] = component
        links, tunnel_outputs = [], []
        for network in reachable:
            link = next(lk for lk in site.links if lk.cloud == network.cloud)
            built = _link(fleet, component, index, site, link, network)
            links.append(built)
            tunnel_outputs.append(built.tunnels)
        ready: list[pulumi.Resource] = list(links)
        tunnels = pulumi.Output.secret(pulumi.Output.all(*tunnel_outputs).apply(_numbered))
        record: dict[str, Any] = {"networks": list(site.networks), "forwarders": forwards,
                                  "forwarderConfig": render_forwarders(site.dns.software, forwards) if forwards else "",
                                  "tunnels": tunnels}
        gateway = site.gateway
        if gateway is not None and gateway.terminates_on == "host" and tunnel_outputs:
            ready.append(_converge_gateway(f"{fleet.fleet_name}-{site.name}-network", component, site, tunnels))
        elif gateway is not None and gateway.terminates_on == "router" and tunnel_outputs:
            record["routerConfig"] = pulumi.Output.secret(tunnels.apply(
                lambda ts, s=site: render_router_config(s.name, s.gateway.public_ip, s.gateway.asn, s.networks, ts)))
        hybrid.ready[site.name] = ready
        exported_sites[site.name] = record
    if deployer is not None:
        DeployerLocation(f"{fleet.fleet_name}-deployer", {"site": deployer.site, "cidrs": list(deployer.cidrs)},
                         opts=pulumi.ResourceOptions(parent=fleet))
        hybrid.deployer_site = deployer.site
    if exported_sites or deployer is not None:
        fleet.exports["hybrid"] = {
            "sites": exported_sites,
            "deployer": {"site": deployer.site, "cidrs": list(deployer.cidrs)} if deployer else None,
            "resolvers": {f"{n.cloud}-{n.region}": list(n.resolvers) for n in networks if n.resolvers}}
    return hybrid


def _numbered(groups: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """All of a site's tunnels, each with its own XFRM interface id (1, 2, ...)."""
    tunnels = [dict(t) for group in groups for t in group]
    for i, tunnel in enumerate(tunnels, start=1):
        tunnel["if_id"] = i
    return tunnels


def _link(fleet: Any, parent: SiteNetwork, index: int, site: Site, link: Any, network: CloudNetwork) -> Any:
    name = f"{fleet.fleet_name}-{site.name}-{network.cloud}-{network.region}"
    opts = pulumi.ResourceOptions(parent=parent, providers=[network.provider])
    gateway = site.gateway
    if network.cloud == "aws":
        from sahab.components.aws.site_link import AwsSiteLink, AwsSiteLinkArgs

        transit = network.hub.transit_gateway
        return AwsSiteLink(name, AwsSiteLinkArgs(
            site=site.name, site_index=index, networks=site.networks, vpc_cidr=network.cidr, region=network.region,
            type=link.type, routing=link.routing, public_ip=gateway.public_ip if gateway else None,
            asn=gateway.asn if gateway else 65010, hub_id=network.hub.id,
            transit_route_table_id=transit.association_default_route_table_id if transit is not None else None,
            direct_connect_gateway_id=link.direct_connect_gateway_id, tags=fleet.tags), opts=opts)
    from sahab.components.azure.site_link import AzureSiteLink, AzureSiteLinkArgs

    hub = network.hub
    authorization = None
    if link.authorization_key_secret:
        authorization = secret_config(link.authorization_key_secret)
        if authorization is None:
            where = f"{ROOT}.sites[{index}].links[{site.links.index(link)}].authorization_key_secret"
            raise ConfigError(where, f"names the secret setting sahab:{link.authorization_key_secret}, which the "
                              f"stack does not set; set it with `pulumi config set --secret "
                              f"{link.authorization_key_secret} <key>`")
    return AzureSiteLink(name, AzureSiteLinkArgs(
        site=site.name, site_index=index, networks=site.networks, vnet_cidr=network.cidr, location=network.region,
        resource_group_name=network.zone.resource_group_name, type=link.type, routing=link.routing,
        public_ip=gateway.public_ip if gateway else None, asn=gateway.asn if gateway else 65010,
        gateway_id=hub.expressroute_gateway_id if link.type == "expressroute" else hub.vpn_gateway_id,
        gateway_address=hub.public_address, ip_configuration_id=hub.ip_configuration_id,
        circuit_id=link.expressroute_circuit_id, authorization_key=authorization, tags=fleet.tags), opts=opts)


def _converge_gateway(name: str, parent: SiteNetwork, site: Site, tunnels: pulumi.Output) -> pulumi.Resource:
    """The site's gateway host converged by the Ansible role sahab_site_gateway; the run waits until every tunnel
    is established, so what depends on it finds the link up."""
    from sahab.components.onprem.host_args import OnPremAccessArgs
    from sahab.components.onprem.inventory import converge_inputs
    from sahab.components.onprem.playbook_run import PlaybookRun
    from sahab.components.onprem.runner import Host

    gateway = site.gateway
    host = Host(name=gateway.host.name, address=gateway.host.address, port=gateway.host.port, user=site.ssh_user,
                group="site_gateways")
    access = OnPremAccessArgs(
        ssh_private_key=secret_config(site.ssh_private_key_secret), airgapped=site.airgapped,
        variables={"sahab_site_gateway_asn": gateway.asn, "sahab_site_gateway_networks": list(site.networks),
                   "sahab_site_gateway_ipsec_backend": gateway.ipsec_backend},
        secret_variables=tunnels.apply(lambda ts: {"sahab_site_gateway_tunnels": ts}))
    return PlaybookRun(f"{name}-gateway", converge_inputs([host], access, "site_gateways"),
                       pulumi.ResourceOptions(parent=parent))
