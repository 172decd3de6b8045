"""AksControlPlaneLogs: an AKS cluster's control-plane logs kept in a Log Analytics workspace in its own region.

AKS keeps no control-plane log unless a diagnostic setting sends it somewhere. This one sends the API server,
the audit log of writes (`kube-audit-admin`: every create/update/patch/delete, without the read noise of
`kube-audit`), the controller manager, the scheduler, the cluster autoscaler and `guard` (Entra ID / Azure RBAC
authorisation decisions) to a workspace in the cluster's UAE location, kept `retention_days`.

Encryption: a workspace's data is always encrypted at rest, by default with Microsoft-managed keys. Azure takes
a customer-managed key for Log Analytics only through a dedicated Log Analytics cluster (a capacity commitment
of at least 100 GB/day) linked to the workspace. With `dedicated_cluster_gb_per_day` set this component creates
that cluster in the same location with a key of the fleet's vault (rotated on the fleet's schedule), through a
user-assigned identity that may only wrap and unwrap with that key, and links the workspace to it.
"""

from __future__ import annotations

from typing import Annotated, Any

import pulumi
import pulumi_azure_native as azure_native
from pydantic import BaseModel, ConfigDict, Field
from sahab.components.azure.keys import grant_key_use, vault_key
from sahab.components.fleet_config import KeyPolicy

oi = azure_native.operationalinsights

CONTROL_PLANE_CATEGORIES = ("kube-apiserver", "kube-audit-admin", "kube-controller-manager", "kube-scheduler",
                            "cluster-autoscaler", "guard")


class AksControlPlaneLogsArgs(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    cluster_id: Any
    """The AKS cluster's resource id (Input[str]). Required."""
    cluster_name: str
    """The AKS cluster's name, for the workspace's name. Required."""
    location: str
    """Azure location of the cluster; the workspace (and any dedicated cluster) is created there. Required."""
    resource_group_name: Any
    """Resource group (Input[str]). Required."""
    retention_days: Annotated[int, Field(ge=30, le=730)] = 365
    """Days the workspace keeps the logs. Default: 365."""
    dedicated_cluster_gb_per_day: Annotated[int, Field(ge=100)] | None = None
    """Commitment (GB/day) of a dedicated Log Analytics cluster that encrypts the logs with the fleet's key.
    Default: unset (Microsoft-managed keys; no commitment)."""
    vault_name: Any = None
    """Key Vault name (Input[str]) for the dedicated cluster's key. Required with `dedicated_cluster_gb_per_day`."""
    keys: KeyPolicy = KeyPolicy()
    """Rotation of the dedicated cluster's key. Default: yearly."""
    tags: dict[str, str] = Field(default_factory=dict)
    """Tags on every resource. Default: none."""


class AksControlPlaneLogs(pulumi.ComponentResource):
    workspace_id: pulumi.Output[str]

    def __init__(self, name: str, args: AksControlPlaneLogsArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("sahab:azure:AksControlPlaneLogs", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        rg = args.resource_group_name

        workspace = oi.Workspace(
            f"{name}-workspace", workspace_name=f"{args.cluster_name}-control-plane", resource_group_name=rg,
            location=args.location, retention_in_days=args.retention_days, sku=oi.WorkspaceSkuArgs(name="PerGB2018"),
            # Entra ID only (no shared keys); readers need rights on the workspace or on the cluster's logs.
            features=oi.WorkspaceFeaturesArgs(disable_local_auth=True,
                                              enable_log_access_using_only_resource_permissions=True),
            tags=args.tags, opts=child)

        depends: list[pulumi.Resource] = []
        if args.dedicated_cluster_gb_per_day is not None:
            if args.vault_name is None:
                raise ValueError("dedicated_cluster_gb_per_day needs vault_name for the cluster's key")
            depends.append(self._customer_managed_key(name, args, workspace, child))

        setting = azure_native.monitor.DiagnosticSetting(
            f"{name}-diagnostics", name="sahab-control-plane", resource_uri=args.cluster_id,
            workspace_id=workspace.id, log_analytics_destination_type="Dedicated",
            logs=[azure_native.monitor.DiagnosticsLogSettingsArgs(category=c, enabled=True)
                  for c in CONTROL_PLANE_CATEGORIES],
            opts=pulumi.ResourceOptions(parent=self, depends_on=depends))

        self.workspace_id = workspace.id
        self.diagnostic_setting_id = setting.id
        self.register_outputs({"workspaceId": self.workspace_id})

    def _customer_managed_key(self, name: str, args: AksControlPlaneLogsArgs, workspace: oi.Workspace,
                              child: pulumi.ResourceOptions) -> pulumi.Resource:
        """A dedicated cluster encrypting with the fleet's key, and the workspace linked to it."""
        rg = args.resource_group_name
        key = vault_key(f"{name}-key", vault_name=args.vault_name, resource_group_name=rg, keys=args.keys,
                        tags=args.tags, opts=child)
        identity = azure_native.managedidentity.UserAssignedIdentity(
            f"{name}-identity", resource_group_name=rg, location=args.location, tags=args.tags, opts=child)
        grant = grant_key_use(f"{name}-key-access", key=key, principal_id=identity.principal_id, opts=child)
        cluster = oi.Cluster(
            f"{name}-cluster", cluster_name=f"{args.cluster_name}-logs", resource_group_name=rg,
            location=args.location,
            identity=oi.ManagedServiceIdentityArgs(type="UserAssigned", user_assigned_identities=[identity.id]),
            sku=oi.ClusterSkuArgs(name="CapacityReservation", capacity=args.dedicated_cluster_gb_per_day),
            key_vault_properties=oi.KeyVaultPropertiesArgs(
                key_vault_uri=pulumi.Output.concat("https://", args.vault_name, ".vault.azure.net/"),
                key_name=key.name, key_version=""),  # empty version: follow the key's rotations
            tags=args.tags, opts=pulumi.ResourceOptions(parent=self, depends_on=[grant]))
        return oi.LinkedService(
            f"{name}-link", linked_service_name="cluster", workspace_name=workspace.name, resource_group_name=rg,
            write_access_resource_id=cluster.id, opts=child)
