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

import pulumi

from components.errors import ConfigError
from components.fleet_config import ROOT, Cluster, secret_config
from components.kubernetes.checkpoint_key import ENV as KEY_ENV

if TYPE_CHECKING:
    from components.cluster_reference import ReferencedCluster

CHECKPOINT_ACCOUNT = "checkpoint-writer"  # the training pods' account where checkpoints go to a bucket


def checkpoint_access(fleet: Any, cluster_name: str, team: str) -> Any:
    """Where the team's checkpoints on this cluster go, when not to a per-pod volume: an object store the
    pods reach with the cluster's own identity (`.uri`, `.env`, `.pod_labels`, `.account`), or None."""
    cluster = fleet.config.cluster(cluster_name)
    if cluster.kind == "onprem":
        return _onprem(fleet, cluster, team)
    if cluster.kind == "aks":
        return _azure(fleet, cluster_name, team)
    return _aws(fleet, cluster_name, team)


def _onprem(fleet: Any, cluster: Cluster, team: str) -> Any:
    """On-prem, with the site's object store set: the team's own key (limited by the store to the team's prefix) in
    a Secret of the team's namespace (components.onprem.checkpoint_access)."""
    from components.onprem.checkpoint_access import CheckpointAccess, CheckpointAccessArgs

    index, site = next(((i, s) for i, s in enumerate(fleet.config.sites) if s.name == cluster.site),
                       (None, None))
    if site is None or site.object_store is None:
        return None
    store = site.object_store
    where = f"{ROOT}.sites[{index}].object_store.team_credentials"
    credentials = store.team_credentials.get(team)
    if credentials is None:
        raise ConfigError(where, f"team {team} trains on cluster {cluster.name} at site {site.name} and has no key "
                          f"for its store; allowed: team_credentials.{team} naming the team's own key, limited "
                          f"by the store to {store.bucket}/{team}/")
    keys = {}
    for name in ("access_key_id_secret", "secret_access_key_secret"):
        setting = getattr(credentials, name)
        keys[name] = secret_config(setting)
        if keys[name] is None:
            raise ConfigError(f"{where}.{team}.{name}",
                              f"names the secret setting sahab:{setting}, which the stack does not set; "
                              f"set it with `pulumi config set --secret {setting} <value>`")
    return CheckpointAccess(f"{fleet.fleet_name}-{cluster.name}-{team}-checkpoints", CheckpointAccessArgs(
        namespace=team, store=store, access_key_id=keys["access_key_id_secret"],
        secret_access_key=keys["secret_access_key_secret"]),
        opts=pulumi.ResourceOptions(parent=fleet, depends_on=[fleet.platforms[cluster.name]],
                                    providers={"kubernetes": fleet.k8s_providers[cluster.name]}))


def _azure(fleet: Any, cluster_name: str, team: str) -> Any:
    """On an AKS cluster this stack creates, with an Azure checkpoints account: the team's pods write to
    their own container there with workload identity (components.azure.checkpoint_access)."""
    from components.azure.aks_cluster import AksCluster
    from components.azure.checkpoint_access import CheckpointAccess, CheckpointAccessArgs

    aks = fleet.clusters.get(cluster_name)
    bucket = _checkpoints_bucket(fleet, "account_id")
    if not isinstance(aks, AksCluster) or bucket is None:
        return None
    account = fleet.buckets[bucket]
    return CheckpointAccess(f"{fleet.fleet_name}-{cluster_name}-{team}-checkpoints", CheckpointAccessArgs(
        namespace=team, service_account=CHECKPOINT_ACCOUNT, location=aks.region,
        resource_group_name=aks.resource_group_name, oidc_issuer_url=aks.oidc_issuer_url,
        account_name=account.account_name, account_resource_group_name=account.resource_group_name,
        container_name=f"{team}-checkpoints", tags=fleet.tags),
        opts=pulumi.ResourceOptions(parent=fleet, depends_on=[fleet.platforms[cluster_name]],
                                    providers={"azure-native": fleet._azure_provider,
                                               "kubernetes": fleet.k8s_providers[cluster_name]}))


def _aws(fleet: Any, cluster_name: str, team: str) -> Any:
    """On an EKS cluster this stack creates, with an AWS checkpoints bucket: the team's pods write their
    checkpoints there through IRSA (components.aws.checkpoint_access). Elsewhere: None (a volume)."""
    from components.aws.checkpoint_access import CheckpointAccess, CheckpointAccessArgs
    from components.aws.eks_cluster import EksCluster

    eks = fleet.clusters.get(cluster_name)
    bucket = _checkpoints_bucket(fleet, "kms_key_arn")
    if not isinstance(eks, EksCluster) or bucket is None:
        return None
    s3, region = fleet.buckets[bucket], fleet.config.region_of(fleet.config.cluster(cluster_name))
    return CheckpointAccess(f"{fleet.fleet_name}-{cluster_name}-{team}-checkpoints", CheckpointAccessArgs(
        namespace=team, service_account=CHECKPOINT_ACCOUNT, region=region, bucket_name=s3.bucket_name,
        kms_key_arn=s3.kms_key_arn, oidc_provider_arn=eks.oidc_provider_arn, oidc_issuer=eks.oidc_issuer,
        tags=fleet.tags), opts=pulumi.ResourceOptions(parent=fleet, depends_on=[fleet.platforms[cluster_name]],
                                                     providers={"aws": fleet._aws_providers[region],
                                                                "kubernetes": fleet.k8s_providers[cluster_name]}))


def _checkpoints_bucket(fleet: Any, has: str) -> str | None:
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
    if cluster.kind == "aks":
        from components.azure.checkpoint_access import USE_LABEL

        return ReferencedAccess(uri=store.apply(lambda s: s["uri"]), account=CHECKPOINT_ACCOUNT,
                                env=[{"name": "AZURE_STORAGE_ACCOUNT",
                                      "value": store.apply(lambda s: _env_value(s, "AZURE_STORAGE_ACCOUNT"))},
                                     KEY_ENV],
                                pod_labels={USE_LABEL: "true"})
    return ReferencedAccess(uri=store.apply(lambda s: s["uri"]), account=CHECKPOINT_ACCOUNT, env=[KEY_ENV])


def _env_value(store: dict, name: str) -> str:
    return next(e["value"] for e in store.get("env", []) if e["name"] == name)
