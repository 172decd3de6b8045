"""CheckpointAccess (AKS): a team's training pods on one AKS cluster write checkpoints to their own container
of the checkpoints storage account, with workload identity and nothing else.

- A user-assigned identity per team and cluster, trusted (FederatedIdentityCredential) only for the team's
  training ServiceAccount on this cluster's OIDC issuer.
- One blob container per team in the checkpoints account; the identity holds Storage Blob Data Contributor on
  that container only (the account refuses shared keys, so an Entra token is the only way in).
- The ServiceAccount names the identity (`azure.workload.identity/client-id`) and the pods carry
  `azure.workload.identity/use: "true"`: AKS's webhook then projects a service account token and sets
  AZURE_CLIENT_ID, AZURE_TENANT_ID, AZURE_FEDERATED_TOKEN_FILE and AZURE_AUTHORITY_HOST, which the trainer's
  az:// store exchanges for a storage token (workloads/train/storage.py). AZURE_STORAGE_ACCOUNT says where.

- The exchange itself goes to Microsoft Entra ID (`login.microsoftonline.com`), which has no private endpoint.
  The team namespace denies egress by default, so a CiliumNetworkPolicy lets exactly the pods that carry the
  workload-identity label reach that one name on 443 (an FQDN rule: Entra's addresses change, its name does not),
  with DNS through Cilium's proxy so the rule learns the addresses. It needs the cluster's Advanced Container
  Networking Services security (FQDN policies), which AksCluster turns on. Only a token crosses; no data.

The caller passes both providers (`providers={"azure-native": ..., "kubernetes": ...}`).
"""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_azure_native as azure_native
import pulumi_kubernetes as k8s
from pydantic import Field
from sahab.components.azure.roles import STORAGE_BLOB_DATA_CONTRIBUTOR, role_definition_id
from sahab.components.kubernetes.checkpoint_key import checkpoint_key
from sahab.components.kubernetes.common import MANAGED_BY, Args

TOKEN_AUDIENCE = "api://AzureADTokenExchange"  # what AKS's projected service account tokens are issued for
USE_LABEL = "azure.workload.identity/use"
ENTRA_HOST = "login.microsoftonline.com"  # AZURE_AUTHORITY_HOST that AKS's webhook sets in the public cloud
CLIENT_ID_ANNOTATION = "azure.workload.identity/client-id"


class CheckpointAccessArgs(Args):
    namespace: str
    """The team namespace. Required."""
    service_account: str
    """The ServiceAccount the training pods run as. Required."""
    location: str
    """Where the identity lives (the cluster's location). Required."""
    resource_group_name: Any
    """Resource group for the identity (Input[str]). Required."""
    oidc_issuer_url: Any
    """The AKS cluster's OIDC issuer URL (Input[str]). Required."""
    account_name: Any
    """The checkpoints storage account (Input[str]). Required."""
    account_resource_group_name: Any
    """That account's resource group (Input[str]). Required."""
    container_name: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", min_length=3, max_length=63)
    """The team's own container. Required."""
    tags: dict[str, str] = Field(default_factory=dict)
    """Tags on the identity. Default: none."""


def subject(namespace: str, service_account: str) -> str:
    """The `sub` claim of the ServiceAccount's projected token: the only subject the identity trusts."""
    return f"system:serviceaccount:{namespace}:{service_account}"


class CheckpointAccess(pulumi.ComponentResource):
    """Workload identity from one team's pods on one AKS cluster to its checkpoint container."""

    def __init__(self, name: str, args: CheckpointAccessArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("sahab:azure:CheckpointAccess", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = {**args.tags, "sahab.io/team": args.namespace}
        container = azure_native.storage.BlobContainer(
            f"{name}-container", account_name=args.account_name, resource_group_name=args.account_resource_group_name,
            container_name=args.container_name, public_access="None", opts=child)
        identity = azure_native.managedidentity.UserAssignedIdentity(
            f"{name}-identity", resource_group_name=args.resource_group_name, location=args.location, tags=tags,
            opts=child)
        trust = azure_native.managedidentity.FederatedIdentityCredential(
            f"{name}-federation", resource_name_=identity.name, resource_group_name=args.resource_group_name,
            issuer=args.oidc_issuer_url, subject=subject(args.namespace, args.service_account),
            audiences=[TOKEN_AUDIENCE], opts=child)
        grant = azure_native.authorization.RoleAssignment(
            f"{name}-blob-access", scope=container.id, principal_id=identity.principal_id,
            principal_type="ServicePrincipal",
            role_definition_id=role_definition_id(container.id, STORAGE_BLOB_DATA_CONTRIBUTOR), opts=child)
        self.service_account = k8s.core.v1.ServiceAccount(
            f"{name}-sa", metadata={"name": args.service_account, "namespace": args.namespace, "labels": MANAGED_BY,
                                    "annotations": {CLIENT_ID_ANNOTATION: identity.client_id}},
            automount_service_account_token=False,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[trust, grant]))
        k8s.apiextensions.CustomResource(
            f"{name}-entra-egress", api_version="cilium.io/v2", kind="CiliumNetworkPolicy",
            metadata={"name": "allow-entra-id", "namespace": args.namespace, "labels": MANAGED_BY},
            spec=entra_egress_spec(), opts=child)
        self.account = args.service_account
        self.env = [{"name": "AZURE_STORAGE_ACCOUNT", "value": args.account_name},
                    checkpoint_key(name, args.namespace, self)]
        self.pod_labels = {USE_LABEL: "true"}
        self.client_id = identity.client_id
        self.uri = pulumi.Output.concat("az://", container.name)
        self.register_outputs({"clientId": self.client_id, "uri": self.uri})


def entra_egress_spec() -> dict:
    """Workload-identity pods may resolve names through Cilium's DNS proxy and open 443 to Entra ID only."""
    return {
        "endpointSelector": {"matchLabels": {USE_LABEL: "true"}},
        "egress": [
            {"toEndpoints": [{"matchLabels": {"k8s:io.kubernetes.pod.namespace": "kube-system",
                                              "k8s:k8s-app": "kube-dns"}}],
             "toPorts": [{"ports": [{"port": "53", "protocol": "ANY"}], "rules": {"dns": [{"matchPattern": "*"}]}}]},
            {"toFQDNs": [{"matchName": ENTRA_HOST}],
             "toPorts": [{"ports": [{"port": "443", "protocol": "TCP"}]}]},
        ],
    }
