"""The `sahab:fleet.registries` schema: the in-country registry each kind of cluster pulls every image and chart from.

    registries:
      eks:    {host: 111122223333.dkr.ecr.me-central-1.amazonaws.com, upstream_credentials: {docker.io: dockerHubPull}}
      aks:    {host: sahabprod.azurecr.io, location: uaenorth}
      onprem: {host: registry.auh-dc1.example.ae:5000}

A registry outside the country (an ECR host in another Region, an ACR in a non-UAE location, a public registry
as the on-prem mirror) is refused with a ConfigError naming the field (components.fleet_config.rules.registries).
components.artifacts maps each upstream reference into the registry; components.aws.registry and
components.azure.registry build the caches, and the Ansible role sahab_containerd points the on-prem nodes'
containerd at the mirror.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
HOST_PORT = re.compile(rf"^{_LABEL}(?:\.{_LABEL})*(?::(?P<port>[0-9]{{1,5}}))?$")
ECR_HOST = re.compile(r"^(?P<account>[0-9]{12})\.dkr\.ecr\.(?P<region>[a-z0-9-]+)\.amazonaws\.com$")
ACR_HOST = re.compile(r"^(?P<name>[a-z0-9]{5,50})\.azurecr\.io$")
AZURE_UAE = ("uaenorth", "uaecentral")
# Public registries: never an on-prem mirror (they are what the mirror stands in for).
PUBLIC = ("docker.io", "registry-1.docker.io", "index.docker.io", "registry.hub.docker.com", "quay.io", "ghcr.io",
          "registry.k8s.io", "nvcr.io", "gcr.io", "mirror.gcr.io", "pkg.dev", "mcr.microsoft.com", "public.ecr.aws",
          "registry.gitlab.com")
SecretKey = Annotated[str, Field(pattern=r"^[A-Za-z][A-Za-z0-9_]{0,63}$")]


def public_host(host: str) -> bool:
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
