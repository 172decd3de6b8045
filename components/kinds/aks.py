"""AKS: Azure Kubernetes Service clusters with their node pools, one landing zone (resource group, VNet, Key
Vault) per location, under one azure-native provider.

The builder also makes the Azure storage accounts. Its registry is an Azure Container Registry with cache rules;
its checkpoint store the stack's Azure `checkpoints` account, reached with workload identity.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pulumi
from sahab.components.errors import ConfigError
from sahab.components.fleet_config import ROOT
from sahab.components.fleet_config import AksCluster as AksClusterConfig  # the config section of AKS clusters
from sahab.components.gpu_stack import GpuStack, Owners
from sahab.components.kinds import ClusterComponent, KindSpec, NodeTypes, Reference, Registry, StorageClass
from sahab.components.registry_config import ACR_HOST, AcrRegistry

if TYPE_CHECKING:
    import pulumi_azure_native as azure_native
    from sahab.components.artifacts import Upstream
    from sahab.components.azure.landing_zone import LandingZone
    from sahab.components.checkpoint_build import ReferencedAccess
    from sahab.components.fleet import Fleet

NAME = "aks"
CLOUD = "azure"


@dataclass
class AzureState:
    """What the AKS builder made that other parts of the fleet build on."""

    provider: azure_native.Provider | None = None
    """The stack's azure-native provider."""
    zones: dict[str, LandingZone] = field(default_factory=dict)
    """The landing zone of every location with a cluster or a storage account, by location."""


def state(fleet: Fleet) -> AzureState:
    found = fleet.kind_state.get(NAME)
    return found if isinstance(found, AzureState) else AzureState()


def build(fleet: Fleet) -> dict[str, ClusterComponent]:
    """AKS clusters (created, or referenced) with their pools, and storage accounts, one landing zone
    (resource group, VNet, Key Vault) per location."""
    cfg, cloud = fleet.config, fleet.config.clouds.azure
    clusters = [c for c in cfg.clusters if c.kind == NAME]
    buckets = [b for b in cfg.storage.buckets if b.cloud == CLOUD]
    if cloud is None or not (clusters or buckets):
        return {}
    import pulumi_azure_native as azure_native
    from sahab.components.azure import plan
    from sahab.components.azure.aks_cluster import AksCluster, AksClusterArgs
    from sahab.components.azure.landing_zone import LandingZone, LandingZoneArgs
    from sahab.components.azure.node_pool import AksNodePool, AksNodePoolArgs
    from sahab.components.azure.storage_account import AzureStorage, AzureStorageArgs
    from sahab.components.hybrid_build import site_cidrs
    from sahab.components.pool_plan import aks_pool_names

    provider = azure_native.Provider(f"{fleet.fleet_name}-azure", location=cloud.location,
                                     subscription_id=cloud.subscription_id,
                                     opts=pulumi.ResourceOptions(parent=fleet))
    built_state = fleet.kind_state[NAME] = AzureState(provider=provider)
    under = pulumi.ResourceOptions(parent=fleet, providers=[provider])
    created = [c for c in clusters if not c.stack_reference]
    locations = sorted({cfg.region_of(c) for c in created} | ({cloud.location} if buckets else set()))
    zones: dict[str, LandingZone] = {}
    client = azure_native.authorization.get_client_config_output(opts=pulumi.InvokeOutputOptions(provider=provider))
    deployer = client.object_id  # the identity running `pulumi up`: it administers the clusters it creates
    # A person signs in with the Azure CLI; CI and runners as workload identities, service principals, MSIs.
    deployer_type = "User" if cloud.kubelogin == "azurecli" else "ServicePrincipal"
    if locations:
        tenant = client.tenant_id
        unique = (pulumi.get_project(), pulumi.get_stack(), cloud.subscription_id or "")
        for location in locations:
            zones[location] = LandingZone(f"{fleet.fleet_name}-{location}", LandingZoneArgs(
                location=location, tenant_id=tenant, vnet_cidr=cloud.vnet_cidr,
                vault_name=plan.key_vault_name(f"{fleet.fleet_name}-{location}", *unique),
                clusters=tuple(c.name for c in created if cfg.region_of(c) == location),
                hybrid=bool(site_cidrs(cfg, CLOUD)), site_cidrs=site_cidrs(cfg, CLOUD),
                tags=fleet.tags), opts=under)
    built_state.zones = zones

    built: dict[str, ClusterComponent] = {}
    for cluster in clusters:
        location = cfg.region_of(cluster)
        if cluster.stack_reference:
            aks = fleet.referenced(cluster, provider)
            rg, subnet = aks.resource_group_name, aks.subnet_id
        else:
            zone = zones[location]
            rg, subnet = zone.resource_group_name, zone.subnet_ids[cluster.name]
            aks = AksCluster(f"{fleet.fleet_name}-{cluster.name}", AksClusterArgs(
                cluster_name=f"{fleet.fleet_name}-{cluster.name}", location=location, resource_group_name=rg,
                subnet_id=subnet, api_server_subnet_id=zone.api_server_subnet_ids[cluster.name],
                admin_principal_ids=((deployer, deployer_type), *((g, "Group") for g in cloud.admin_group_ids)),
                kubelogin=cloud.kubelogin,
                maintenance=cloud.gpu_maintenance, vault_id=zone.vault_id, vault_name=zone.vault_name,
                kubernetes_version=cluster.kubernetes_version, public_endpoint=cluster.public_endpoint,
                authorized_ip_ranges=cluster.public_endpoint_cidrs, keys=cfg.storage.keys, tags=fleet.tags,
                control_plane_log_retention_days=cfg.clouds.azure.control_plane_log_retention_days,
                control_plane_logs_cmk_gb_per_day=cfg.clouds.azure.control_plane_logs_cmk_gb_per_day), opts=under)
            fleet.export_cluster(cluster.name, {
                "kind": NAME, "location": location, "clusterName": aks.cluster_name,
                "resourceGroupName": aks.resource_group_name, "fqdn": aks.fqdn, "subnetId": aks.subnet_id,
                "diskEncryptionSetId": aks.disk_encryption_set_id,
            }, aks.kubeconfig)
        built[cluster.name] = aks
        pools = cfg.pools_of(cluster.name)
        names = aks_pool_names([p.name for p in pools])
        for pool in pools:
            fleet.node_pools[pool.name] = AksNodePool(f"{fleet.fleet_name}-{pool.name}", AksNodePoolArgs(
                pool=pool, location=location, resource_group_name=rg, cluster_name=aks.cluster_name,
                subnet_id=subnet, agent_pool_name=names[pool.name], tags=fleet.tags), opts=under)
            fleet.export_pool(pool.name, cluster.name, NAME, names[pool.name])

    for bucket in buckets:
        zone = zones[cloud.location]
        account = AzureStorage(f"{fleet.fleet_name}-{bucket.name}", AzureStorageArgs(
            bucket=bucket, location=cloud.location, resource_group_name=zone.resource_group_name,
            account_name=plan.storage_account_name(f"{fleet.fleet_name}{bucket.name}", pulumi.get_project(),
                                                   pulumi.get_stack(), cloud.subscription_id or ""),
            vault_name=zone.vault_name, vault_uri=zone.vault_uri,
            allowed_locations=cfg.residency.allowed_regions, subnet_ids=tuple(zone.subnet_ids.values()),
            private_endpoints={where: (lz.private_endpoint_subnet_id, lz.dns_zone_ids["blob"])
                               for where, lz in zones.items()},
            keys=cfg.storage.keys, tags=fleet.tags), opts=under)
        fleet.buckets[bucket.name] = account
        fleet.exports.setdefault("buckets", {})[bucket.name] = {
            "cloud": "azure", "location": cloud.location, "accountName": account.account_name,
            "containerName": account.container_name, "keyId": account.key_id}
    return built


# The node image installs the driver and the toolkit unless the pool has AKS skip the driver
# (`gpuProfile.driver: None`); then the GPU operator installs both.
GPU_STACK = GpuStack({"preinstalled": Owners("aks", "aks"), "operator": Owners("operator", "operator")}, "operator")


def gpu_node_os(kubernetes_version: str) -> str:
    """AKS GPU nodes run Ubuntu 22.04 up to Kubernetes 1.34 and Ubuntu 24.04 from 1.35 (components.node_os)."""
    minor = int(kubernetes_version.split(".")[1])
    return "ubuntu22.04" if minor <= 34 else "ubuntu24.04"


def storage_parameters(args: Any, key: Any) -> dict:
    """Premium SSD managed disks through the Azure Disk CSI driver, encrypted with the Disk Encryption Set."""
    parameters = {"skuName": "Premium_LRS", "cachingMode": "ReadOnly"}
    if key is not None:
        parameters |= {"diskEncryptionSetID": key, "diskEncryptionType": "EncryptionAtRestWithCustomerKey"}
    return {"provisioner": "disk.csi.azure.com", "parameters": parameters, "allowVolumeExpansion": True}


def pulls_through(upstream: Upstream, credentials: Mapping[str, Any], airgapped: bool) -> bool:
    """ACR caches the upstreams its cache rules support, those needing a login only with one."""
    return upstream.acr_cache and (not upstream.needs_credentials or upstream.host in credentials)


def build_registry(fleet: Fleet, credentials: dict[str, Any]) -> pulumi.ComponentResource:
    """The ACR with its cache rules (components.azure.registry), in a location with a landing zone."""
    from sahab.components.azure.registry import AcrRegistry as Acr
    from sahab.components.azure.registry import AcrRegistryArgs

    config = fleet.config
    acr = config.registries.aks
    zones = state(fleet).zones
    location = acr.location or config.clouds.azure.location
    zone = zones.get(location)
    if zone is None:
        raise ConfigError(f"{ROOT}.registries.aks.location", f"{location!r} has no landing zone in this stack; "
                          f"allowed: {', '.join(sorted(zones)) or 'a location with an AKS cluster'}")
    pull = {name: fleet.clusters[name].kubelet_object_id for name, c in
            ((c.name, c) for c in config.clusters if c.kind == NAME and not c.stack_reference)}
    return Acr(f"{fleet.fleet_name}-acr", AcrRegistryArgs(
        registry_name=ACR_HOST.match(acr.host.lower())["name"], location=location,
        resource_group_name=zone.resource_group_name, vault_id=zone.vault_id, vault_name=zone.vault_name,
        credentials=credentials, pull_principals=pull, tags=fleet.tags,
        endpoints={where: (lz.private_endpoint_subnet_id, lz.dns_zone_ids["registry"])
                   for where, lz in zones.items()},
        credential_settings={u: f"{ROOT}.registries.aks.upstream_credentials.{u}" for u in credentials}),
        opts=pulumi.ResourceOptions(parent=fleet, providers=[state(fleet).provider]))


def checkpoint_store(fleet: Fleet, cluster_name: str, team: str) -> Any:
    """On an AKS cluster this stack creates, with an Azure checkpoints account: the team's pods write to
    their own container there with workload identity (components.azure.checkpoint_access)."""
    from sahab.components.azure.aks_cluster import AksCluster
    from sahab.components.azure.checkpoint_access import CheckpointAccess, CheckpointAccessArgs
    from sahab.components.checkpoint_build import CHECKPOINT_ACCOUNT, checkpoints_bucket

    aks = fleet.clusters.get(cluster_name)
    bucket = checkpoints_bucket(fleet, "account_id")
    if not isinstance(aks, AksCluster) or bucket is None:
        return None
    account = fleet.buckets[bucket]
    return CheckpointAccess(f"{fleet.fleet_name}-{cluster_name}-{team}-checkpoints", CheckpointAccessArgs(
        namespace=team, service_account=CHECKPOINT_ACCOUNT, location=aks.region,
        resource_group_name=aks.resource_group_name, oidc_issuer_url=aks.oidc_issuer_url,
        account_name=account.account_name, account_resource_group_name=account.resource_group_name,
        container_name=f"{team}-checkpoints", tags=fleet.tags),
        opts=pulumi.ResourceOptions(parent=fleet, depends_on=[fleet.platforms[cluster_name]],
                                    providers={"azure-native": state(fleet).provider,
                                               "kubernetes": fleet.k8s_providers[cluster_name]}))


def referenced_store(store: pulumi.Output) -> ReferencedAccess:
    """The owning stack's account as a burst Job reaches it: workload identity (the pod label) and the account's
    name, with the checkpoint key read from the team's namespace there."""
    from sahab.components.azure.checkpoint_access import USE_LABEL
    from sahab.components.checkpoint_build import CHECKPOINT_ACCOUNT, ReferencedAccess, env_value
    from sahab.components.kubernetes.checkpoint_key import ENV as KEY_ENV

    return ReferencedAccess(uri=store.apply(lambda s: s["uri"]), account=CHECKPOINT_ACCOUNT,
                            env=[{"name": "AZURE_STORAGE_ACCOUNT",
                                  "value": store.apply(lambda s: env_value(s, "AZURE_STORAGE_ACCOUNT"))},
                                 KEY_ENV],
                            pod_labels={USE_LABEL: "true"})


def read_reference(cluster: Any, provider: pulumi.ProviderResource | None, kubelogin: str) -> None:
    """An AKS cluster as the owning stack exports it, with the same attributes as AksCluster; its kubeconfig is
    the cluster's user credentials, signed in with kubelogin."""
    import pulumi_azure_native as azure_native
    from sahab.components.azure.aks_cluster import decode_kubeconfig, non_interactive_kubeconfig

    cluster.region = cluster.get("location")
    cluster.resource_group_name = cluster.get("resourceGroupName")
    cluster.subnet_id = cluster.get("subnetId")
    cluster.disk_encryption_set_id = cluster.get("diskEncryptionSetId")
    cluster.storage_encryption_id = cluster.disk_encryption_set_id
    credentials = azure_native.containerservice.list_managed_cluster_user_credentials_output(
        resource_group_name=cluster.resource_group_name, resource_name=cluster.cluster_name, format="exec",
        opts=pulumi.InvokeOutputOptions(provider=provider))
    cluster.kubeconfig = pulumi.Output.secret(credentials.apply(
        lambda c: non_interactive_kubeconfig(decode_kubeconfig(c), kubelogin)))


REFERENCE = Reference(("clusterName", "resourceGroupName", "subnetId", "diskEncryptionSetId", "location"),
                      read_reference)


def system_pool() -> tuple[str, int]:
    """The system pool of every AKS cluster this stack creates: AksClusterArgs' default VM size and most nodes."""
    from sahab.components.azure.aks_cluster import AksClusterArgs

    fields = AksClusterArgs.model_fields
    return fields["system_pool_vm_size"].default, fields["system_pool_max"].default


SPEC = KindSpec(
    name=NAME, cloud=CLOUD, cluster_model=AksClusterConfig,
    network=lambda fleet: fleet.clouds.azure and fleet.clouds.azure.vnet_cidr, node_types=NodeTypes(CLOUD),
    build=build, gpu_stack=GPU_STACK, gpu_node_os=gpu_node_os,
    storage_class=StorageClass(storage_parameters), readiness="aks",
    registry=Registry(AcrRegistry, pulls_through, build_registry, zone=lambda fleet: "azurecr.io",
                      private_only=True),
    checkpoint_store=checkpoint_store, reference=REFERENCE, referenced_store=referenced_store, cold_nodes=True,
    private_api=True, system_pool=system_pool)
