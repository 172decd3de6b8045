"""AksCluster: an AKS cluster whose node disks are encrypted through a Disk Encryption Set backed by a Key Vault
key and whose Secrets are encrypted in etcd by AKS's KMS plugin with another key of the (private) vault, with a
private API server in the VNet (API Server VNet Integration, which KMS needs with a private vault), Entra ID +
Azure RBAC instead of local accounts, admins by role assignment, workload identity, a weekly maintenance window
for node images and upgrades, and a kubeconfig that signs in without a prompt (kubelogin)."""

from __future__ import annotations

import base64
from typing import Annotated, Any, Literal

import pulumi
import pulumi_azure_native as azure_native
import yaml
from pydantic import BaseModel, ConfigDict, Field
from sahab.components.azure.control_plane_logs import AksControlPlaneLogs, AksControlPlaneLogsArgs
from sahab.components.azure.keys import grant_key_use, vault_key
from sahab.components.azure.roles import (
    AKS_RBAC_CLUSTER_ADMIN,
    KEY_VAULT_CONTRIBUTOR,
    KEY_VAULT_CRYPTO_USER,
    NETWORK_CONTRIBUTOR,
    READER,
    role_definition_id,
)
from sahab.components.fleet_config import KeyPolicy, MaintenanceWindow
from sahab.components.pool_plan import AKS_SYSTEM_POOL

cs = azure_native.containerservice


class AksClusterArgs(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    cluster_name: str
    """Physical AKS cluster name (also its DNS prefix). Required."""
    location: str
    """Azure location. Required."""
    resource_group_name: Any
    """Resource group (Input[str]) from the LandingZone. Required."""
    subnet_id: Any
    """Node subnet (Input[str]) from the LandingZone. Required."""
    api_server_subnet_id: Any = None
    """The subnet (Input[str]) delegated to AKS for the API server (API Server VNet Integration), from the
    LandingZone. Required for KMS with the private vault. Default: none (no VNet integration, no KMS)."""
    vault_id: Any
    """Key Vault (Input[str]) holding the disk key. Required."""
    vault_name: Any
    """Key Vault name (Input[str]). Required."""
    kubernetes_version: str = "1.34"
    """Kubernetes minor version. Default: 1.34."""
    public_endpoint: bool = False
    """Expose the API server publicly. Default: false (private cluster)."""
    authorized_ip_ranges: tuple[str, ...] = ()
    """With a public endpoint, the only source ranges that may reach it. Default: none."""
    keys: KeyPolicy = KeyPolicy()
    """Rotation of the disk key. Default: yearly."""
    system_pool_vm_size: str = "Standard_D4s_v5"
    """VM size of the small system pool that runs cluster add-ons (fleet pools are user pools). Default:
    Standard_D4s_v5."""
    system_pool_min: Annotated[int, Field(ge=1)] = 2
    """System pool floor. Default: 2."""
    system_pool_max: Annotated[int, Field(ge=1)] = 3
    """System pool ceiling. Default: 3."""
    encryption_at_host: bool = True
    """Encrypt temp disks and disk caches on the host too (the subscription needs the EncryptionAtHost feature
    registered). Default: true."""
    control_plane_log_retention_days: Annotated[int, Field(ge=30, le=730)] = 365
    """Days the control-plane logs are kept in the cluster's Log Analytics workspace. Default: 365."""
    control_plane_logs_cmk_gb_per_day: Annotated[int, Field(ge=100)] | None = None
    """Encrypt those logs with the fleet's key through a dedicated Log Analytics cluster of this commitment.
    Default: unset (Microsoft-managed keys)."""
    admin_principal_ids: tuple[tuple[Any, str], ...] = ()
    """(Entra object id (Input[str]), principal type: User, Group or ServicePrincipal) given "Azure Kubernetes
    Service RBAC Cluster Admin" on the cluster: the deployer (the fleet passes the identity running `pulumi up`)
    and the admin groups. Default: none."""
    kubelogin: Literal["azurecli", "workloadidentity", "spn", "msi"] = "azurecli"
    """The kubeconfig's non-interactive `kubelogin get-token --login` mode. Default: azurecli."""
    maintenance: MaintenanceWindow = MaintenanceWindow()
    """When AKS may upgrade the cluster and reimage its nodes (GPU nodes included). Default: Fridays 00:00 UTC,
    8 hours."""
    tags: dict[str, str] = Field(default_factory=dict)
    """Tags on every resource. Default: none."""


# The AKS Entra server application every AKS token is issued for (kubelogin docs/book/src/concepts/aks.md, v0.2.19).
AKS_SERVER_APP_ID = "6dae42f8-4368-4678-94ff-3960e28e3630"
MAINTENANCE_CONFIGS = ("aksManagedAutoUpgradeSchedule", "aksManagedNodeOSUpgradeSchedule")


def non_interactive_kubeconfig(text: str, login: str) -> str:
    """The cluster's kubeconfig with every user signing in through `kubelogin get-token --login <login>` and
    never prompting: AKS hands out `--login devicecode`, which waits for a person at a browser (kubelogin's
    modes: pkg/internal/token/options.go, v0.2.19). What a mode needs comes from the environment (azurecli: `az
    login`; workloadidentity: AZURE_CLIENT_ID, AZURE_TENANT_ID, AZURE_FEDERATED_TOKEN_FILE; spn: AZURE_CLIENT_ID,
    AZURE_CLIENT_SECRET, AZURE_TENANT_ID), and AAD_LOGIN_METHOD overrides the mode for one run."""
    doc = yaml.safe_load(text) or {}
    for user in doc.get("users") or []:
        user["user"] = {"exec": {
            "apiVersion": "client.authentication.k8s.io/v1beta1", "command": "kubelogin",
            "args": ["get-token", "--login", login, "--server-id", AKS_SERVER_APP_ID],
            "env": None, "interactiveMode": "Never", "provideClusterInfo": False,
            "installHint": "install kubelogin (https://azure.github.io/kubelogin) and the Azure CLI"}}
    return yaml.safe_dump(doc, sort_keys=False)


def decode_kubeconfig(result: Any) -> str:
    """The first kubeconfig of a listManagedClusterUserCredentials result, decoded."""
    return base64.b64decode(result.kubeconfigs[0].value).decode()


class AksCluster(pulumi.ComponentResource):
    kind = "aks"
    cluster_name: pulumi.Output[str]
    resource_group_name: pulumi.Output[str]
    fqdn: pulumi.Output[str]
    kubeconfig: pulumi.Output[str]
    disk_encryption_set_id: pulumi.Output[str]
    subnet_id: pulumi.Output[str]
    kubelet_object_id: pulumi.Output[str]

    def __init__(self, name: str, args: AksClusterArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("sahab:azure:AksCluster", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        self.region = args.location
        tags = {**args.tags, "sahab.io/cluster": args.cluster_name}
        rg = args.resource_group_name
        if args.public_endpoint and not args.authorized_ip_ranges:
            pulumi.log.warn(f"AKS {args.cluster_name}: public API server open to every address; "
                            "set authorized_ip_ranges to the ranges that need it", resource=self)

        key = vault_key(f"{name}-disk-key", vault_name=args.vault_name, resource_group_name=rg, keys=args.keys,
                        tags=tags, opts=child)
        des = azure_native.compute.DiskEncryptionSet(
            f"{name}-des", resource_group_name=rg, location=args.location,
            identity=azure_native.compute.EncryptionSetIdentityArgs(type="SystemAssigned"),
            encryption_type="EncryptionAtRestWithCustomerKey",
            active_key=azure_native.compute.KeyForDiskEncryptionSetArgs(
                key_url=key.key_uri_with_version,
                source_vault=azure_native.compute.SourceVaultArgs(id=args.vault_id)),
            rotation_to_latest_key_version_enabled=True,
            tags=tags, opts=child)
        des_grant = grant_key_use(f"{name}-des-key-access", key=key,
                                  principal_id=des.identity.apply(lambda i: i.principal_id), opts=child)

        identity = azure_native.managedidentity.UserAssignedIdentity(
            f"{name}-identity", resource_group_name=rg, location=args.location, tags=tags, opts=child)
        # The control plane joins nodes to the subnet and reads the encryption set; nothing wider.
        grants = [des_grant]
        scopes = [("subnet", args.subnet_id, NETWORK_CONTRIBUTOR), ("des", des.id, READER)]
        kms = None
        if args.api_server_subnet_id is not None:
            # Secrets in etcd: AKS's KMS plugin encrypts with this key (encrypt/decrypt only), reaching the vault
            # through a private link it sets up, which the vault's contributors approve.
            kms_key = vault_key(f"{name}-kms-key", vault_name=args.vault_name, resource_group_name=rg,
                                keys=args.keys, tags=tags, opts=child, operations=("encrypt", "decrypt"))
            scopes += [("apiserver-subnet", args.api_server_subnet_id, NETWORK_CONTRIBUTOR),
                       ("kms-key", kms_key.id, KEY_VAULT_CRYPTO_USER),
                       ("kms-vault", args.vault_id, KEY_VAULT_CONTRIBUTOR)]
            kms = cs.AzureKeyVaultKmsArgs(enabled=True, key_id=kms_key.key_uri_with_version,
                                          key_vault_network_access="Private", key_vault_resource_id=args.vault_id)
        for suffix, scope, role in scopes:
            grants.append(azure_native.authorization.RoleAssignment(
                f"{name}-identity-{suffix}", scope=scope, principal_id=identity.principal_id,
                principal_type="ServicePrincipal", role_definition_id=role_definition_id(scope, role), opts=child))

        cluster = cs.ManagedCluster(
            f"{name}-aks",
            resource_name_=args.cluster_name,
            resource_group_name=rg,
            location=args.location,
            dns_prefix=args.cluster_name,
            kubernetes_version=args.kubernetes_version,
            identity=cs.ManagedClusterIdentityArgs(type="UserAssigned", user_assigned_identities=[identity.id]),
            agent_pool_profiles=[cs.ManagedClusterAgentPoolProfileArgs(
                name=AKS_SYSTEM_POOL, mode="System", type="VirtualMachineScaleSets", os_type="Linux",
                os_sku="AzureLinux", vm_size=args.system_pool_vm_size, count=args.system_pool_min,
                enable_auto_scaling=True, min_count=args.system_pool_min, max_count=args.system_pool_max,
                os_disk_type="Managed", enable_encryption_at_host=args.encryption_at_host,
                vnet_subnet_id=args.subnet_id, node_taints=["CriticalAddonsOnly=true:NoSchedule"],
                node_labels={"sahab.io/pool": AKS_SYSTEM_POOL})],
            api_server_access_profile=cs.ManagedClusterAPIServerAccessProfileArgs(
                enable_private_cluster=not args.public_endpoint,
                authorized_ip_ranges=list(args.authorized_ip_ranges) if args.public_endpoint else None,
                enable_vnet_integration=True if args.api_server_subnet_id is not None else None,
                subnet_id=args.api_server_subnet_id),
            network_profile=cs.ContainerServiceNetworkProfileArgs(
                network_plugin="azure", network_plugin_mode="overlay", network_dataplane="cilium",
                network_policy="cilium", load_balancer_sku="standard", outbound_type="loadBalancer",
                # FQDN policies (Advanced Container Networking Services security): the one way a default-deny
                # namespace reaches Entra ID for workload identity (components/azure/checkpoint_access.py).
                advanced_networking=cs.AdvancedNetworkingArgs(
                    enabled=True, observability=cs.AdvancedNetworkingObservabilityArgs(enabled=False),
                    security=cs.AdvancedNetworkingSecurityArgs(enabled=True, advanced_network_policies="FQDN"))),
            aad_profile=cs.ManagedClusterAADProfileArgs(managed=True, enable_azure_rbac=True),
            enable_rbac=True,
            disable_local_accounts=True,
            disk_encryption_set_id=des.id,
            security_profile=cs.ManagedClusterSecurityProfileArgs(
                workload_identity=cs.ManagedClusterSecurityProfileWorkloadIdentityArgs(enabled=True),
                azure_key_vault_kms=kms),
            oidc_issuer_profile=cs.ManagedClusterOIDCIssuerProfileArgs(enabled=True),
            auto_upgrade_profile=cs.ManagedClusterAutoUpgradeProfileArgs(upgrade_channel="patch",
                                                                         node_os_upgrade_channel="NodeImage"),
            sku=cs.ManagedClusterSKUArgs(name="Base", tier="Standard"),
            tags=tags,
            # The system pool's size belongs to the autoscaler once the cluster exists.
            opts=pulumi.ResourceOptions(parent=self, depends_on=grants,
                                        ignore_changes=["agentPoolProfiles[0].count"]),
        )
        self.control_plane_logs = AksControlPlaneLogs(f"{name}-logs", AksControlPlaneLogsArgs(
            cluster_id=cluster.id, cluster_name=args.cluster_name, location=args.location, resource_group_name=rg,
            retention_days=args.control_plane_log_retention_days,
            dedicated_cluster_gb_per_day=args.control_plane_logs_cmk_gb_per_day, vault_name=args.vault_name,
            keys=args.keys, tags=tags), opts=child)
        # Admins: the Kubernetes API authorizes through Azure RBAC only (local accounts are off).
        self.admins = [azure_native.authorization.RoleAssignment(
            f"{name}-admin-{i}", scope=cluster.id, principal_id=principal, principal_type=kind,
            role_definition_id=role_definition_id(cluster.id, AKS_RBAC_CLUSTER_ADMIN), opts=child)
            for i, (principal, kind) in enumerate(args.admin_principal_ids)]
        window = args.maintenance
        self.maintenance = [cs.MaintenanceConfiguration(
            f"{name}-{config}", config_name=config, resource_group_name=rg, resource_name_=cluster.name,
            maintenance_window=cs.MaintenanceWindowArgs(
                schedule=cs.ScheduleArgs(weekly=cs.WeeklyScheduleArgs(day_of_week=window.day, interval_weeks=1)),
                duration_hours=window.hours, start_time=f"{window.start_hour:02d}:00", utc_offset="+00:00"),
            opts=child) for config in MAINTENANCE_CONFIGS]
        credentials = cs.list_managed_cluster_user_credentials_output(
            resource_group_name=rg, resource_name=cluster.name, format="exec",
            opts=pulumi.InvokeOutputOptions(parent=self))

        self.cluster_name = cluster.name
        self.resource_group_name = pulumi.Output.from_input(rg)
        self.fqdn = cluster.private_fqdn if not args.public_endpoint else cluster.fqdn
        self.kubeconfig = pulumi.Output.secret(credentials.apply(
            lambda c: non_interactive_kubeconfig(decode_kubeconfig(c), args.kubelogin)))
        self.disk_encryption_set_id = des.id
        self.disk_key_id = key.id
        self.subnet_id = pulumi.Output.from_input(args.subnet_id)
        # Workload identity: what a federated identity credential trusts for this cluster's service accounts.
        self.oidc_issuer_url = cluster.oidc_issuer_profile.apply(lambda p: p.issuer_url if p else None)
        self.kubelet_object_id = cluster.identity_profile.apply(
            lambda p: (p or {}).get("kubeletidentity").object_id if p and p.get("kubeletidentity") else None)
        self.register_outputs({"clusterName": self.cluster_name, "resourceGroupName": self.resource_group_name,
                               "fqdn": self.fqdn, "kubeconfig": self.kubeconfig,
                               "diskEncryptionSetId": self.disk_encryption_set_id, "subnetId": self.subnet_id})

    @property
    def storage_encryption_id(self) -> pulumi.Output[str]:
        """What the platform's encrypted StorageClass names: the Disk Encryption Set id."""
        return self.disk_encryption_set_id
