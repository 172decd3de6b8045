"""ReferencedCluster: a cloud cluster another stack created (burst stacks add pools to prod's clusters).

Not a resource: it reads what the owning stack exports under `clusters.<name>` through a StackReference and
offers the same attributes as EksCluster / AksCluster, so Fleet and the platform layer treat both alike.
"""

from __future__ import annotations

from typing import Any

import pulumi
from sahab.components.errors import ConfigError
from sahab.components.kinds import get as kind_spec
from sahab.components.kinds import kinds

# What a burst stack reads from the owning stack, per cluster kind that can be borrowed (KindSpec.reference); the
# owner's Fleet exports these keys.
REQUIRED_KEYS = {name: spec.reference.keys for name, spec in kinds().items() if spec.reference is not None}


def cluster_export(exports: Any, reference: str, name: str, kind: str, where: str | None = None) -> dict[str, Any]:
    """The exported record of cluster `name` in the referenced stack's `clusters` output, checked. `where` is the
    cluster's config path (e.g. `sahab:fleet.clusters[1]`) that errors name."""
    where = where or f"cluster {name}"
    record = (exports or {}).get(name) if isinstance(exports, dict) else None
    if not isinstance(record, dict):
        raise ConfigError(f"{where}.stack_reference",
                          f"stack {reference} exports no cluster {name!r} (its `clusters` output lacks it)")
    if record.get("kind") != kind:
        raise ConfigError(f"{where}.kind",
                          f"stack {reference} exports {name!r} as {record.get('kind')!r}, not {kind!r}")
    missing = [k for k in REQUIRED_KEYS[kind] if k not in record]
    if missing:
        raise ConfigError(f"{where}.stack_reference",
                          f"stack {reference} exports cluster {name!r} without {', '.join(missing)}")
    return record


class ReferencedCluster:
    def __init__(self, reference: pulumi.StackReference, reference_name: str, name: str, kind: str,
                 provider: pulumi.ProviderResource | None = None, where: str | None = None,
                 kubelogin: str = "azurecli"):
        self.kind = kind
        self.name = name
        self.reference = reference_name
        self.record: pulumi.Output[dict[str, Any]] = reference.get_output("clusters").apply(
            lambda exports: cluster_export(exports, reference_name, name, kind, where))
        """The owning stack's checked export of the cluster."""
        self.cluster_name: pulumi.Output[str] = self.get("clusterName")
        self.kubeconfig: pulumi.Output[str]
        # The kind's attributes and kubeconfig, the same as its cluster component's (KindSpec.reference).
        kind_spec(kind).reference.read(self, provider, kubelogin)

    def get(self, key: str) -> pulumi.Output[Any]:
        return self.record.apply(lambda r: r[key])

    def get_optional(self, key: str) -> pulumi.Output[Any]:
        """An export only some owning stacks have (e.g. `checkpoints`): None when absent."""
        return self.record.apply(lambda r: r.get(key))


def referenced_kubeconfig(reference: pulumi.StackReference, reference_name: str, name: str) -> pulumi.Output[str]:
    """The kubeconfig the owning stack exports for cluster `name` (`kubeconfigs.<name>`), kept secret. An
    on-prem cluster's is empty until kubeadm has run there; a burst stack then reaches it with no credentials."""
    def pick(exports: Any) -> str:
        if not isinstance(exports, dict) or name not in exports:
            raise ConfigError(f"cluster {name}.stack_reference",
                              f"stack {reference_name} exports no kubeconfig for {name!r}")
        return exports[name] or ""
    return pulumi.Output.secret(reference.get_output("kubeconfigs").apply(pick))
