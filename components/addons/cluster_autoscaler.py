"""cluster-autoscaler, on the kinds that name it (EKS: AKS runs its own), installed by Fleet beside the platform:
its pools autoscale, and burst stacks add scale-from-zero groups to it that it discovers by tag
(components.aws.cluster_autoscaler). Its image follows each cluster's Kubernetes minor version."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pulumi
from sahab.components.addons import Addon, of_kind
from sahab.components.artifacts import CATALOG, Artifact, autoscaler_image

if TYPE_CHECKING:
    from sahab.components.aws.cluster_autoscaler import ClusterAutoscaler
    from sahab.components.fleet import Fleet
    from sahab.components.fleet_config import Cluster, FleetConfig
    from sahab.components.kinds import KindSpec

NAME = "cluster-autoscaler"


def artifacts(fleet: FleetConfig, kind: KindSpec, clusters: list[Cluster]) -> list[Artifact]:
    return [CATALOG["cluster-autoscaler-chart"],
            *{c.kubernetes_version: autoscaler_image(c.kubernetes_version) for c in clusters}.values()]


def build(fleet: Fleet, cluster: Cluster) -> ClusterAutoscaler | None:
    """The autoscaler of an EKS cluster this stack built (None where the cluster's component is not one)."""
    from sahab.components.aws.cluster_autoscaler import ClusterAutoscaler, ClusterAutoscalerArgs
    from sahab.components.aws.eks_cluster import EksCluster
    from sahab.components.kinds import eks as eks_kind
    from sahab.components.kubernetes.placement import system_placement

    eks, region, aws = fleet.clusters.get(cluster.name), fleet.config.region_of(cluster), eks_kind.state(fleet)
    if not isinstance(eks, EksCluster):
        return None
    return ClusterAutoscaler(f"{fleet.fleet_name}-{cluster.name}-autoscaler", ClusterAutoscalerArgs(
        cluster_name=eks.cluster_name, region=region, account_id=aws.account_id,
        oidc_provider_arn=eks.oidc_provider_arn, oidc_issuer=eks.oidc_issuer,
        kubernetes_version=cluster.kubernetes_version,
        placement=system_placement(fleet.config.pools_of(cluster.name)), tags=fleet.tags,
        images=fleet.images(cluster.kind)),
        opts=pulumi.ResourceOptions(parent=fleet, depends_on=[fleet.platforms[cluster.name]], providers={
            "aws": aws.providers[region], "kubernetes": fleet.k8s_providers[cluster.name]}))


ADDON = Addon(NAME, wanted=of_kind(NAME), artifacts=artifacts, build=build)
