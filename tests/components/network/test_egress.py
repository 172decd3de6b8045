"""Egress, planned through the real stacks: AWS reached through in-region VPC endpoints, Azure storage and Key
Vault through private endpoints with public access off, and no team pod able to reach a public address."""

from __future__ import annotations

import ipaddress
import json

import pytest
import yaml
from sahab.components.aws.endpoints import DEFAULT_INTERFACE_SERVICES, s3_endpoint_policy
from sahab.components.egress import PRIVATE_RANGES

from sahab.cli import main
from sahab.engine import plan
from tests.components.kubernetes.manifests import manifest, validate
from tests.fleets import ROOT, prod_with_only, stack_fleet
from tests.helpers import Planned, planned_stack
from tests.plans import stack_command

REGION = "me-central-1"
ENDPOINT = "aws:ec2/vpcEndpoint:VpcEndpoint"
SUBNET = "aws:ec2/subnet:Subnet"
NETWORK_POLICY = "kubernetes:networking.k8s.io/v1:NetworkPolicy"
STACKS = ("dev", "prod", "burst", "smb")
PRIVATE = [ipaddress.ip_network(r) for r in PRIVATE_RANGES]


def _private_subnets(p: Planned) -> list:
    return [s for s in p.of(SUBNET) if "-private-" in s.name]


def _endpoints(p: Planned) -> dict[tuple[str, str], dict]:
    return {(e.inputs["serviceName"], e.inputs["vpcEndpointType"]): e for e in p.of(ENDPOINT)}


def test_prod_vpc_reaches_every_aws_service_it_needs_through_in_region_endpoints_with_private_dns(prod):
    endpoints = _endpoints(prod)
    private_ids = sorted(s.id for s in _private_subnets(prod))
    assert len(private_ids) == 3
    (group,) = [g for g in prod.of("aws:ec2/securityGroup:SecurityGroup") if g.name.endswith("-endpoints-sg")]
    for service in (*DEFAULT_INTERFACE_SERVICES, "s3"):
        ep = endpoints[(f"com.amazonaws.{REGION}.{service}", "Interface")]
        assert prod.region_of(ep) == REGION
        assert ep.inputs["privateDnsEnabled"] is True, service
        assert sorted(ep.inputs["subnetIds"]) == private_ids, service
        assert ep.inputs["securityGroupIds"] == [group.id], service
    assert {"ecr.api", "ecr.dkr", "sts", "kms", "logs", "eks-auth", "ec2", "autoscaling"} <= set(
        DEFAULT_INTERFACE_SERVICES)
    # S3's interface endpoint answers for the regional S3 names everywhere in the VPC, so pods fenced to the VPC's
    # range reach it.
    s3 = endpoints[(f"com.amazonaws.{REGION}.s3", "Interface")].inputs
    assert s3["dnsOptions"]["privateDnsOnlyForInboundResolverEndpoint"] is False


def test_s3_gateway_endpoint_is_on_the_private_route_table_only(prod):
    gateway = _endpoints(prod)[(f"com.amazonaws.{REGION}.s3", "Gateway")]
    assert prod.region_of(gateway) == REGION
    private_ids = {s.id for s in _private_subnets(prod)}
    associations = prod.of("aws:ec2/routeTableAssociation:RouteTableAssociation")
    private_tables = {a.inputs["routeTableId"] for a in associations if a.inputs["subnetId"] in private_ids}
    public_tables = {a.inputs["routeTableId"] for a in associations if a.inputs["subnetId"] not in private_ids}
    assert len(private_tables) == 1 and public_tables and not private_tables & public_tables
    assert set(gateway.inputs["routeTableIds"]) == private_tables


def test_s3_endpoints_let_through_only_the_fleets_buckets_and_ecr_image_layers(prod):
    bucket_arns = {b.outputs["arn"] for b in prod.of("aws:s3/bucket:Bucket")}
    assert len(bucket_arns) == 2  # datasets, checkpoints
    endpoints = _endpoints(prod)
    for kind in ("Gateway", "Interface"):
        policy = json.loads(endpoints[(f"com.amazonaws.{REGION}.s3", kind)].inputs["policy"])
        resources = {r for s in policy["Statement"] for r in ([s["Resource"]] if isinstance(s["Resource"], str)
                                                              else s["Resource"])}
        assert all(s["Effect"] == "Allow" for s in policy["Statement"])
        assert resources == {f"arn:aws:s3:::prod-{REGION}-starport-layer-bucket/*"} | bucket_arns | {
            f"{arn}/*" for arn in bucket_arns}
        layers = next(s for s in policy["Statement"] if s["Resource"] == f"arn:aws:s3:::prod-{REGION}-"
                      "starport-layer-bucket/*")
        assert layers["Action"] == "s3:GetObject"  # ECR's bucket: read only


def test_endpoint_policy_without_buckets_admits_image_layers_only():
    policy = json.loads(s3_endpoint_policy("me-central-1", []))
    assert [s["Resource"] for s in policy["Statement"]] == ["arn:aws:s3:::prod-me-central-1-starport-layer-bucket/*"]


def test_interface_endpoints_admit_https_from_the_vpc_and_the_linked_sites_only(prod):
    (group,) = [g for g in prod.of("aws:ec2/securityGroup:SecurityGroup") if g.name.endswith("-endpoints-sg")]
    vpc = prod.one("aws:ec2/vpc:Vpc")
    assert group.inputs["vpcId"] == vpc.id
    # prod's two sites reach ECR and S3 over their links (components/hybrid_build.py).
    assert [(r["protocol"], r["fromPort"], r["toPort"], r["cidrBlocks"]) for r in group.inputs["ingress"]] == [
        ("tcp", 443, 443, [cidr]) for cidr in (vpc.inputs["cidrBlock"], "10.10.0.0/16", "10.20.0.0/16")]
    assert group.inputs.get("egress", []) == []


def test_prod_keeps_one_nat_gateway_by_default(prod):
    assert len(prod.of("aws:ec2/natGateway:NatGateway")) == 1
    assert len(prod.of("aws:ec2/internetGateway:InternetGateway")) == 1


def test_an_airgapped_vpc_has_no_way_out_but_its_endpoints(tmp_path):
    fleet = prod_with_only("eks-main", "auh-onprem")  # the VPC, and a site linked to it
    fleet["clouds"]["aws"]["airgapped"] = True
    airgapped = Planned(plan(_program(tmp_path, fleet), "t").resources)
    for token in ("aws:ec2/natGateway:NatGateway", "aws:ec2/internetGateway:InternetGateway", "aws:ec2/eip:Eip"):
        assert airgapped.of(token) == [], token
    assert all("-public-" not in s.name for s in airgapped.of(SUBNET))
    assert all(not t.inputs.get("routes") for t in airgapped.of("aws:ec2/routeTable:RouteTable"))
    assert {(f"com.amazonaws.{REGION}.{s}", "Interface") for s in DEFAULT_INTERFACE_SERVICES} <= set(
        _endpoints(airgapped))


def test_burst_builds_no_network_of_its_own_and_joins_prods_private_subnets(burst):
    assert burst.of("aws:ec2/vpc:Vpc") == [] and burst.of(ENDPOINT) == []
    assert burst.of("aws:ec2/natGateway:NatGateway") == []


# ---- Azure ------------------------------------------------------------------------------------------------
def test_azure_storage_and_key_vault_are_reached_only_through_private_endpoints(prod):
    vnet = prod.one("azure-native:network:VirtualNetwork")
    subnets = {s["name"]: s for s in vnet.inputs["subnets"]}
    endpoint_subnet = ipaddress.ip_network(subnets["private-endpoints"]["addressPrefix"])
    assert endpoint_subnet.subnet_of(ipaddress.ip_network(vnet.inputs["addressSpace"]["addressPrefixes"][0]))
    assert not any(endpoint_subnet.overlaps(ipaddress.ip_network(s["addressPrefix"]))
                   for name, s in subnets.items() if name != "private-endpoints")

    zones = {z.inputs["privateZoneName"]: z for z in prod.of("azure-native:privatedns:PrivateZone")}
    assert set(zones) == {"privatelink.blob.core.windows.net", "privatelink.vaultcore.azure.net",
                          "privatelink.azurecr.io"}
    links = prod.of("azure-native:privatedns:VirtualNetworkLink")
    assert {(link.inputs["privateZoneName"], link.inputs["virtualNetwork"]["id"]) for link in links} == {
        (name, vnet.id) for name in zones}
    assert all(link.inputs["registrationEnabled"] is False for link in links)

    targets = {a.id: ("blob", a) for a in prod.of("azure-native:storage:StorageAccount")}
    targets |= {v.id: ("vault", v) for v in prod.of("azure-native:keyvault:Vault")}
    targets |= {r.id: ("registry", r) for r in prod.of("azure-native:containerregistry:Registry")}
    assert len(targets) == 4  # the data account, the checkpoints account (azcheckpoints), the Key Vault, the ACR
    endpoints = prod.of("azure-native:network:PrivateEndpoint")
    groups = {g.inputs["privateEndpointName"]: g for g in prod.of("azure-native:network:PrivateDnsZoneGroup")}
    covered = set()
    for ep in endpoints:
        (connection,) = ep.inputs["privateLinkServiceConnections"]
        group_id, _ = targets[connection["privateLinkServiceId"]]
        assert connection["groupIds"] == [group_id]
        assert ep.inputs["subnet"]["id"].endswith("/subnets/private-endpoints")
        assert ep.inputs["location"] == "uaenorth"
        (config,) = groups[ep.outputs["name"]].inputs["privateDnsZoneConfigs"]
        zone_name = {"blob": "privatelink.blob.core.windows.net", "vault": "privatelink.vaultcore.azure.net",
                     "registry": "privatelink.azurecr.io"}[group_id]
        assert config["privateDnsZoneId"] == zones[zone_name].id
        covered.add(connection["privateLinkServiceId"])
    assert covered == set(targets)

    for account in prod.of("azure-native:storage:StorageAccount"):
        assert account.inputs["publicNetworkAccess"] == "Disabled"
    for vault in prod.of("azure-native:keyvault:Vault"):
        assert vault.inputs["properties"]["publicNetworkAccess"] == "Disabled"


# ---- team egress ------------------------------------------------------------------------------------------
def _covers_public(cidr: str) -> bool:
    net = ipaddress.ip_network(cidr, strict=False)
    return not any(net.subnet_of(p) for p in PRIVATE if p.version == net.version)


def _egress_problems(policies: list[dict], namespaces: set[str]) -> list[str]:
    """What in these NetworkPolicy objects lets pods of `namespaces` reach a public address."""
    problems = []
    for policy in policies:
        meta, spec = policy["metadata"], policy["spec"]
        if meta["namespace"] not in namespaces:
            continue
        for rule in spec.get("egress", []):
            if not rule.get("to"):
                problems.append(f"{meta['namespace']}/{meta['name']}: an egress rule without `to` allows everything")
            for peer in rule.get("to", []):
                block = peer.get("ipBlock")
                if block and _covers_public(block["cidr"]):
                    problems.append(f"{meta['namespace']}/{meta['name']}: egress to {block['cidr']}")
    return problems


@pytest.mark.parametrize("stack", STACKS)
def test_no_team_namespace_can_reach_a_public_address(stack):
    p = planned_stack(stack)
    teams = {t["name"] for t in stack_fleet(stack).get("workload", {}).get("teams", [{"name": "ml-training"}])}
    policies = [n for n in p.of(NETWORK_POLICY) if n.inputs["metadata"]["namespace"] in teams]
    if stack != "burst":  # burst installs no platform: prod's clusters already have it
        assert {n.inputs["metadata"]["namespace"] for n in policies} == teams
        for team in teams:  # every team is fenced: default-deny covers every pod, both directions
            assert any(n.inputs["metadata"]["namespace"] == team and n.inputs["spec"] == {
                "podSelector": {}, "policyTypes": ["Ingress", "Egress"]} for n in policies)
    assert _egress_problems([n.inputs for n in p.of(NETWORK_POLICY)], teams) == []


def test_team_https_egress_is_the_clusters_own_network(prod):
    allowed = {}
    for policy in prod.of(NETWORK_POLICY):
        if policy.inputs["metadata"]["name"] == "allow-object-storage":
            cluster = policy.name.split("-platform-")[0].removeprefix("sahab-")
            allowed.setdefault(cluster, set()).update(
                peer["ipBlock"]["cidr"] for rule in policy.inputs["spec"]["egress"] for peer in rule["to"])
    # On-prem clusters have no storage endpoint: their teams get no HTTPS egress out of the cluster at all.
    assert allowed == {"eks-main": {"10.40.0.0/16"}, "aks-main": {"10.50.0.0/16"}}


def test_the_walk_catches_what_it_looks_for():
    """The walk above flags public blocks and `to`-less rules (so its empty answers mean something)."""
    def policy(*egress: dict) -> dict:
        return {"metadata": {"namespace": "t", "name": "x"}, "spec": {"egress": list(egress)}}

    bad = [policy({"ports": [{"port": 443}]}),
           policy({"to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": ["10.0.0.0/8"]}}]}),
           policy({"to": [{"ipBlock": {"cidr": "10.0.0.0/7"}}]})]
    assert len(_egress_problems(bad, {"t"})) == 3
    good = [policy({"to": [{"ipBlock": {"cidr": "10.40.0.0/16"}}, {"podSelector": {}}]})]
    assert _egress_problems(good, {"t"}) == []


@pytest.mark.parametrize("stack", ["prod", "smb"])
def test_network_policies_are_schema_valid(stack):
    problems = {p.name: validate(manifest(p)) for p in planned_stack(stack).of(NETWORK_POLICY)}
    assert {name: found for name, found in problems.items() if found} == {}


# ---- every cluster kind enforces NetworkPolicy ----------------------------------------------------------------
def test_every_cluster_kind_of_prod_enforces_network_policies(prod):
    cni = next(a for a in prod.of("aws:eks/addon:Addon") if a.inputs["addonName"] == "vpc-cni")
    assert json.loads(cni.inputs["configurationValues"]) == {"enableNetworkPolicy": "true"}
    aks = prod.one("azure-native:containerservice:ManagedCluster").inputs["networkProfile"]
    assert (aks["networkPolicy"], aks["networkDataplane"]) == ("cilium", "cilium")
    cilium = [r for r in prod.of("kubernetes:helm.sh/v3:Release")
              if str(r.inputs.get("chart", "")).endswith("/cilium")]
    assert len(cilium) == 2  # one per on-prem cluster (auh, dxb)
    for release in cilium:
        assert release.inputs["values"]["policyEnforcementMode"] == "default"


# ---- refused settings ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("cloud, field, value", [("aws", "vpc_cidr", "52.95.0.0/16"),
                                                 ("azure", "vnet_cidr", "20.0.0.0/16")])
def test_a_public_network_range_is_refused_naming_the_setting(tmp_path, capsys, cloud, field, value):
    fleet = stack_fleet("prod")
    fleet["clouds"][cloud][field] = value
    code = main(["plan", "--program", str(_program(tmp_path, fleet)), "--stack", "t", "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and err[0].startswith(f"error: sahab:fleet.clouds.{cloud}.{field}")
    assert "public" in err[0]


def test_a_fourth_aks_cluster_in_one_location_is_refused_naming_it():
    from sahab.components.errors import ConfigError
    from sahab.components.fleet_config import parse_fleet

    fleet = stack_fleet("prod")
    fleet["clusters"] += [{"name": f"aks-{n}", "kind": "aks"} for n in ("b", "c")]
    parse_fleet(fleet)  # three share uaenorth's VNet, beside its private endpoints
    fleet["clusters"].append({"name": "aks-d", "kind": "aks"})
    with pytest.raises(ConfigError, match=r"^sahab:fleet\.clusters\[6\]: at most 3 AKS clusters"):
        parse_fleet(fleet)


# ---- the four stacks still pass and come up ------------------------------------------------------------------
@pytest.mark.parametrize("stack", STACKS)
def test_stacks_plan_ready(stack):
    planned = stack_command("plan", stack)  # `sahab plan --stack S --format json`, once per run (tests/plans.py)
    report = json.loads(planned.out)
    assert (planned.code, report["readiness"]["ok"], report["readiness"]["problems"]) == (0, True, [])


def _program(tmp_path, fleet: dict):
    (tmp_path / "Pulumi.yaml").write_text(f"name: sahab\nruntime: python\nmain: {ROOT / 'stacks'}\n")
    stack = {"config": {"aws:region": REGION, "azure-native:location": "uaenorth", "sahab:fleet": fleet}}
    (tmp_path / "Pulumi.t.yaml").write_text(yaml.safe_dump(stack))
    return tmp_path


def test_the_fleet_and_the_pack_agree_on_which_ranges_are_private():
    """Two lists, because the published pack ships policies/ alone and cannot import components: the fleet's
    (the blocks a VPC, a VNet or a fence may use) and the pack's (SAHAB-K8S-020, exposure rules). The pack's is
    the fleet's plus what only an on-prem site uses: IPv6 unique local addresses and loopback."""
    from sahab.policies.rules.egress import PRIVATE_RANGES as PACK_RANGES

    site_only = {ipaddress.ip_network(r) for r in ("fc00::/7", "127.0.0.0/8", "::1/128")}
    assert len(set(PRIVATE)) == len(PRIVATE) and len(set(PACK_RANGES)) == len(PACK_RANGES)
    assert set(PACK_RANGES) == set(PRIVATE) | site_only
    assert not any(net.version == 6 or net.is_loopback for net in PRIVATE)
