"""Builds the fleet's in-country registries: the ECR pull-through cache (components.aws.registry) and the ACR with
its cache rules (components.azure.registry), each where this stack creates clusters of that kind. A burst stack
borrows the owning stack's clusters and uses its registries; the on-prem mirror is the sites' own (its nodes are
pointed at it by Ansible, components.onprem.from_config).
"""

from __future__ import annotations

from typing import Any

import pulumi

from components.errors import ConfigError
from components.fleet_config import ROOT, secret_config
from components.registry_config import ACR_HOST, ECR_HOST
from components.registry_plan import artifacts_for, how, own_repositories


def _credentials(fleet: Any, kind: str) -> dict[str, Any]:
    """Upstream host -> its login (a Pulumi secret) from the secret stack settings the registry names."""
    found = {}
    for upstream, setting in getattr(fleet.config.registries, kind).upstream_credentials.items():
        value = secret_config(setting)
        if value is None:
            raise ConfigError(f"{ROOT}.registries.{kind}.upstream_credentials", f"names the secret setting "
                              f"sahab:{setting}, which the stack does not set; run `pulumi config set --secret "
                              f"{setting} '{{\"username\": \"...\", \"accessToken\": \"...\"}}'`")
        found[upstream] = pulumi.Output.secret(value)
    return found


def build_registries(fleet: Any) -> dict[str, Any]:
    built: dict[str, Any] = {}
    config = fleet.config
    registries = config.registries
    created = {c.kind for c in config.clusters if not c.stack_reference}
    if registries.eks and "eks" in created:
        built["eks"] = _ecr(fleet, _credentials(fleet, "eks"))
    if registries.aks and "aks" in created:
        built["aks"] = _acr(fleet, _credentials(fleet, "aks"))
    return built


def _ecr(fleet: Any, credentials: dict[str, Any]) -> Any:
    import pulumi_aws as aws

    from components.aws.registry import EcrRegistry, EcrRegistryArgs

    config = fleet.config
    host = ECR_HOST.match(config.registries.eks.host.lower())
    region = host["region"]
    provider = fleet._aws_providers.get(region) or aws.Provider(
        f"{fleet.fleet_name}-aws-{region}", region=region, default_tags=aws.ProviderDefaultTagsArgs(tags=fleet.tags),
        opts=pulumi.ResourceOptions(parent=fleet))
    seeded = sorted({a.path for a in artifacts_for(config, "eks") if how(a, "eks", credentials) == "seed"}
                    | set(own_repositories(config)))
    return EcrRegistry(f"{fleet.fleet_name}-ecr", EcrRegistryArgs(
        account_id=host["account"], region=region, credentials=credentials, seeded=tuple(seeded),
        node_role_arns={c.name: fleet.clusters[c.name].node_role_arn for c in config.clusters
                        if c.kind == "eks" and not c.stack_reference},
        keys=config.storage.keys, name_prefix=fleet.fleet_name, tags=fleet.tags),
        opts=pulumi.ResourceOptions(parent=fleet, providers=[provider]))


def _acr(fleet: Any, credentials: dict[str, Any]) -> Any:
    from components.azure.registry import AcrRegistry, AcrRegistryArgs

    config = fleet.config
    acr = config.registries.aks
    location = acr.location or config.clouds.azure.location
    zone = fleet._azure_zones.get(location)
    if zone is None:
        raise ConfigError(f"{ROOT}.registries.aks.location", f"{location!r} has no landing zone in this stack; "
                          f"allowed: {', '.join(sorted(fleet._azure_zones)) or 'a location with an AKS cluster'}")
    pull = {name: fleet.clusters[name].kubelet_object_id for name, c in
            ((c.name, c) for c in config.clusters if c.kind == "aks" and not c.stack_reference)}
    return AcrRegistry(f"{fleet.fleet_name}-acr", AcrRegistryArgs(
        registry_name=ACR_HOST.match(acr.host.lower())["name"], location=location,
        resource_group_name=zone.resource_group_name, vault_id=zone.vault_id, vault_name=zone.vault_name,
        credentials=credentials, pull_principals=pull, tags=fleet.tags,
        endpoints={where: (lz.private_endpoint_subnet_id, lz.dns_zone_ids["registry"])
                   for where, lz in fleet._azure_zones.items()},
        credential_settings={u: f"{ROOT}.registries.aks.upstream_credentials.{u}" for u in credentials}),
        opts=pulumi.ResourceOptions(parent=fleet, providers=[fleet._azure_provider]))
