"""ClusterAutoscaler: the Kubernetes cluster-autoscaler on one EKS cluster, with its own least-privilege role.

It finds the cluster's managed node groups by their Auto Scaling group tags (EKS tags every group
`k8s.io/cluster-autoscaler/<cluster>: owned`), so node groups a burst stack adds later are scaled too, and
builds a pool at zero from the node-template tags EksNodeGroup puts on its group (labels, taints, GPUs).

IAM through IRSA, the cluster's OIDC provider (as its vpc-cni and EBS CSI add-ons): only the
`kube-system/cluster-autoscaler` service account may assume the role. It may read what it must (the
Describe calls take no resource scoping in IAM) and change the size of, or end instances in, only this
cluster's EKS Auto Scaling groups: the write actions name `eks-*` groups of this account and Region and
require the cluster's ownership tag on them. No wildcard writes.

The caller passes both providers (`providers={"aws": ..., "kubernetes": ...}`).
"""

from __future__ import annotations

import json
from typing import Any

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s
from pydantic import Field
from sahab.components.artifacts import CATALOG, Images, autoscaler_image
from sahab.components.kubernetes.common import Args
from sahab.components.kubernetes.placement import Placement

CHART = "cluster-autoscaler"
CHART_VERSION = CATALOG["cluster-autoscaler-chart"].version
CHART_REPOSITORY = CATALOG["cluster-autoscaler-chart"].upstream
NAMESPACE = "kube-system"
SERVICE_ACCOUNT = "cluster-autoscaler"
READ_ACTIONS = (
    "autoscaling:DescribeAutoScalingGroups", "autoscaling:DescribeAutoScalingInstances",
    "autoscaling:DescribeLaunchConfigurations", "autoscaling:DescribeScalingActivities", "autoscaling:DescribeTags",
    "ec2:DescribeImages", "ec2:DescribeInstanceTypes", "ec2:DescribeLaunchTemplateVersions",
    "ec2:GetInstanceTypesFromInstanceRequirements",
)
WRITE_ACTIONS = ("autoscaling:SetDesiredCapacity", "autoscaling:TerminateInstanceInAutoScalingGroup")


class ClusterAutoscalerArgs(Args):
    cluster_name: Any
    """The EKS cluster's name (Input[str]). Required."""
    region: str
    """Its Region. Required."""
    account_id: Any
    """The AWS account (Input[str]), to scope the write actions. Required."""
    oidc_provider_arn: Any
    """The cluster's IAM OIDC provider (Input[str]), for IRSA. Required."""
    oidc_issuer: Any
    """The cluster's OIDC issuer URL (Input[str]). Required."""
    kubernetes_version: str = Field(default="1.31", pattern=r"^1\.[0-9]{2}$")
    """The cluster's minor version: the autoscaler image must match it. Default: 1.31."""
    placement: Placement = Placement()
    """Where the autoscaler runs (system nodes, never a pool it may scale down). Default: anywhere untainted."""
    images: Images = Images()
    """Where the chart (pinned, 9.46.6) and the image (the cluster's minor version) come from
    (components.artifacts). Default: upstream."""
    tags: dict[str, str] = Field(default_factory=dict)
    """Tags on the IAM role. Default: none."""


def trust_policy(provider_arn: str, issuer: str) -> str:
    host = issuer.removeprefix("https://")
    return json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"Federated": provider_arn}, "Action": "sts:AssumeRoleWithWebIdentity",
        "Condition": {"StringEquals": {f"{host}:sub": f"system:serviceaccount:{NAMESPACE}:{SERVICE_ACCOUNT}",
                                       f"{host}:aud": "sts.amazonaws.com"}}}]})


def permissions_policy(cluster: str, region: str, account: str) -> str:
    """Read what the autoscaler must; write only to this cluster's EKS groups."""
    return json.dumps({"Version": "2012-10-17", "Statement": [
        {"Sid": "Discover", "Effect": "Allow", "Action": list(READ_ACTIONS), "Resource": "*"},
        {"Sid": "ReadNodeGroups", "Effect": "Allow", "Action": ["eks:DescribeNodegroup"],
         "Resource": f"arn:aws:eks:{region}:{account}:nodegroup/{cluster}/*/*"},
        {"Sid": "ScaleOwnGroups", "Effect": "Allow", "Action": list(WRITE_ACTIONS),
         "Resource": f"arn:aws:autoscaling:{region}:{account}:autoScalingGroup:*:autoScalingGroupName/eks-*",
         "Condition": {"StringEquals": {f"aws:ResourceTag/k8s.io/cluster-autoscaler/{cluster}": "owned",
                                        "aws:ResourceTag/k8s.io/cluster-autoscaler/enabled": "true"}}},
    ]})


def chart_values(args: ClusterAutoscalerArgs, cluster: pulumi.Input[str], role_arn: pulumi.Input[str]) -> dict:
    # Outputs stay leaves of the values, so a preview (and the policy pack) sees every value it can know.
    return {
        "cloudProvider": "aws",
        "awsRegion": args.region,
        "autoDiscovery": {"clusterName": cluster},
        "image": args.images.values(autoscaler_image(args.kubernetes_version)),
        "rbac": {"serviceAccount": {"create": True, "name": SERVICE_ACCOUNT,
                                    "annotations": {"eks.amazonaws.com/role-arn": role_arn}}},
        "extraArgs": {
            "balance-similar-node-groups": True,
            "expander": "least-waste",
            "skip-nodes-with-local-storage": False,
            "scale-down-unneeded-time": "10m",
        },
        "nodeSelector": dict(args.placement.node_selector),
        "tolerations": list(args.placement.tolerations),
        "containerSecurityContext": {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                                     "capabilities": {"drop": ["ALL"]}},
    }


class ClusterAutoscaler(pulumi.ComponentResource):
    """cluster-autoscaler on one EKS cluster."""

    def __init__(self, name: str, args: ClusterAutoscalerArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("sahab:aws:ClusterAutoscaler", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        role = aws.iam.Role(
            f"{name}-role", description="cluster-autoscaler (kube-system) of one EKS cluster",
            assume_role_policy=pulumi.Output.all(args.oidc_provider_arn, args.oidc_issuer).apply(
                lambda v: trust_policy(v[0], v[1])),
            tags=args.tags, opts=child)
        policy = aws.iam.RolePolicy(
            f"{name}-policy", role=role.id,
            policy=pulumi.Output.all(args.cluster_name, args.account_id).apply(
                lambda v: permissions_policy(v[0], args.region, v[1])), opts=child)
        chart, version, repository = args.images.chart("cluster-autoscaler")
        self.release = k8s.helm.v3.Release(
            f"{name}-release",
            name="cluster-autoscaler",
            chart=chart,
            version=version,
            repository_opts=repository,
            namespace=NAMESPACE,
            values=chart_values(args, args.cluster_name, role.arn),
            atomic=True,
            cleanup_on_fail=True,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[policy]))
        self.role_arn = role.arn
        self.register_outputs({"roleArn": self.role_arn, "release": self.release.name})
