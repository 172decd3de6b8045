"""Reachability over the hybrid network: does every client of the plan reach what it needs?

Clients and what they need, all read from the plan (sahab/readiness/network.py builds the graph):

- every site with links (`sahab:network:Site`): each network of the clouds it links to, whole: the Kubernetes API
  servers, the registry and object-storage endpoints and the inbound resolver, on their ports, with its DNS
  servers forwarding to that resolver. This is the declared link, judged piece by piece.
- the deployer (`sahab:network:Deployer`): the API server of every cloud cluster this plan puts Kubernetes objects
  on, and every registry it pulls Helm charts from, by name, from where it sits.
- a MultiKueue manager (an on-prem cluster with MultiKueueCluster objects): each worker's API server.
- a cloud cluster's own clients, from inside its network: its nodes pulling every image the plan names in ECR or
  the ACR (the interface endpoint's security group, else a route out; the ACR's private endpoint, privatelink zone
  and NSG), and its training pods writing checkpoints to S3 or Blob the same way.

For one client and one target the checks run in the order traffic needs them: the name resolves (to the private
address through the site's forwarders and an inbound resolver, or publicly where the cloud publishes it), a link
joins the site to the target's network, each end routes the other's blocks into it, and the target's security
group or NSG admits the client's blocks on the port. The first that fails is the problem, named. Overlapping
blocks between sites and cloud networks are a problem of their own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from sahab.components import kinds
from sahab.components.hybrid_plan import zone_of
from sahab.engine import PlannedResource
from sahab.readiness.clusters import adapter, discover
from sahab.readiness.common import get
from sahab.readiness.network import (
    DEPLOYER,
    INBOUND_ENDPOINT,
    PRIVATE_ENDPOINT,
    RESOLVER,
    SECURITY_GROUP,
    SUBNET,
    VPC_ENDPOINT,
    Block,
    Graph,
    Net,
    blocks,
    covers,
)
from sahab.readiness.readiness_types import Cluster, Problem

ECR_HOST = re.compile(r"^(?P<account>[0-9]{12})\.dkr\.ecr\.(?P<region>[a-z0-9-]+)\.amazonaws\.com$")
ACR_HOST = re.compile(r"^(?P<name>[a-z0-9]{5,50})\.azurecr\.io$")
REGISTRY = "azure-native:containerregistry:Registry"
ANY_HOST = re.compile(r"([0-9]{12}\.dkr\.ecr\.[a-z0-9-]+\.amazonaws\.com|[a-z0-9]{5,50}\.azurecr\.io)")
CHECKPOINT_ENV = "SAHAB_CHECKPOINT_DIR"  # components/kubernetes/training_job.py
STORAGE_ACCOUNT = "azure-native:storage:StorageAccount"
HELM = ("kubernetes:helm.sh/v3:Release", "kubernetes:helm.sh/v4:Chart", "kubernetes:helm.sh/v3:Chart")
HTTPS, DNS = 443, 53


@dataclass
class Target:
    what: str  # e.g. "the API server of sahab-eks-main"
    cluster: str  # the readiness problem's cluster
    net: Net
    port: int = HTTPS
    protocol: str = "tcp"
    groups: list[PlannedResource] | None = None  # AWS security groups (None: Azure)
    subnets: list[PlannedResource] = field(default_factory=list)  # AWS: its subnets, for their route tables
    nsg: bool = False  # Azure: the VNet's private-endpoint NSGs apply
    name: str | None = None  # a name it answers on
    published: bool = False  # public DNS already gives its private address (EKS, a private AKS's public FQDN)
    public: bool = False  # reachable over the internet
    public_cidrs: list[Block] | None = None  # with `public`: only from these (None: from anywhere)


@dataclass
class Client:
    what: str
    cluster: str
    site: str | None
    blocks: list[Block]


def judge(resources: list[PlannedResource], mine: set[str]) -> list[Problem]:
    graph = Graph(resources)
    problems: list[Problem] = []
    seen: set[tuple[str, str]] = set()

    def add(cluster: str, obj: str, text: str) -> None:
        if (obj, text) not in seen:
            seen.add((obj, text))
            problems.append(Problem(cluster, obj, text))

    for cluster, obj, text in overlaps(graph, mine):
        add(cluster, obj, text)
    clusters = discover(resources)
    attach_by_provider_name(resources, clusters)
    apis = [t for t in (api_target(graph, c) for c in clusters) if t is not None]
    for site in graph.sites.values():
        if site.res.urn in mine:
            for cluster, obj, text in declared_links(graph, site, apis):
                add(cluster, obj, text)
    for cluster, obj, text in in_cloud_flows(graph, clusters, mine):
        add(cluster, obj, text)
    for client, targets in [*deployer_flows(graph, clusters, mine), *multikueue_flows(graph, clusters, mine)]:
        for target in targets:
            reason = reach(graph, client, target)
            if reason:
                add(target.cluster or client.cluster, client.what, f"cannot reach {target.what}: {reason}")
    return problems


def attach_by_provider_name(resources: list[PlannedResource], clusters: list[Cluster]) -> None:
    """Kubernetes objects on a provider whose kubeconfig comes from another stack (a burst stack reaches the owning
    stack's clusters through a StackReference) join the cluster the provider is named after: Sahab names each
    `<fleet>-<cluster>-k8s`; the longest cluster-name tail the provider's name ends with decides."""
    attached = {o.urn for c in clusters for o in c.objects}
    by_provider: dict[str, list[PlannedResource]] = {}
    for res in resources:
        if res.type.startswith("kubernetes:") and res.urn not in attached and res.provider:
            by_provider.setdefault(res.provider, []).append(res)
    providers = {r.urn: r for r in resources if r.type == "pulumi:providers:kubernetes"}
    for urn, objects in by_provider.items():
        provider = providers.get(urn)
        if provider is None or not provider.name.endswith("-k8s"):
            continue
        base = provider.name.removesuffix("-k8s")
        best, length = None, 0
        for cluster in clusters:
            parts = cluster.name.split("-")
            for i in range(len(parts)):
                tail = "-".join(parts[i:])
                if (base == tail or base.endswith(f"-{tail}")) and len(tail) > length:
                    best, length = cluster, len(tail)
        if best is not None:
            best.objects.extend(objects)


# ---- targets -----------------------------------------------------------------------------------------------------
def api_target(graph: Graph, cluster: Cluster) -> Target | None:
    """A cloud cluster's API server, where it answers and who may reach it (its kind's adapter reads it)."""
    if cluster.anchor is None:
        return None
    return adapter(cluster.kind).api_target(graph, cluster)


def endpoint_targets(graph: Graph, net: Net | None = None) -> list[Target]:
    """The registry and object-storage endpoints of a network (every network when None)."""
    found = []
    for endpoint in graph.of(VPC_ENDPOINT):
        service = str(endpoint.inputs.get("serviceName") or "")
        where = graph.net_of(endpoint, "vpcId")
        if where is None or (net is not None and where is not net) or endpoint.inputs.get("vpcEndpointType") != \
                "Interface" or endpoint.inputs.get("privateDnsEnabled") is not True:
            continue
        region, kind = where.region, service.rsplit(".", 1)[-1]
        names = {"dkr": f"registry.dkr.ecr.{region}.amazonaws.com", "api": f"api.ecr.{region}.amazonaws.com",
                 "s3": f"prod-{region}-starport-layer-bucket.s3.{region}.amazonaws.com"}
        if service.endswith((".ecr.dkr", ".ecr.api")) or service.endswith(".s3"):
            what = {"dkr": "ECR's registry endpoint", "api": "ECR's API endpoint", "s3": "S3's endpoint"}[kind]
            found.append(Target(f"{what} in {where.label}", "", where,
                                groups=graph.deps(endpoint, "securityGroupIds", SECURITY_GROUP),
                                subnets=graph.deps(endpoint, "subnetIds", SUBNET), name=names[kind], public=True))
    for endpoint in graph.of(PRIVATE_ENDPOINT):
        where = graph.net_of(endpoint, "subnet")
        service = graph.deps(endpoint, "privateLinkServiceConnections", REGISTRY, STORAGE_ACCOUNT)
        if where is None or not service or (net is not None and where is not net):
            continue
        target = service[0]
        public = target.inputs.get("publicNetworkAccess") not in ("Disabled",)
        if target.type == REGISTRY:
            host = f"{target.inputs.get('registryName') or 'registry'}.azurecr.io"
            found.append(Target(f"registry {host} in {where.label}", "", where, nsg=True, name=host, public=public))
        else:
            host = f"{target.inputs.get('accountName') or 'account'}.blob.core.windows.net"
            found.append(Target(f"storage {host} in {where.label}", "", where, nsg=True, name=host, public=public))
    return found


def resolver_targets(graph: Graph) -> list[tuple[Target, list[str]]]:
    """Every inbound resolver endpoint (UDP 53) and its addresses."""
    found = []
    for endpoint in graph.of(RESOLVER):
        if endpoint.inputs.get("direction") != "INBOUND":
            continue
        subnets = graph.deps(endpoint, "ipAddresses", SUBNET)
        net = graph.net_of_subnets(subnets)
        addresses = [str(a.get("ip")) for a in endpoint.inputs.get("ipAddresses") or [] if isinstance(a, dict)]
        if net is not None:
            found.append((Target(f"the inbound resolver of {net.label}", "", net, port=DNS, protocol="udp",
                                 groups=graph.deps(endpoint, "securityGroupIds", SECURITY_GROUP), subnets=subnets),
                          addresses))
    for endpoint in graph.of(INBOUND_ENDPOINT):
        net = graph.net_of(endpoint, "ipConfigurations")
        addresses = [str(c.get("privateIpAddress")) for c in endpoint.inputs.get("ipConfigurations") or []
                     if isinstance(c, dict)]
        if net is not None:
            found.append((Target(f"the inbound resolver of {net.label}", "", net, port=DNS, protocol="udp"),
                          addresses))
    return found


def registry_targets(graph: Graph, host: str) -> list[Target]:
    """Where a registry host answers privately (its endpoints), or [] when the plan builds no such registry."""
    ecr, acr = ECR_HOST.match(host), ACR_HOST.match(host)
    if not (ecr or acr):
        return []
    found = []
    for target in endpoint_targets(graph):
        if ecr and target.name == f"registry.dkr.ecr.{ecr['region']}.amazonaws.com":
            found.append(Target(f"registry {host}", "", target.net, groups=target.groups, subnets=target.subnets,
                                name=host, public=True))
        elif acr and target.name == host:
            found.append(Target(f"registry {host}", "", target.net, nsg=True, name=host, public=target.public))
    return found


# ---- reaching one target ----------------------------------------------------------------------------------------
def reach(graph: Graph, client: Client, target: Target) -> str | None:
    """Why `client` cannot reach `target`, or None."""
    if client.site is None:
        if target.public and (target.public_cidrs is None or all(covers(target.public_cidrs, b)
                                                                   for b in client.blocks)):
            return None
        return (f"it is private to {target.net.label} and {client.what} is on no site's network; run "
                "`pulumi up` on a site with links (deployer.site) or open a public endpoint to its range")
    site = graph.sites.get(client.site)
    if site is None:
        return f"site {client.site} is not in the plan with its networks and links"
    private = True
    if target.name:
        zone = zone_of(target.name, list(site.forwarders))
        if zone is not None:
            problem = _resolves_privately(graph, client, site.forwarders[zone], zone, target)
            if problem:
                return problem
        elif target.public:
            private = False  # resolved publicly, reached over its public endpoint
        elif not target.published:
            return (f"{target.name} resolves only inside {target.net.label}, and site {client.site}'s DNS servers "
                    f"forward none of its zone; forward it to that network's inbound resolver")
    if not private and (target.public_cidrs is None or all(covers(target.public_cidrs, b) for b in client.blocks)):
        return None
    return network_path(graph, client, target)


def _resolves_privately(graph: Graph, client: Client, addresses: list[str], zone: str, target: Target) -> str | None:
    resolvers = [(t, a) for t, a in resolver_targets(graph) if set(a) & set(addresses)]
    if not resolvers:
        return (f"site {client.site} forwards {zone} to {', '.join(addresses)}, which is no inbound resolver "
                "endpoint in the plan")
    resolver, _ = resolvers[0]
    if resolver.net is not target.net:
        return None  # answered in another network, where the name has its own private address
    return network_path(graph, client, resolver)


def network_path(graph: Graph, client: Client, target: Target) -> str | None:
    """A link from the client's site into the target's network, routes both ways, and the target's rules."""
    net = target.net
    links = graph.links_of(client.site, net)
    if not links:
        return f"no link from site {client.site} to {net.label}"
    if not any(covers(lk.remote, n) for lk in links for n in net.blocks):
        return f"site {client.site} routes none of {net.label} into its link"
    for block in client.blocks:
        carrying = [lk for lk in links if covers(lk.announced, block)]
        if not carrying:
            return (f"{net.label} has no route for {block} over site {client.site}'s link (not announced over BGP "
                    "nor a static route of the link)")
        if net.cloud == "aws":
            for table in graph.route_tables(target.subnets):
                if not any(graph.routes_to(table, block, lk) for lk in carrying):
                    return f"route table {table.name} has no route for {block} to the site's link"
        if target.groups is not None and not graph.aws_admits(target.groups, block, target.port, target.protocol):
            names = ", ".join(g.name for g in target.groups) or "EKS's own cluster security group"
            return f"security group {names} admits nothing from {block} on {target.protocol}/{target.port}"
        if target.nsg and not graph.nsg_admits(graph.endpoint_nsgs(net), net, block, target.port, target.protocol,
                                               linked=True):
            return f"the network security group of {net.label} refuses {block} on {target.protocol}/{target.port}"
    return None


# ---- the clients ------------------------------------------------------------------------------------------------
def declared_links(graph: Graph, site, apis: list[Target]) -> Iterable[tuple[str, str, str]]:
    """Each link the site declares, whole: every network of that cloud reached on every port that crosses, and its
    DNS servers forwarding to that network's resolver."""
    client = Client(f"site {site.name}", "", site.name, site.blocks)
    resolvers = resolver_targets(graph)
    for declared in site.links:
        cloud = declared.get("cloud")
        nets = [n for n in graph.nets.values() if n.cloud == cloud]
        if not nets:
            continue
        for net in nets:
            obj = f"site {site.name}'s link to {net.label}"
            if not graph.links_of(site.name, net):
                yield "", obj, f"no {declared.get('type', 'vpn')} link from site {site.name} to {net.label} is built"
                continue
            converged = any(r.parent == site.res.urn and r.type.startswith("pulumi-python:dynamic")
                            for r in graph.resources)
            if declared.get("type", "vpn") == "vpn" and (site.gateway or {}).get("terminatesOn") == "host" \
                    and not converged:
                yield "", obj, f"site {site.name}'s gateway host is not converged (no site end for the tunnels)"
            ours = [(t, a) for t, a in resolvers if t.net is net]
            if not ours:
                yield "", obj, f"{net.label} has no inbound resolver: site {site.name} cannot resolve its private names"
            elif not any(set(a) & set(addresses) for _, a in ours for addresses in site.forwarders.values()):
                yield "", obj, (f"site {site.name}'s DNS servers forward no zone to the inbound resolver of "
                                f"{net.label} ({', '.join(ours[0][1])})")
            targets = [t for t in apis if t.net is net] + endpoint_targets(graph, net) + [t for t, _ in ours]
            for target in targets:
                reason = network_path(graph, client, target)
                if reason:
                    yield target.cluster, obj, f"cannot reach {target.what}: {reason}"


def deployer_flows(graph: Graph, clusters: list[Cluster], mine: set[str]) -> list[tuple[Client, list[Target]]]:
    flows = []
    for deployer in graph.of(DEPLOYER):
        if deployer.urn not in mine:
            continue
        site = deployer.inputs.get("site")
        cidrs = blocks(deployer.inputs.get("cidrs") or []) or graph.site_blocks(str(site))
        where = f"site {site}" if site else ", ".join(map(str, cidrs)) or "an unknown network"
        client = Client(f"the deployer ({where})", "", site if isinstance(site, str) else None, cidrs)
        targets = [t for t in (api_target(graph, c) for c in clusters
                               if any(o.urn in mine for o in c.objects)) if t is not None]
        hosts = {m["host"] for r in graph.of(*HELM) if r.urn in mine
                 for m in [re.match(r"^oci://(?P<host>[^/]+)/", str(r.inputs.get("chart") or ""))] if m}
        for host in sorted(hosts):
            targets += _by_resolution(graph, client, registry_targets(graph, host))
        flows.append((client, targets))
    return flows


def _by_resolution(graph: Graph, client: Client, targets: list[Target]) -> list[Target]:
    """Of a registry's endpoints (one per network), the one the client's name resolution leads to."""
    site = graph.sites.get(client.site or "")
    if not targets or site is None:
        return targets[:1]
    zone = zone_of(targets[0].name or "", list(site.forwarders))
    if zone is None:
        return targets[:1]
    nets = {t.net.res.urn for t, a in resolver_targets(graph) if set(a) & set(site.forwarders[zone])}
    return [t for t in targets if t.net.res.urn in nets] or targets[:1]


def multikueue_flows(graph: Graph, clusters: list[Cluster], mine: set[str]) -> list[tuple[Client, list[Target]]]:
    flows = []
    for manager in clusters:
        workers = [o for o in manager.of_kind("MultiKueueCluster") if o.urn in mine]
        if not workers:
            continue
        site = next((s for s in graph.sites.values() if any(
            manager.name == c or manager.name.endswith(f"-{c}") for c in s.clusters)), None)
        client = Client(f"MultiKueue manager {manager.name}", manager.name, site.name if site else None,
                        site.blocks if site else [])
        targets = []
        in_clouds = [c for c in clusters if kinds.get(c.kind).cloud is not None]  # a worker is a cloud's cluster
        for worker in workers:
            name = str(get(worker.inputs, "metadata", "name") or "")
            kind = get(worker.inputs, "metadata", "labels", "sahab.io/cluster-kind")
            cluster = next((c for c in in_clouds if (not kind or c.kind == kind)
                            and (c.name == name or c.name.endswith(f"-{name}"))), None)
            target = api_target(graph, cluster) if cluster is not None else None
            if target is not None:
                targets.append(target)
        if site is None and targets:
            flows.append((Client(f"MultiKueue manager {manager.name}", manager.name, "(its site)", []), targets))
        else:
            flows.append((client, targets))
    return flows


def in_cloud_flows(graph: Graph, clusters: list[Cluster], mine: set[str]) -> Iterable[tuple[str, str, str]]:
    """A cloud cluster's own clients: its nodes pulling every image this plan names in its registries, and its
    training pods writing checkpoints to the cloud's object storage, from inside the cluster's network."""
    for cluster in clusters:
        objects = [o for o in cluster.objects if o.urn in mine]
        api = api_target(graph, cluster)
        if not objects or api is None:
            continue
        net = api.net
        hosts = sorted({h for o in objects for h in ANY_HOST.findall(_text(o.inputs))})
        for host in hosts:
            reason = _pull(graph, net, host, api.subnets)
            if reason:
                yield cluster.name, f"nodes of {cluster.name}", f"cannot pull from registry {host}: {reason}"
        writers = [o for o in objects if _writes_checkpoints(o.inputs)]
        if writers:
            reason = _store(graph, net, api.subnets)
            if reason:
                yield cluster.name, f"checkpoint writers of {cluster.name} ({len(writers)} Jobs)", reason


def _text(data) -> str:
    if isinstance(data, dict):
        return " ".join(_text(v) for v in data.values())
    if isinstance(data, list):
        return " ".join(_text(v) for v in data)
    return data if isinstance(data, str) else ""


def _writes_checkpoints(inputs) -> bool:
    """A pod template with the checkpoint location set to object storage (unknown in a preview counts)."""
    found = []

    def walk(data) -> None:
        if isinstance(data, dict):
            if data.get("name") == CHECKPOINT_ENV and "value" in data:
                found.append(str(data.get("value")))
            for v in data.values():
                walk(v)
        elif isinstance(data, list):
            for v in data:
                walk(v)

    walk(inputs)
    return any(not v.startswith("/") for v in found)


def _internet(graph: Graph, subnets: list[PlannedResource]) -> bool:
    tables = graph.route_tables(subnets)
    return any(isinstance(r, dict) and r.get("cidrBlock") == "0.0.0.0/0"
               for t in tables for r in t.inputs.get("routes") or [])


def _interface(graph: Graph, net: Net, suffix: str) -> list[PlannedResource]:
    return [e for e in graph.of(VPC_ENDPOINT) if graph.net_of(e, "vpcId") is net and str(
        e.inputs.get("serviceName") or "").endswith(suffix) and e.inputs.get("vpcEndpointType") == "Interface"
        and e.inputs.get("privateDnsEnabled") is True]


def _through(graph: Graph, net: Net, endpoints: list[PlannedResource], what: str) -> str | None:
    """An interface endpoint answers the service's name in the VPC: its security group must admit the VPC."""
    for endpoint in endpoints:
        groups = graph.deps(endpoint, "securityGroupIds", SECURITY_GROUP)
        for block in net.blocks:
            if not graph.aws_admits(groups, block, HTTPS, "tcp"):
                return (f"{what}'s interface endpoint answers its name in {net.label}, but security group "
                        f"{', '.join(g.name for g in groups)} admits nothing from {block} on tcp/443")
    return None


def _pull(graph: Graph, net: Net, host: str, subnets: list[PlannedResource]) -> str | None:
    ecr, acr = ECR_HOST.match(host), ACR_HOST.match(host)
    if ecr and net.cloud == "aws":
        endpoints = _interface(graph, net, ".ecr.dkr")
        if endpoints:
            return _through(graph, net, endpoints, "ECR")
        return None if _internet(graph, subnets) else (f"{net.label} has no ECR endpoint (ecr.dkr) and no route to "
                                                       "the internet")
    if acr and net.cloud == "azure":
        registries = [r for r in graph.of(REGISTRY) if r.inputs.get("registryName") == acr["name"]]
        if not registries or registries[0].inputs.get("publicNetworkAccess") != "Disabled":
            return None
        return _private_endpoint(graph, net, registries[0], "privatelink.azurecr.io")
    return None


def _store(graph: Graph, net: Net, subnets: list[PlannedResource]) -> str | None:
    if net.cloud == "aws":
        endpoints = _interface(graph, net, ".s3")
        if endpoints:
            return _through(graph, net, endpoints, "S3")
        gateway = any(str(e.inputs.get("serviceName") or "").endswith(".s3") and e.inputs.get("vpcEndpointType")
                      == "Gateway" for e in graph.of(VPC_ENDPOINT) if graph.net_of(e, "vpcId") is net)
        return None if gateway or _internet(graph, subnets) else f"{net.label} has no S3 endpoint and no route out"
    for account in graph.of(STORAGE_ACCOUNT):
        if account.inputs.get("publicNetworkAccess") == "Disabled":
            reason = _private_endpoint(graph, net, account, "privatelink.blob.core.windows.net")
            if reason:
                return reason
    return None


def _private_endpoint(graph: Graph, net: Net, target: PlannedResource, zone: str) -> str | None:
    """A service that refuses public networks is reached only through a private endpoint in the network, its name
    through the privatelink zone linked to the network, and the endpoints' NSG admitting the network."""
    what = f"{target.name} (public network access off)"
    endpoints = [e for e in graph.referencing(target, "privateLinkServiceConnections", PRIVATE_ENDPOINT)
                 if graph.net_of(e, "subnet") is net]
    if not endpoints:
        return f"{what} has no private endpoint in {net.label}"
    zones = [z.urn for z in graph.of("azure-native:privatedns:PrivateZone")
             if z.inputs.get("privateZoneName") == zone]
    linked = [lk for lk in graph.of("azure-native:privatedns:VirtualNetworkLink")
              if net.res.urn in lk.property_dependencies.get("virtualNetwork", [])
              and set(lk.property_dependencies.get("privateZoneName", [])) & set(zones)]
    if not linked:
        return f"no {zone} zone is linked to {net.label}: {what} resolves to its public address and refuses"
    for block in net.blocks:
        if not graph.nsg_admits(graph.endpoint_nsgs(net), net, block, HTTPS, "tcp", linked=False):
            return f"the network security group of {net.label} refuses {block} on tcp/443 to {what}"
    return None


def overlaps(graph: Graph, mine: set[str]) -> Iterable[tuple[str, str, str]]:
    """Blocks of two different places (sites, VPCs, VNets) that overlap: no router can tell them apart."""
    owners: list[tuple[str, Block, bool]] = []
    # By name, not in the order the program's resources happened to register: the same fleet, the same sentence.
    for site in sorted(graph.sites.values(), key=lambda s: s.name):
        owners += [(f"site {site.name}", b, site.res.urn in mine) for b in site.blocks]
    for net in sorted(graph.nets.values(), key=lambda n: n.label):
        owners += [(net.label.split(" (")[0], b, net.res.urn in mine) for b in net.blocks]
    for i, (a, block_a, mine_a) in enumerate(owners):
        for b, block_b, mine_b in owners[i + 1:]:
            if a != b and (mine_a or mine_b) and block_a.overlaps(block_b):
                yield "", f"{a} and {b}", (f"{block_a} of {a} overlaps {block_b} of {b}: traffic between them "
                                           "cannot be routed; give each its own block")

