"""The `sahab:fleet.registries` schema: the in-country registry each kind of cluster pulls every image and chart from.

    registries:
      eks:    {host: 111122223333.dkr.ecr.me-central-1.amazonaws.com, upstream_credentials: {docker.io: dockerHubPull}}
      aks:    {host: sahabprod.azurecr.io, location: uaenorth}
      onprem: {host: registry.auh-dc1.example.ae:5000}

A registry outside the country (an ECR host in another Region, an ACR in a non-UAE location, a public registry
as the on-prem mirror) is refused with a ConfigError naming the field. components.artifacts maps each upstream
reference into the registry; components.aws.registry and components.azure.registry build the caches, and the
Ansible role sahab_containerd points the on-prem nodes' containerd at the mirror.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field
from sahab.components.artifacts import UPSTREAMS
from sahab.components.errors import ConfigError

_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
HOST_PORT = re.compile(rf"^{_LABEL}(?:\.{_LABEL})*(?::(?P<port>[0-9]{{1,5}}))?$")
ECR_HOST = re.compile(r"^(?P<account>\d{12})\.dkr\.ecr\.(?P<region>[a-z0-9-]+)\.amazonaws\.com$")
ACR_HOST = re.compile(r"^(?P<name>[a-z0-9]{5,50})\.azurecr\.io$")
AZURE_UAE = ("uaenorth", "uaecentral")
# Public registries: never an on-prem mirror (they are what the mirror stands in for).
PUBLIC = ("docker.io", "registry-1.docker.io", "index.docker.io", "registry.hub.docker.com", "quay.io", "ghcr.io",
          "registry.k8s.io", "nvcr.io", "gcr.io", "mirror.gcr.io", "pkg.dev", "mcr.microsoft.com", "public.ecr.aws",
          "registry.gitlab.com")
SecretKey = Annotated[str, Field(pattern=r"^[A-Za-z][A-Za-z0-9_]{0,63}$")]


def _public(host: str) -> bool:
    """A public registry or a host under one (`us-docker.pkg.dev`, `mirror.gcr.io`)."""
    labels = host.split(".")
    return any(".".join(labels[i:]) in PUBLIC for i in range(len(labels)))


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True, use_attribute_docstrings=True)


class EcrRegistry(_Model):
    """The account's private ECR registry: pull-through cache rules for the upstreams ECR caches, repositories
    (KMS-encrypted, immutable tags) for what is seeded."""

    host: str
    """`<account>.dkr.ecr.<region>.amazonaws.com`, in a Region of the residency list. Required."""
    upstream_credentials: dict[str, SecretKey] = Field(default_factory=dict)
    """Upstream host (docker.io, ghcr.io: ECR caches them only with credentials) to the secret stack setting that
    holds `{"username": ..., "accessToken": ...}`; Sahab stores it in a Secrets Manager secret named
    `ecr-pullthroughcache/...`. An upstream that needs credentials and has none is seeded instead. Default: none."""


class AcrRegistry(_Model):
    """An Azure Container Registry, Premium, admin user and public network access off, with cache rules."""

    host: str
    """`<name>.azurecr.io` (name: 5-50 lower-case letters and digits). Required."""
    location: str | None = None
    """Its Azure location, a UAE one in the residency list. Default: clouds.azure.location."""
    upstream_credentials: dict[str, SecretKey] = Field(default_factory=dict)
    """Upstream host (docker.io, ghcr.io) to the secret stack setting holding `{"username": ..., "accessToken": ...}`;
    Sahab stores both in the landing zone's Key Vault and gives the cache a credential set reading them. An
    upstream that needs credentials and has none is seeded instead. Default: none."""


class MirrorRegistry(_Model):
    """The on-prem sites' registry mirror (Harbor, distribution, Zot ...), run by the organisation in-country."""

    host: str
    """`host[:port]` the nodes reach over HTTPS. Required."""


class Registries(_Model):
    """The in-country registry per cluster kind. A kind without one pulls from the upstream registries, which the
    policy SAHAB-K8S-012 refuses."""

    eks: EcrRegistry | None = None
    """Registry of the EKS clusters. Default: none."""
    aks: AcrRegistry | None = None
    """Registry of the AKS clusters. Default: none."""
    onprem: MirrorRegistry | None = None
    """Mirror of the on-prem clusters. Default: none."""

    def host_of(self, kind: str) -> str | None:
        registry = getattr(self, kind, None)
        return registry.host.lower() if registry else None

    @property
    def hosts(self) -> tuple[str, ...]:
        return tuple(registry.host.lower() for _, registry in self if registry)


def check_registries(registries: Registries, allowed_regions: tuple[str, ...], account_id: str | None,
                     azure_location: str | None, root: str) -> None:
    """Grammar and residency of every registry; raises ConfigError naming the field."""
    path = f"{root}.registries"
    for kind, registry in registries:  # each kind's registry model says which rules it follows
        if registry is None:
            continue
        where = f"{path}.{kind}.host"
        match = HOST_PORT.match(registry.host)
        if not match or (match["port"] and not 0 < int(match["port"]) < 65536):
            raise ConfigError(where, f"{registry.host!r} is not host[:port] (DNS labels, an optional port 1-65535)")
        host = registry.host.lower()
        if isinstance(registry, EcrRegistry):
            ecr = ECR_HOST.match(host)
            if not ecr:
                raise ConfigError(where, f"{registry.host!r} is not an ECR registry; allowed: "
                                  "<account>.dkr.ecr.<region>.amazonaws.com")
            aws_regions = [r for r in allowed_regions if r not in AZURE_UAE]
            if ecr["region"] not in aws_regions:
                raise ConfigError(where, f"{registry.host!r} is in {ecr['region']}, outside the residency list; "
                                  f"allowed: {', '.join(aws_regions) or 'none (no AWS region in the residency list)'}")
            if account_id and ecr["account"] != account_id:
                raise ConfigError(where, f"{registry.host!r} is in account {ecr['account']}, not the fleet's "
                                  f"account {account_id} (clouds.aws.account_id)")
        elif isinstance(registry, AcrRegistry):
            if not ACR_HOST.match(host):
                raise ConfigError(where, f"{registry.host!r} is not an Azure Container Registry; allowed: "
                                  "<name>.azurecr.io with a name of 5-50 lower-case letters and digits")
            location = registry.location or azure_location
            allowed = [r for r in allowed_regions if r in AZURE_UAE]
            if location is None:
                raise ConfigError(f"{path}.{kind}.location", f"required without clouds.azure; allowed: "
                                  f"{', '.join(allowed) or 'none (no UAE Azure location in the residency list)'}")
            if location not in allowed:
                raise ConfigError(f"{path}.{kind}.location", f"{location!r} is outside the country; allowed: "
                                  f"{', '.join(allowed) or 'none (no UAE Azure location in the residency list)'}")
        elif _public(host.split(":")[0]) or host.endswith((".amazonaws.com", ".azurecr.io")):
            raise ConfigError(where, f"{registry.host!r} is a cloud or public registry, not an on-prem mirror; "
                              "allowed: the host[:port] of the sites' own registry")
        for upstream in getattr(registry, "upstream_credentials", {}):
            known = UPSTREAMS.get(upstream)
            if known is None or not known.needs_credentials:
                needing = ", ".join(u.host for u in UPSTREAMS.values() if u.needs_credentials)
                raise ConfigError(f"{path}.{kind}.upstream_credentials", f"{upstream!r} takes no credentials; "
                                  f"allowed: {needing}")
