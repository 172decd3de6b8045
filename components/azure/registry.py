"""AcrRegistry: an Azure Container Registry in a UAE location as the AKS clusters' only image source.

Premium (private endpoints, zone redundancy where the location has zones), admin user off, anonymous pull off,
public network access off: clusters reach it over the landing zone's private network. One wildcard cache rule per
upstream ACR caches (`quay.io/*` -> `quay/*`, `registry.k8s.io/*` -> `k8s/*`, and docker.io / ghcr.io with a
login): the login is a credential set whose username and token are Key Vault secrets (written from Pulumi secrets),
read by the credential set's own managed identity (Key Vault Secrets User on those two secrets, nothing more).
Everything else (charts, nvcr.io, Sahab's own image) is pushed into the same layout (README: seeding). Every AKS
kubelet identity gets AcrPull on this registry alone, and every landing zone with AKS clusters reaches it through
a private endpoint in its own VNet (with public access off, the only way a node can pull).

The caller passes the Azure provider in `opts`.
"""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_azure_native as azure_native
from pydantic import Field
from sahab.components.artifacts import UPSTREAMS, Upstream
from sahab.components.azure.plan import ZONAL_LOCATIONS
from sahab.components.azure.private_endpoints import private_endpoint
from sahab.components.azure.roles import role_definition_id
from sahab.components.errors import ConfigError
from sahab.components.kubernetes.common import Args

ACR_PULL = "7f951dda-4ed3-4680-a7ca-43fe172d538d"
KEY_VAULT_SECRETS_USER = "4633458b-17de-408a-b874-0445c86b69e6"


class AcrRegistryArgs(Args):
    registry_name: str
    """The registry's name (`<name>.azurecr.io`). Required."""
    location: str
    """Its UAE location. Required."""
    resource_group_name: Any
    """The landing zone's resource group (Input[str]). Required."""
    vault_id: Any
    """The landing zone's Key Vault id (Input[str]), for the upstream logins. Required."""
    vault_name: Any
    """Its name (Input[str]). Required."""
    credentials: dict[str, Any] = Field(default_factory=dict)
    """Upstream host -> `{"username", "accessToken"}` JSON (a Pulumi secret). Default: none (those are seeded)."""
    credential_settings: dict[str, str] = Field(default_factory=dict)
    """Upstream host -> the config path of its login setting, for error messages. Default: none."""
    pull_principals: dict[str, Any] = Field(default_factory=dict)
    """Name -> object id (Input[str]) of each AKS kubelet identity that pulls. Default: none."""
    endpoints: dict[str, tuple[Any, Any]] = Field(default_factory=dict)
    """Location -> (private-endpoint subnet id, `privatelink.azurecr.io` zone id) of each landing zone whose
    clusters pull (Input[str] each). Default: none."""
    tags: dict[str, str] = Field(default_factory=dict)
    """Tags on the registry. Default: none."""


def cached_upstreams(credentials: dict[str, Any]) -> list[Upstream]:
    return [u for u in UPSTREAMS.values() if u.acr_cache and (not u.needs_credentials or u.host in credentials)]


def cache_rule(upstream: Upstream) -> dict[str, str]:
    """The rule's name and its wildcard mapping into the shared layout `<alias>/<upstream path>`."""
    return {"cache_rule_name": f"{upstream.alias}-cache", "source_repository": f"{upstream.host}/*",
            "target_repository": f"{upstream.alias}/*"}


def login_field(text: str, key: str, where: str, dry_run: bool) -> str:
    """One field of a `{"username", "accessToken"}` login. An offline preview may hold the setting still encrypted
    (it is never sent anywhere then); an update needs the real JSON and names the setting when it is not."""
    import json

    try:
        value = json.loads(text)[key]
    except (ValueError, TypeError, KeyError):
        if dry_run:
            return text
        raise ConfigError(where, f'must hold {{"username": "...", "accessToken": "..."}}; `{key}` is missing') \
            from None
    return str(value)


class AcrRegistry(pulumi.ComponentResource):
    """The registry, its cache rules and credential sets, and AcrPull for the clusters."""

    def __init__(self, name: str, args: AcrRegistryArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("sahab:azure:AcrRegistry", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        cr = azure_native.containerregistry
        registry = cr.Registry(
            f"{name}-acr", registry_name=args.registry_name, resource_group_name=args.resource_group_name,
            location=args.location, sku=cr.SkuArgs(name="Premium"), admin_user_enabled=False,
            anonymous_pull_enabled=False, public_network_access="Disabled", network_rule_bypass_options="None",
            # Zone redundancy only where the location has zones: UAE Central has none and refuses it.
            zone_redundancy="Enabled" if args.location in ZONAL_LOCATIONS else "Disabled", tags=args.tags, opts=child)

        self.rules: dict[str, Any] = {}
        for upstream in cached_upstreams(args.credentials):
            credential_set_id = None
            if upstream.needs_credentials:
                secrets, secret_resources = {}, {}
                setting = args.credential_settings.get(upstream.host, upstream.host)
                for field, key in (("username", "username"), ("password", "accessToken")):
                    secret_name = f"acr-cache-{upstream.alias}-{field}"
                    secret_resources[field] = azure_native.keyvault.Secret(
                        f"{name}-{upstream.alias}-{field}", secret_name=secret_name, vault_name=args.vault_name,
                        resource_group_name=args.resource_group_name,
                        properties=azure_native.keyvault.SecretPropertiesArgs(
                            value=pulumi.Output.secret(pulumi.Output.from_input(
                                args.credentials[upstream.host]).apply(
                                lambda text, k=key, w=setting:
                                login_field(text, k, w, pulumi.runtime.is_dry_run())))), opts=child)
                    # The secret's version-less identifier: the credential set follows its rotations.
                    secrets[field] = pulumi.Output.concat("https://", args.vault_name, ".vault.azure.net/secrets/",
                                                          secret_name)
                credentials = cr.CredentialSet(
                    f"{name}-{upstream.alias}-credentials", credential_set_name=f"{upstream.alias}-login",
                    registry_name=registry.name, resource_group_name=args.resource_group_name,
                    login_server=upstream.host, identity=cr.IdentityPropertiesArgs(type="SystemAssigned"),
                    auth_credentials=[cr.AuthCredentialArgs(name="Credential1",
                                                            username_secret_identifier=secrets["username"],
                                                            password_secret_identifier=secrets["password"])],
                    opts=child)
                # The credential set's own identity reads the two secrets (each one the scope of its own
                # assignment), not the rest of the vault.
                for field, secret in secret_resources.items():
                    azure_native.authorization.RoleAssignment(
                        f"{name}-{upstream.alias}-{field}-reader", scope=secret.id,
                        principal_id=credentials.identity.apply(lambda i: i.principal_id if i else None),
                        principal_type="ServicePrincipal",
                        role_definition_id=role_definition_id(args.vault_id, KEY_VAULT_SECRETS_USER), opts=child)
                credential_set_id = credentials.id
            self.rules[upstream.host] = cr.CacheRule(
                f"{name}-{upstream.alias}-cache", registry_name=registry.name,
                resource_group_name=args.resource_group_name, credential_set_resource_id=credential_set_id,
                **cache_rule(upstream), opts=child)

        for principal, object_id in args.pull_principals.items():
            azure_native.authorization.RoleAssignment(
                f"{name}-{principal}-pull", scope=registry.id, principal_id=object_id,
                principal_type="ServicePrincipal", role_definition_id=role_definition_id(registry.id, ACR_PULL),
                opts=child)

        for location, (subnet_id, dns_zone_id) in args.endpoints.items():
            private_endpoint(f"{name}-{location}-endpoint", target_id=registry.id, group="registry",
                             subnet_id=subnet_id, dns_zone_id=dns_zone_id, location=location,
                             resource_group_name=args.resource_group_name, tags=args.tags, opts=child)

        self.registry_id = registry.id
        self.login_server = registry.login_server
        self.register_outputs({"registryId": self.registry_id, "cachedUpstreams": sorted(self.rules)})
