"""AzureStorage: a UAE storage account for datasets or checkpoints, encrypted twice (infrastructure + a
customer-managed Key Vault key), reachable over TLS 1.2+ only, with no anonymous or shared-key access, and no
public network access: its blob service is reached through a private endpoint in the fleet's VNet."""

from __future__ import annotations

from typing import Annotated, Any

import pulumi
import pulumi_azure_native as azure_native
from pydantic import BaseModel, ConfigDict, Field
from sahab.components.azure.keys import grant_key_use, vault_key
from sahab.components.azure.plan import storage_sku
from sahab.components.azure.private_endpoints import private_endpoint
from sahab.components.errors import ConfigError
from sahab.components.fleet_config import Bucket, KeyPolicy

st = azure_native.storage


class AzureStorageArgs(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    bucket: Bucket
    """The bucket from the fleet config: purpose, versioning, version expiry, geo redundancy. Required."""
    account_name: Annotated[str, Field(pattern=r"^[a-z0-9]{3,24}$")]
    """Globally unique account name (see `components.azure.plan.storage_account_name`). Required."""
    location: str
    """Azure location. Required."""
    resource_group_name: Any
    """Resource group (Input[str]). Required."""
    vault_name: Any
    """Key Vault (Input[str]) that holds the account's key. Required."""
    vault_uri: Any
    """That Key Vault's URI (Input[str]). Required."""
    allowed_locations: tuple[str, ...] = ("uaenorth", "uaecentral")
    """Where data may be; geo redundancy is refused when the location's pair is not in it. Default: the UAE."""
    subnet_ids: tuple[Any, ...] = ()
    """Subnets (Input[str]) whose traffic may reach the account; everything else is denied. Default: none."""
    private_endpoints: dict[str, tuple[Any, Any]] = Field(default_factory=dict)
    """Location -> (private-endpoint subnet id, `privatelink.blob.core.windows.net` zone id) of each landing zone
    whose clusters use the account (Input[str] each): the blob name resolves to that VNet's own endpoint. Default:
    none (the account is then reachable by Azure's trusted services only, as public network access is always
    off)."""
    keys: KeyPolicy = KeyPolicy()
    """Rotation of the account key. Default: yearly."""
    soft_delete_days: Annotated[int, Field(ge=1, le=365)] = 30
    """Days deleted blobs and containers stay recoverable. Default: 30."""
    tags: dict[str, str] = Field(default_factory=dict)
    """Tags on every resource. Default: none."""


class AzureStorage(pulumi.ComponentResource):
    account_name: pulumi.Output[str]
    container_name: pulumi.Output[str]
    key_id: pulumi.Output[str]
    blob_endpoint: pulumi.Output[str]

    def __init__(self, name: str, args: AzureStorageArgs, opts: pulumi.ResourceOptions | None = None):
        spec = args.bucket
        if args.location not in args.allowed_locations:
            raise ConfigError(f"bucket {spec.name}", f"location {args.location!r} is outside the residency list; "
                                                     f"allowed: {', '.join(args.allowed_locations)}")
        try:
            sku = storage_sku(args.location, spec.geo_redundant, args.allowed_locations)
        except ValueError as err:
            raise ConfigError(f"bucket {spec.name}.geo_redundant", str(err)) from None
        super().__init__("sahab:azure:StorageAccount", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = {**args.tags, "sahab.io/bucket": spec.name, "sahab.io/purpose": spec.purpose}
        rg = args.resource_group_name

        key = vault_key(f"{name}-key", vault_name=args.vault_name, resource_group_name=rg, keys=args.keys,
                        tags=tags, opts=child)
        identity = azure_native.managedidentity.UserAssignedIdentity(
            f"{name}-identity", resource_group_name=rg, location=args.location, tags=tags, opts=child)
        grant = grant_key_use(f"{name}-key-access", key=key, principal_id=identity.principal_id, opts=child)

        account = st.StorageAccount(
            f"{name}-account",
            account_name=args.account_name,
            resource_group_name=rg,
            location=args.location,
            kind="StorageV2",
            sku=st.SkuArgs(name=sku),
            access_tier="Hot",
            minimum_tls_version="TLS1_2",
            enable_https_traffic_only=True,
            allow_blob_public_access=False,
            allow_shared_key_access=False,
            default_to_o_auth_authentication=True,
            allow_cross_tenant_replication=False,
            allowed_copy_scope="AAD",
            public_network_access="Disabled",
            identity=st.IdentityArgs(type="UserAssigned", user_assigned_identities=[identity.id]),
            encryption=st.EncryptionArgs(
                require_infrastructure_encryption=True,
                key_source="Microsoft.Keyvault",
                key_vault_properties=st.KeyVaultPropertiesArgs(key_name=key.name, key_vault_uri=args.vault_uri),
                encryption_identity=st.EncryptionIdentityArgs(encryption_user_assigned_identity=identity.id),
                services=st.EncryptionServicesArgs(blob=st.EncryptionServiceArgs(enabled=True, key_type="Account"),
                                                   file=st.EncryptionServiceArgs(enabled=True, key_type="Account"))),
            network_rule_set=st.NetworkRuleSetArgs(
                default_action="Deny", bypass="AzureServices",
                virtual_network_rules=[st.VirtualNetworkRuleArgs(virtual_network_resource_id=s, action="Allow")
                                       for s in args.subnet_ids]),
            tags=tags,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[grant]),
        )
        for location, (subnet_id, dns_zone_id) in args.private_endpoints.items():
            suffix = "" if location == args.location else f"-{location}"
            private_endpoint(f"{name}-blob-endpoint{suffix}", target_id=account.id, group="blob",
                             subnet_id=subnet_id, dns_zone_id=dns_zone_id, location=location,
                             resource_group_name=rg, tags=tags, opts=child)
        retention = st.DeleteRetentionPolicyArgs(enabled=True, days=args.soft_delete_days)
        st.BlobServiceProperties(f"{name}-blob-service", account_name=account.name, resource_group_name=rg,
                                 blob_services_name="default", is_versioning_enabled=spec.versioning,
                                 delete_retention_policy=retention, container_delete_retention_policy=retention,
                                 opts=child)
        container = st.BlobContainer(f"{name}-container", account_name=account.name, resource_group_name=rg,
                                     container_name=spec.purpose, public_access="None", opts=child)
        if spec.versioning:
            st.ManagementPolicy(
                f"{name}-lifecycle", account_name=account.name, resource_group_name=rg,
                management_policy_name="default",
                policy=st.ManagementPolicySchemaArgs(rules=[st.ManagementPolicyRuleArgs(
                    name="expire-old-versions", enabled=True, type="Lifecycle",
                    definition=st.ManagementPolicyDefinitionArgs(
                        filters=st.ManagementPolicyFilterArgs(blob_types=["blockBlob"]),
                        actions=st.ManagementPolicyActionArgs(version=st.ManagementPolicyVersionArgs(
                            delete=st.DateAfterCreationArgs(
                                days_after_creation_greater_than=spec.noncurrent_version_days)))))]),
                opts=child)

        self.account_name = account.name
        self.account_id = account.id
        self.resource_group_name = pulumi.Output.from_input(rg)
        self.container_name = container.name
        self.key_id = key.id
        self.blob_endpoint = account.primary_endpoints.apply(lambda e: e.blob)
        self.register_outputs({"accountName": self.account_name, "containerName": self.container_name,
                               "keyId": self.key_id, "blobEndpoint": self.blob_endpoint})
