"""The hybrid network as a plan describes it: cloud networks, the sites' links to them, the routes, security rules
and resolvers, read from the very resources a `pulumi up` would create (pulumi-aws, azure-native) and the two
components Sahab adds for what no cloud resource states (`sahab:network:Site`, `sahab:network:Deployer`; see
components/hybrid_build.py). References between resources come from the plan's property dependencies, since a
preview does not know the ids yet.

Everything here answers one question for sahab/readiness/reach.py: may traffic from a block of addresses reach an
address in a cloud network on a port? Where a value the answer needs is unknown in preview, the answer is "yes"
(no verdict), as elsewhere in readiness.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sahab.engine import PlannedResource
from sahab.readiness.common import get, unknown

Block = ipaddress.IPv4Network

VPC = "aws:ec2/vpc:Vpc"
SUBNET = "aws:ec2/subnet:Subnet"
ROUTE_TABLE = "aws:ec2/routeTable:RouteTable"
ROUTE = "aws:ec2/route:Route"
ASSOCIATION = "aws:ec2/routeTableAssociation:RouteTableAssociation"
SECURITY_GROUP = "aws:ec2/securityGroup:SecurityGroup"
INGRESS_RULE = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
GROUP_RULE = "aws:ec2/securityGroupRule:SecurityGroupRule"
VPN_GATEWAY = "aws:ec2/vpnGateway:VpnGateway"
VPN_GATEWAY_ATTACHMENT = "aws:ec2/vpnGatewayAttachment:VpnGatewayAttachment"
TRANSIT_GATEWAY = "aws:ec2transitgateway/transitGateway:TransitGateway"
TGW_ATTACHMENT = "aws:ec2transitgateway/vpcAttachment:VpcAttachment"
TGW_ROUTE = "aws:ec2transitgateway/route:Route"
VPN_CONNECTION = "aws:ec2/vpnConnection:VpnConnection"
VPN_ROUTE = "aws:ec2/vpnConnectionRoute:VpnConnectionRoute"
DX_ASSOCIATION = "aws:directconnect/gatewayAssociation:GatewayAssociation"
VPC_ENDPOINT = "aws:ec2/vpcEndpoint:VpcEndpoint"
RESOLVER = "aws:route53/resolverEndpoint:ResolverEndpoint"
VNET = "azure-native:network:VirtualNetwork"
NSG = "azure-native:network:NetworkSecurityGroup"
NSG_RULE = "azure-native:network:SecurityRule"
VNET_GATEWAY = "azure-native:network:VirtualNetworkGateway"
CONNECTION = "azure-native:network:VirtualNetworkGatewayConnection"
LOCAL_GATEWAY = "azure-native:network:LocalNetworkGateway"
PRIVATE_ENDPOINT = "azure-native:network:PrivateEndpoint"
INBOUND_ENDPOINT = "azure-native:dnsresolver:InboundEndpoint"
SITE = "sahab:network:Site"
DEPLOYER = "sahab:network:Deployer"
SITE_LINKS = ("sahab:aws:SiteLink", "sahab:azure:SiteLink")
SITE_TAG = "sahab.io/site"
# Azure's default inbound rules, after every rule a group states (learn.microsoft.com/azure/virtual-network/
# network-security-groups-overview): the VirtualNetwork tag covers the VNet and every network a gateway connects.
AZURE_DEFAULT_INBOUND = (
    {"priority": 65000, "access": "Allow", "protocol": "*", "sourceAddressPrefix": "VirtualNetwork",
     "destinationAddressPrefix": "VirtualNetwork", "destinationPortRange": "*"},
    {"priority": 65500, "access": "Deny", "protocol": "*", "sourceAddressPrefix": "*",
     "destinationAddressPrefix": "*", "destinationPortRange": "*"},
)


def blocks(values: Iterable[Any]) -> list[Block]:
    """The IPv4 blocks among `values` (strings), skipping what a preview does not know or is not a block."""
    found = []
    for value in values:
        if isinstance(value, str) and not unknown(value):
            try:
                net = ipaddress.ip_network(value, strict=False)
            except ValueError:
                continue
            if net.version == 4:
                found.append(net)
    return found


def covers(outer: Iterable[Block], block: Block) -> bool:
    return any(block.subnet_of(o) for o in outer)


@dataclass
class Net:
    """A VPC or a VNet."""

    res: PlannedResource
    cloud: str
    region: str
    blocks: list[Block]

    @property
    def label(self) -> str:
        kind = "VPC" if self.cloud == "aws" else "VNet"
        return f"{kind} {self.res.name} ({', '.join(map(str, self.blocks)) or 'block unknown'})"


@dataclass
class Link:
    """A site's link to one network: what the cloud side routes to the site, what the site routes into it."""

    site: str
    net: Net
    kind: str  # vpn, direct-connect, expressroute
    hub: str  # URN of the VGW, TGW or Azure gateway it terminates on
    announced: list[Block] = field(default_factory=list)  # site blocks the cloud learns (BGP, static)
    remote: list[Block] = field(default_factory=list)  # cloud blocks the site routes into the link
    source: PlannedResource | None = None


@dataclass
class Site:
    name: str
    res: PlannedResource
    blocks: list[Block]
    forwarders: dict[str, list[str]]
    links: list[dict[str, Any]]
    clusters: list[str]
    gateway: dict[str, Any] | None


class Graph:
    """Lookups over the plan's network resources."""

    def __init__(self, resources: list[PlannedResource]) -> None:
        self.resources = resources
        self.by_urn = {r.urn: r for r in resources}
        self.by_type: dict[str, list[PlannedResource]] = {}
        for r in resources:
            self.by_type.setdefault(r.type, []).append(r)
        self.nets: dict[str, Net] = {}
        for res in self.of(VPC):
            self.nets[res.urn] = Net(res, "aws", self.region(res), blocks([res.inputs.get("cidrBlock")]))
        for res in self.of(VNET):
            prefixes = get(res.inputs, "addressSpace", "addressPrefixes") or []
            self.nets[res.urn] = Net(res, "azure", str(res.inputs.get("location") or self.region(res)),
                                     blocks(prefixes if isinstance(prefixes, list) else []))
        self.sites = {s.name: s for s in (self._site(r) for r in self.of(SITE))}
        self.links = self._aws_links() + self._azure_links()

    # ---- basic lookups ---------------------------------------------------------------------------------------
    def of(self, *types: str) -> list[PlannedResource]:
        return [r for t in types for r in self.by_type.get(t, [])]

    def deps(self, res: PlannedResource, prop: str, *types: str) -> list[PlannedResource]:
        """Resources (of `types`) input `prop` of `res` was computed from."""
        found = [self.by_urn[u] for u in res.property_dependencies.get(prop, []) if u in self.by_urn]
        return [r for r in found if not types or r.type in types]

    def referencing(self, target: PlannedResource, prop: str, *types: str) -> list[PlannedResource]:
        return [r for r in self.of(*types) if target.urn in r.property_dependencies.get(prop, [])]

    def region(self, res: PlannedResource) -> str:
        own = res.inputs.get("region") or res.inputs.get("location")
        if isinstance(own, str) and not unknown(own):
            return own
        provider = self.by_urn.get(res.provider or "")
        value = (provider.inputs.get("region") or provider.inputs.get("location")) if provider else None
        return str(value) if value else ""

    def ancestor(self, res: PlannedResource, *types: str) -> PlannedResource | None:
        current = self.by_urn.get(res.parent or "")
        while current is not None:
            if current.type in types:
                return current
            current = self.by_urn.get(current.parent or "")
        return None

    def site_of(self, res: PlannedResource) -> str | None:
        """The site a link resource belongs to: its Sahab link component's, else its `sahab.io/site` tag."""
        component = self.ancestor(res, *SITE_LINKS)
        if component is not None and isinstance(component.inputs.get("site"), str):
            return component.inputs["site"]
        tag = get(res.inputs, "tags", SITE_TAG)
        return tag if isinstance(tag, str) else None

    def net_of_subnets(self, subnets: list[PlannedResource]) -> Net | None:
        for subnet in subnets:
            for vpc in self.deps(subnet, "vpcId", VPC):
                return self.nets.get(vpc.urn)
        return None

    def net_of(self, res: PlannedResource, prop: str) -> Net | None:
        """The network an input names: through its subnets (AWS) or the VNet its subnet id came from (Azure)."""
        direct = [r for r in self.deps(res, prop, VPC, VNET)]
        if direct:
            return self.nets.get(direct[0].urn)
        return self.net_of_subnets(self.deps(res, prop, SUBNET))

    # ---- sites -----------------------------------------------------------------------------------------------
    @staticmethod
    def _site(res: PlannedResource) -> Site:
        inputs = res.inputs
        forwarders = inputs.get("forwarders") if isinstance(inputs.get("forwarders"), dict) else {}
        return Site(name=str(inputs.get("site") or res.name), res=res, blocks=blocks(inputs.get("networks") or []),
                    forwarders={str(z): [str(a) for a in (v or [])] for z, v in forwarders.items()},
                    links=[lk for lk in inputs.get("links") or [] if isinstance(lk, dict)],
                    clusters=[str(c) for c in inputs.get("clusters") or []],
                    gateway=inputs.get("gateway") if isinstance(inputs.get("gateway"), dict) else None)

    def site_blocks(self, site: str) -> list[Block]:
        found = self.sites.get(site)
        return found.blocks if found else []

    # ---- links -----------------------------------------------------------------------------------------------
    def _aws_hub_nets(self, hub: PlannedResource) -> list[Net]:
        if hub.type == VPN_GATEWAY:
            vpcs = self.deps(hub, "vpcId", VPC) or [v for a in self.referencing(hub, "vpnGatewayId",
                                                                                VPN_GATEWAY_ATTACHMENT)
                                                    for v in self.deps(a, "vpcId", VPC)]
        else:
            vpcs = [v for a in self.referencing(hub, "transitGatewayId", TGW_ATTACHMENT)
                    for v in self.deps(a, "vpcId", VPC)]
        return [self.nets[v.urn] for v in vpcs if v.urn in self.nets]

    def _component_blocks(self, res: PlannedResource, key: str) -> list[Block]:
        component = self.ancestor(res, *SITE_LINKS)
        return blocks(component.inputs.get(key) or []) if component is not None else []

    def _aws_links(self) -> list[Link]:
        links = []
        for conn in self.of(VPN_CONNECTION):
            site = self.site_of(conn)
            hubs = self.deps(conn, "vpnGatewayId", VPN_GATEWAY) + self.deps(conn, "transitGatewayId", TRANSIT_GATEWAY)
            if site is None or not hubs:
                continue
            if conn.inputs.get("staticRoutesOnly") is True:
                component = self.ancestor(conn, *SITE_LINKS)
                announced = blocks(r.inputs.get("destinationCidrBlock") for r in self.of(VPN_ROUTE, TGW_ROUTE)
                                   if conn.urn in r.property_dependencies.get("vpnConnectionId", []) +
                                   r.property_dependencies.get("transitGatewayAttachmentId", [])
                                   or (component is not None and self.ancestor(r, *SITE_LINKS) is component))
            else:
                announced = self.site_blocks(site)  # the site's gateway announces its blocks over BGP
            for net in self._aws_hub_nets(hubs[0]):
                links.append(Link(site, net, "vpn", hubs[0].urn, announced,
                                  self._component_blocks(conn, "remoteNetworks") or net.blocks, conn))
        for association in self.of(DX_ASSOCIATION):
            site = self.site_of(association)
            hubs = self.deps(association, "associatedGatewayId", VPN_GATEWAY, TRANSIT_GATEWAY)
            if site is None or not hubs:
                continue
            allowed = blocks(association.inputs.get("allowedPrefixes") or [])
            for net in self._aws_hub_nets(hubs[0]):
                links.append(Link(site, net, "direct-connect", hubs[0].urn, self.site_blocks(site),
                                  allowed or net.blocks, association))
        return links

    def _azure_links(self) -> list[Link]:
        links = []
        for conn in self.of(CONNECTION):
            site = self.site_of(conn)
            gateways = self.deps(conn, "virtualNetworkGateway1", VNET_GATEWAY)
            if site is None or not gateways:
                continue
            nets = self.deps(gateways[0], "ipConfigurations", VNET)
            if not nets or nets[0].urn not in self.nets:
                continue
            net = self.nets[nets[0].urn]
            kind = "expressroute" if conn.inputs.get("connectionType") == "ExpressRoute" else "vpn"
            if kind == "vpn" and conn.inputs.get("enableBgp") is not True:
                local = self.deps(conn, "localNetworkGateway2", LOCAL_GATEWAY)
                announced = blocks(get(local[0].inputs, "localNetworkAddressSpace", "addressPrefixes") or []) \
                    if local else []
            else:
                announced = self.site_blocks(site)
            links.append(Link(site, net, kind, gateways[0].urn, announced,
                              self._component_blocks(conn, "remoteNetworks") or net.blocks, conn))
        return links

    def links_of(self, site: str, net: Net) -> list[Link]:
        return [lk for lk in self.links if lk.site == site and lk.net.res.urn == net.res.urn]

    # ---- AWS routes toward a site ------------------------------------------------------------------------
    def route_tables(self, subnets: list[PlannedResource]) -> list[PlannedResource]:
        urns = {s.urn for s in subnets}
        return [t for a in self.of(ASSOCIATION) if set(a.property_dependencies.get("subnetId", [])) & urns
                for t in self.deps(a, "routeTableId", ROUTE_TABLE)]

    def routes_to(self, table: PlannedResource, block: Block, link: Link) -> bool:
        """Whether the route table sends `block` to the link's gateway and the gateway knows it (BGP-learnt or a
        static route of the link): a route to the gateway (inline or separate), or a virtual private gateway's
        propagation."""
        if not covers(link.announced, block):
            return False
        if link.hub in table.property_dependencies.get("propagatingVgws", []):
            return True
        routes = table.inputs.get("routes")
        if unknown(routes):
            return True
        if link.hub in table.property_dependencies.get("routes", []) and any(
                isinstance(r, dict) and (r.get("transitGatewayId") or r.get("gatewayId"))
                and covers(blocks([r.get("cidrBlock")]), block) for r in routes or []):
            return True
        return any(link.hub in r.property_dependencies.get("gatewayId", []) +
                   r.property_dependencies.get("transitGatewayId", [])
                   and covers(blocks([r.inputs.get("destinationCidrBlock")]), block)
                   for r in self.referencing(table, "routeTableId", ROUTE))

    # ---- security ------------------------------------------------------------------------------------------------
    def aws_admits(self, groups: list[PlannedResource], block: Block, port: int, protocol: str) -> bool:
        """Whether one of the security groups lets `block` in on `port`."""
        for group in groups:
            ingress = group.inputs.get("ingress")
            if unknown(ingress):
                return True
            rules = [r for r in ingress or [] if isinstance(r, dict)]
            rules += [{"protocol": r.inputs.get("ipProtocol"), "fromPort": r.inputs.get("fromPort"),
                       "toPort": r.inputs.get("toPort"), "cidrBlocks": [r.inputs.get("cidrIpv4")]}
                      for r in self.referencing(group, "securityGroupId", INGRESS_RULE)]
            rules += [r.inputs for r in self.referencing(group, "securityGroupId", GROUP_RULE)
                      if r.inputs.get("type") == "ingress"]
            if any(_aws_rule_admits(r, block, port, protocol) for r in rules):
                return True
        return False

    def nsg_admits(self, nsgs: list[PlannedResource], net: Net, block: Block, port: int, protocol: str,
                   linked: bool) -> bool:
        """Whether every NSG on the way lets `block` in on `port`: its rules by priority, then Azure's defaults
        (AllowVnetInBound admits a block a gateway connects, `linked`)."""
        for nsg in nsgs:
            rules = nsg.inputs.get("securityRules")
            if unknown(rules):
                continue
            stated = [r for r in rules or [] if isinstance(r, dict)]
            stated += [r.inputs for r in self.referencing(nsg, "networkSecurityGroupName", NSG_RULE)]
            inbound = sorted((r for r in stated if str(r.get("direction", "Inbound")).lower() == "inbound"),
                             key=lambda r: r.get("priority") or 0)
            verdict = None
            for rule in [*inbound, *AZURE_DEFAULT_INBOUND]:
                if _nsg_matches(rule, net, block, port, protocol, linked):
                    verdict = str(rule.get("access")).lower() == "allow"
                    break
            if verdict is False:
                return False
        return True

    def endpoint_nsgs(self, net: Net) -> list[PlannedResource]:
        """The NSGs that apply to private endpoints in a VNet: those of subnets with endpoint network policies
        on (Azure applies no NSG to a private endpoint otherwise)."""
        subnets = net.res.inputs.get("subnets") or []
        applies = any(isinstance(s, dict) and s.get("privateEndpointNetworkPolicies") == "Enabled"
                      and s.get("networkSecurityGroup") for s in subnets)
        return self.deps(net.res, "subnets", NSG) if applies else []


def _aws_rule_admits(rule: dict[str, Any], block: Block, port: int, protocol: str) -> bool:
    proto = str(rule.get("protocol") or "").lower()
    if proto not in (protocol, "-1", "all", {"tcp": "6", "udp": "17"}[protocol]):
        return False
    if proto not in ("-1", "all"):
        low, high = rule.get("fromPort"), rule.get("toPort")
        if not (isinstance(low, int) and isinstance(high, int) and low <= port <= high):
            return unknown([low, high])
    cidrs = rule.get("cidrBlocks") or []
    return unknown(cidrs) or covers(blocks(cidrs), block)


def _prefixes(rule: dict[str, Any], one: str, many: str) -> list[str]:
    values = rule.get(many) or []
    single = rule.get(one)
    return [str(v) for v in ([single] if single else []) + list(values)]


def _nsg_matches(rule: dict[str, Any], net: Net, block: Block, port: int, protocol: str, linked: bool) -> bool:
    proto = str(rule.get("protocol") or "*").lower()
    if proto not in ("*", protocol):
        return False
    ports = _prefixes(rule, "destinationPortRange", "destinationPortRanges")
    if not any(_port_in(p, port) for p in ports):
        return False
    sources = _prefixes(rule, "sourceAddressPrefix", "sourceAddressPrefixes")
    if not any(p in ("*", "Any", "Internet") or (p == "VirtualNetwork" and (linked or covers(net.blocks, block)))
               or covers(blocks([p]), block) for p in sources):
        return False
    targets = _prefixes(rule, "destinationAddressPrefix", "destinationAddressPrefixes")
    return any(p in ("*", "Any", "VirtualNetwork") or any(b.overlaps(n) for b in blocks([p]) for n in net.blocks)
               for p in targets)


def _port_in(spec: str, port: int) -> bool:
    if spec in ("*", "Any"):
        return True
    low, _, high = spec.partition("-")
    try:
        return int(low) <= port <= int(high or low)
    except ValueError:
        return False
