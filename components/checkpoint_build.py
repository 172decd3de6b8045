"""Where a team's training checkpoints go on each cluster, when not to a per-pod volume: an object store the pods
reach with the cluster's own identity. EKS: the stack's AWS checkpoints bucket through IRSA
(components.aws.checkpoint_access); AKS: the Azure checkpoints account through workload identity
(components.azure.checkpoint_access); on-prem: the site's object store with credentials from secret settings
(components.onprem.checkpoint_access).

A burst stack trains on the owning stack's cloud clusters: that stack exports each cluster's store under
`clusters.<name>.checkpoints`, and the burst Jobs use the same account, identity and prefix (the owning stack
created them in the team's namespace there).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sahab.components.errors import ConfigError
from sahab.components.fleet_config import ROOT
from sahab.components.kinds import get as kind_spec
from sahab.components.kubernetes.checkpoint_key import ENV as KEY_ENV

if TYPE_CHECKING:
    from sahab.components.cluster_reference import ReferencedCluster
    from sahab.components.fleet import Fleet

CHECKPOINT_ACCOUNT = "checkpoint-writer"  # the training pods' account where checkpoints go to a bucket


def checkpoint_access(fleet: Fleet, cluster_name: str, team: str) -> Any:
    """Where the team's checkpoints on this cluster go, when not to a per-pod volume: an object store the
    pods reach with the cluster's own identity (`.uri`, `.env`, `.pod_labels`, `.account`), or None. The
    cluster's kind knows its store (components.kinds)."""
    return kind_spec(fleet.config.cluster(cluster_name).kind).checkpoint_store(fleet, cluster_name, team)


def checkpoints_bucket(fleet: Fleet, has: str) -> str | None:
    """The bucket of purpose `checkpoints` this stack built with one cloud's component (told apart by `has`, an
    attribute only that cloud's bucket component has), or None."""
    purposes = {b.name: b.purpose for b in fleet.config.storage.buckets}
    return next((name for name, built in fleet.buckets.items()
                 if purposes.get(name) == "checkpoints" and hasattr(built, has)), None)


@dataclass
class ReferencedAccess:
    """A store the owning stack built, as a burst stack's Jobs use it (the same attributes as CheckpointAccess)."""

    uri: Any
    account: str | None
    env: list[dict] = field(default_factory=list)
    pod_labels: dict[str, str] = field(default_factory=dict)


def export_access(access: Any) -> dict[str, Any]:
    """What a burst stack needs of a cloud cluster's store: its URI, and the plain variables that locate it (the
    storage account on AKS)."""
    return {"uri": access.uri, "env": [{"name": e["name"], "value": e["value"]} for e in access.env if "value" in e]}


def referenced_access(cluster: ReferencedCluster) -> ReferencedAccess:
    """The owning stack's store on a cluster it created; an error naming the stack when it keeps none there (a
    burst run would then lose its checkpoints with its nodes)."""
    def checked(found: Any) -> dict:
        if not isinstance(found, dict):
            raise ConfigError(f"{ROOT}.burst.workers", f"stack {cluster.reference} keeps no checkpoint store on "
                              f"cluster {cluster.name!r}: give it a `checkpoints` bucket of that cloud")
        return found

    store = cluster.get_optional("checkpoints").apply(checked)
    # The account, labels and variable names follow from the cluster kind; only values come from the export. The
    # checkpoint key is the owning stack's Secret in the team's namespace there, read by name (never exported).
    spec = kind_spec(cluster.kind)
    if spec.referenced_store is not None:
        return spec.referenced_store(store)
    return ReferencedAccess(uri=store.apply(lambda s: s["uri"]), account=CHECKPOINT_ACCOUNT, env=[KEY_ENV])


def env_value(store: dict, name: str) -> str:
    return next(e["value"] for e in store.get("env", []) if e["name"] == name)
