"""Builds the fleet's in-country registries: the ECR pull-through cache (components.aws.registry) and the ACR with
its cache rules (components.azure.registry), each where this stack creates clusters of that kind. A burst stack
borrows the owning stack's clusters and uses its registries; the on-prem mirror is the sites' own (its nodes are
pointed at it by Ansible, components.onprem.from_config).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pulumi
from sahab.components.errors import ConfigError
from sahab.components.fleet_config import ROOT, secret_config
from sahab.components.kinds import kinds

if TYPE_CHECKING:
    from sahab.components.fleet import Fleet


def _credentials(fleet: Fleet, kind: str) -> dict[str, Any]:
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


def build_registries(fleet: Fleet) -> dict[str, pulumi.ComponentResource]:
    """The registry of every kind whose registry this stack creates (components.kinds), where the stack names one
    and creates clusters of that kind."""
    built: dict[str, pulumi.ComponentResource] = {}
    config = fleet.config
    created = {c.kind for c in config.clusters if not c.stack_reference}
    for spec in kinds().values():
        if spec.registry.build is not None and getattr(config.registries, spec.name, None) and spec.name in created:
            built[spec.name] = spec.registry.build(fleet, _credentials(fleet, spec.name))
    return built
