"""EKS: Amazon EKS clusters with managed node groups, under one explicit AWS provider per Region.

The builder also makes what the AWS side of a stack needs around them: the S3 buckets, and one VPC per Region
with its endpoints (components.aws). Its registry is the account's ECR with pull-through cache rules; its
checkpoint store the stack's S3 `checkpoints` bucket, reached through IRSA.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pulumi
from sahab.components.fleet_config import EksCluster as EksClusterConfig  # the config section of EKS clusters
from sahab.components.gpu_stack import GpuStack, Owners
from sahab.components.kinds import ClusterComponent, KindSpec, NodeTypes, Reference, Registry, StorageClass
from sahab.components.registry_config import ECR_HOST, EcrRegistry

if TYPE_CHECKING:
    import pulumi_aws as aws
    from sahab.components.artifacts import Upstream
    from sahab.components.aws.network import Network
    from sahab.components.fleet import Fleet

NAME = "eks"
CLOUD = "aws"


@dataclass
class AwsState:
    """What the EKS builder made that other parts of the fleet build on."""

    providers: dict[str, aws.Provider] = field(default_factory=dict)
    """One provider per Region, by Region."""
    account_id: pulumi.Input[str] | None = None
    """The account (clouds.aws.account_id, else the caller's), where this stack creates clusters."""
    networks: dict[str, Network] = field(default_factory=dict)
    """The VPC of every Region with a cluster this stack creates."""


def state(fleet: Fleet) -> AwsState:
    found = fleet.kind_state.get(NAME)
    return found if isinstance(found, AwsState) else AwsState()


def build(fleet: Fleet) -> dict[str, ClusterComponent]:
    """EKS clusters (created, or referenced from the owning stack) with their node groups, and S3 buckets,
    all under one explicit provider per Region."""
    cfg, cloud = fleet.config, fleet.config.clouds.aws
    clusters = [c for c in cfg.clusters if c.kind == NAME]
    buckets = [b for b in cfg.storage.buckets if b.cloud == CLOUD]
    if cloud is None or not (clusters or buckets):
        return {}
    import pulumi_aws as aws
    from sahab.components.aws.bucket import S3Bucket, S3BucketArgs
    from sahab.components.aws.eks_cluster import EksCluster, EksClusterArgs
    from sahab.components.aws.network import Network, NetworkArgs
    from sahab.components.aws.node_group import EksNodeGroup, EksNodeGroupArgs
    from sahab.components.hybrid_build import site_cidrs

    regions = sorted({cfg.region_of(c) for c in clusters} | ({cloud.region} if buckets else set()))
    providers = {region: aws.Provider(
        f"{fleet.fleet_name}-aws-{region}", region=region,
        allowed_account_ids=[cloud.account_id] if cloud.account_id else None,
        default_tags=aws.ProviderDefaultTagsArgs(tags=fleet.tags),
        opts=pulumi.ResourceOptions(parent=fleet)) for region in regions}
    built_state = fleet.kind_state[NAME] = AwsState(providers=providers)

    def under(region: str) -> pulumi.ResourceOptions:
        return pulumi.ResourceOptions(parent=fleet, providers=[providers[region]])

    created = [c for c in clusters if not c.stack_reference]
    account_id = cloud.account_id
    if created and account_id is None:  # key policies name the account
        account_id = aws.get_caller_identity_output(
            opts=pulumi.InvokeOutputOptions(provider=providers[cfg.region_of(created[0])])).account_id
    built_state.account_id = account_id
    # Buckets first: the VPC endpoints let through to them and nowhere else.
    for bucket in buckets:
        s3 = S3Bucket(f"{fleet.fleet_name}-{bucket.name}", S3BucketArgs(
            bucket=bucket, allowed_regions=cfg.residency.allowed_regions, keys=cfg.storage.keys),
            opts=under(cloud.region))
        fleet.buckets[bucket.name] = s3
        fleet.exports.setdefault("buckets", {})[bucket.name] = {
            "cloud": "aws", "region": cloud.region, "bucketName": s3.bucket_name, "arn": s3.arn,
            "kmsKeyArn": s3.kms_key_arn}
    networks: dict[str, Network] = {}
    from sahab.components.fleet_config import vpc_zones

    for region in sorted({cfg.region_of(c) for c in created}):
        networks[region] = Network(f"{fleet.fleet_name}-{region}", NetworkArgs(
            region=region, cidr=cloud.vpc_cidr, az_count=cloud.az_count, zone_ids=vpc_zones(cfg, region),
            account_id=account_id,
            nat_gateway=not cloud.airgapped, keys=cfg.storage.keys,
            bucket_arns=tuple(s3.arn for s3 in fleet.buckets.values() if cloud.region == region),
            hybrid_hub=cloud.hybrid_hub if site_cidrs(cfg, CLOUD) else None, site_cidrs=site_cidrs(cfg, CLOUD)),
            opts=under(region))
    built_state.networks = networks

    built: dict[str, ClusterComponent] = {}
    for cluster in clusters:
        region = cfg.region_of(cluster)
        pools = cfg.pools_of(cluster.name)
        if cluster.stack_reference:
            eks = fleet.referenced(cluster, providers[region])
            # The owning stack runs the cluster and its add-ons; this one only adds node groups.
            groups = {pool.name: EksNodeGroup(f"{fleet.fleet_name}-{pool.name}", EksNodeGroupArgs(
                pool=pool, region=region, cluster_name=eks.cluster_name, node_role_arn=eks.node_role_arn,
                subnet_ids=eks.subnet_ids, subnets_by_zone=eks.get_optional("subnetIdsByZone"),
                ebs_kms_key_arn=eks.ebs_kms_key_arn, cluster_security_group_id=eks.get_optional(
                    "clusterSecurityGroupId"), vpc_id=eks.get_optional("vpcId"),
                kubernetes_version=cluster.kubernetes_version, tags=fleet.tags),
                opts=under(region)) for pool in pools}
        else:
            network = networks[region]
            subnets = network.private_subnet_ids
            eks = EksCluster(f"{fleet.fleet_name}-{cluster.name}", EksClusterArgs(
                cluster_name=f"{fleet.fleet_name}-{cluster.name}", region=region, account_id=account_id,
                subnet_ids=subnets, subnets_by_zone=network.private_subnets_by_zone, vpc_id=network.vpc_id,
                admin_principals=cloud.admin_principals, kubernetes_version=cluster.kubernetes_version,
                public_endpoint=cluster.public_endpoint, public_access_cidrs=cluster.public_endpoint_cidrs,
                security_group_ids=tuple(networks[region].api_security_group_ids),
                keys=cfg.storage.keys, pools=pools, tags=fleet.tags),
                # Nodes join through the endpoints (the only way out of an air-gapped VPC).
                opts=pulumi.ResourceOptions.merge(under(region), pulumi.ResourceOptions(
                    depends_on=[networks[region].endpoints])))
            groups = eks.node_groups
            fleet.export_cluster(cluster.name, {
                "kind": NAME, "region": region, "clusterName": eks.cluster_name, "endpoint": eks.endpoint,
                "certificateAuthority": eks.certificate_authority, "nodeRoleArn": eks.node_role_arn,
                "subnetIds": subnets, "subnetIdsByZone": network.private_subnets_by_zone,
                "vpcId": network.vpc_id, "clusterSecurityGroupId": eks.cluster_security_group_id,
                "ebsKmsKeyArn": eks.ebs_kms_key_arn,
                "secretsKmsKeyArn": eks.secrets_kms_key_arn, "oidcProviderArn": eks.oidc_provider_arn,
            }, eks.kubeconfig)
        built[cluster.name] = eks
        for pool_name, group in groups.items():
            fleet.node_pools[pool_name] = group
            fleet.export_pool(pool_name, cluster.name, NAME, group.node_group_name)

    return built


# GPU nodes boot the EKS-optimised AL2023 NVIDIA AMI (`AL2023_x86_64_NVIDIA`, components.gpu_stack), whatever the
# minor version: it ships the driver and the toolkit.
GPU_STACK = GpuStack({"preinstalled": Owners("ami", "ami")}, "preinstalled", why_not=(
    "EKS GPU nodes run the AL2023 NVIDIA AMI, which ships the driver and the container toolkit: the GPU operator "
    "would install them a second time (and NVIDIA builds no driver image for Amazon Linux)"))


def storage_parameters(args: Any, key: Any) -> dict:
    """gp3 volumes through the EBS CSI driver, encrypted with the cluster's KMS key."""
    parameters = {"type": "gp3", "encrypted": "true", "csi.storage.k8s.io/fstype": "ext4"}
    if key is not None:
        parameters["kmsKeyId"] = key
    return {"provisioner": "ebs.csi.aws.com", "parameters": parameters, "allowVolumeExpansion": True}


def pulls_through(upstream: Upstream, credentials: Mapping[str, Any], airgapped: bool) -> bool:
    """ECR caches the upstreams it has a pull-through rule for, those needing a login only with one."""
    return upstream.ecr_url is not None and (not upstream.needs_credentials or upstream.host in credentials)


def build_registry(fleet: Fleet, credentials: dict[str, Any]) -> pulumi.ComponentResource:
    """The account's ECR (components.aws.registry): cache rules, and repositories for what is seeded."""
    import pulumi_aws as aws
    from sahab.components.aws.registry import EcrRegistry as Ecr
    from sahab.components.aws.registry import EcrRegistryArgs
    from sahab.components.registry_plan import artifacts_for, how, own_repositories

    config = fleet.config
    host = ECR_HOST.match(config.registries.eks.host.lower())
    region = host["region"]
    provider = state(fleet).providers.get(region) or aws.Provider(
        f"{fleet.fleet_name}-aws-{region}", region=region, default_tags=aws.ProviderDefaultTagsArgs(tags=fleet.tags),
        opts=pulumi.ResourceOptions(parent=fleet))
    seeded = sorted({a.path for a in artifacts_for(config, NAME) if how(a, NAME, credentials) == "seed"}
                    | set(own_repositories(config)))
    return Ecr(f"{fleet.fleet_name}-ecr", EcrRegistryArgs(
        account_id=host["account"], region=region, credentials=credentials, seeded=tuple(seeded),
        node_role_arns={c.name: fleet.clusters[c.name].node_role_arn for c in config.clusters
                        if c.kind == NAME and not c.stack_reference},
        keys=config.storage.keys, name_prefix=fleet.fleet_name, tags=fleet.tags),
        opts=pulumi.ResourceOptions(parent=fleet, providers=[provider]))


def checkpoint_store(fleet: Fleet, cluster_name: str, team: str) -> Any:
    """On an EKS cluster this stack creates, with an AWS checkpoints bucket: the team's pods write their
    checkpoints there through IRSA (components.aws.checkpoint_access). Elsewhere: None (a volume)."""
    from sahab.components.aws.checkpoint_access import CheckpointAccess, CheckpointAccessArgs
    from sahab.components.aws.eks_cluster import EksCluster
    from sahab.components.checkpoint_build import CHECKPOINT_ACCOUNT, checkpoints_bucket

    eks = fleet.clusters.get(cluster_name)
    bucket = checkpoints_bucket(fleet, "kms_key_arn")
    if not isinstance(eks, EksCluster) or bucket is None:
        return None
    s3, region = fleet.buckets[bucket], fleet.config.region_of(fleet.config.cluster(cluster_name))
    return CheckpointAccess(f"{fleet.fleet_name}-{cluster_name}-{team}-checkpoints", CheckpointAccessArgs(
        namespace=team, service_account=CHECKPOINT_ACCOUNT, region=region, bucket_name=s3.bucket_name,
        kms_key_arn=s3.kms_key_arn, oidc_provider_arn=eks.oidc_provider_arn, oidc_issuer=eks.oidc_issuer,
        tags=fleet.tags), opts=pulumi.ResourceOptions(parent=fleet, depends_on=[fleet.platforms[cluster_name]],
                                                     providers={"aws": state(fleet).providers[region],
                                                                "kubernetes": fleet.k8s_providers[cluster_name]}))


def read_reference(cluster: Any, provider: pulumi.ProviderResource | None, kubelogin: str) -> None:
    """An EKS cluster as the owning stack exports it, with the same attributes as EksCluster."""
    from sahab.components.aws.eks_cluster import eks_kubeconfig

    cluster.region = cluster.get("region")
    cluster.endpoint = cluster.get("endpoint")
    cluster.node_role_arn = cluster.get("nodeRoleArn")
    cluster.subnet_ids = cluster.get("subnetIds")
    cluster.ebs_kms_key_arn = cluster.get("ebsKmsKeyArn")
    cluster.storage_encryption_id = cluster.ebs_kms_key_arn
    cluster.kubeconfig = pulumi.Output.secret(cluster.record.apply(
        lambda r: eks_kubeconfig(r["clusterName"], r["endpoint"], r["certificateAuthority"], r["region"])))


REFERENCE = Reference(("clusterName", "endpoint", "certificateAuthority", "nodeRoleArn", "subnetIds", "ebsKmsKeyArn",
                       "region"), read_reference)

SPEC = KindSpec(
    name=NAME, cloud=CLOUD, cluster_model=EksClusterConfig,
    network=lambda fleet: fleet.clouds.aws and fleet.clouds.aws.vpc_cidr,
    node_types=NodeTypes(CLOUD), build=build, gpu_stack=GPU_STACK, gpu_node_os=lambda kubernetes_version: "amzn2023",
    storage_class=StorageClass(storage_parameters), readiness="eks",
    registry=Registry(EcrRegistry, pulls_through, build_registry,
                      zone=lambda fleet: f"ecr.{fleet.clouds.aws.region}.amazonaws.com"),
    checkpoint_store=checkpoint_store,
    reference=REFERENCE, addons=("efa-device-plugin", "cluster-autoscaler"), cold_nodes=True, private_api=True)
