"""EksNodeGroup: one fleet node pool as an EKS managed node group on an encrypted, IMDSv2-only launch template."""

from __future__ import annotations

import hashlib
from typing import Annotated, Any, Literal

import pulumi
import pulumi_aws as aws
from pydantic import BaseModel, ConfigDict, Field

from components import pool_plan
from components.config import NodePool

ROOT_DEVICE = "/dev/xvda"  # Amazon Linux 2023 EKS images boot from this device


class EksNodeGroupArgs(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    pool: NodePool
    """The pool from the fleet config: accelerator, instance type, sizes, labels, taints. Required."""
    region: str
    """Region of the provider (the accelerator must be offered there per the hardware catalog). Required."""
    cluster_name: Any
    """EKS cluster to join (Input[str]). Required."""
    node_role_arn: Any
    """IAM role the nodes run as (Input[str]). Required."""
    subnet_ids: Any
    """Private subnets to launch nodes into (Input[list[str]]). Required."""
    ebs_kms_key_arn: Any
    """Customer-managed KMS key that encrypts the root volumes (Input[str]). Required."""
    volume_type: Literal["gp3", "io2"] = "gp3"
    """Root volume type. Default: gp3."""
    imds_hop_limit: Annotated[int, Field(ge=1, le=2)] = 1
    """IMDSv2 response hop limit; 1 keeps pods (one hop further) away from the node's credentials. Default: 1."""
    tags: dict[str, str] = Field(default_factory=dict)
    """Tags on the node group, its instances and volumes. Default: none."""


class EksNodeGroup(pulumi.ComponentResource):
    node_group_name: pulumi.Output[str]
    launch_template_id: pulumi.Output[str]

    def __init__(self, name: str, args: EksNodeGroupArgs, opts: pulumi.ResourceOptions | None = None):
        pool = args.pool
        # Refuse before anything is registered: a region that does not sell the accelerator cannot host the pool.
        instance_type = pool_plan.require_offered(pool, "aws", args.region)
        sizes = pool_plan.scaling(pool)
        super().__init__("sahab:aws:EksNodeGroup", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = {**args.tags, "sahab.io/pool": pool.name, "sahab.io/accelerator": pool.accelerator}

        template = aws.ec2.LaunchTemplate(
            f"{name}-lt",
            description=f"Nodes of pool {pool.name}: encrypted root volume, IMDSv2 only",
            block_device_mappings=[aws.ec2.LaunchTemplateBlockDeviceMappingArgs(
                device_name=ROOT_DEVICE,
                ebs=aws.ec2.LaunchTemplateBlockDeviceMappingEbsArgs(
                    volume_size=pool.disk_size_gb, volume_type=args.volume_type, encrypted="true",
                    kms_key_id=args.ebs_kms_key_arn, delete_on_termination="true"))],
            metadata_options=aws.ec2.LaunchTemplateMetadataOptionsArgs(
                http_endpoint="enabled", http_tokens="required",
                http_put_response_hop_limit=args.imds_hop_limit, instance_metadata_tags="disabled"),
            tag_specifications=[aws.ec2.LaunchTemplateTagSpecificationArgs(resource_type=kind,
                                                                           tags={**tags, "Name": pool.name})
                                for kind in ("instance", "volume")],
            update_default_version=True,
            tags=tags,
            opts=child,
        )
        group = aws.eks.NodeGroup(
            f"{name}-ng",
            cluster_name=args.cluster_name,
            node_group_name_prefix=f"{pool.name}-",
            node_role_arn=args.node_role_arn,
            subnet_ids=args.subnet_ids,
            instance_types=[instance_type],
            ami_type=pool_plan.eks_ami_type(pool),
            capacity_type="SPOT" if pool.spot else "ON_DEMAND",
            scaling_config=aws.eks.NodeGroupScalingConfigArgs(
                min_size=sizes.min_size, max_size=sizes.max_size, desired_size=sizes.desired_size),
            labels=pool.node_labels,
            taints=[aws.eks.NodeGroupTaintArgs(key=t["key"], value=t["value"] or None, effect=t["effect"])
                    for t in pool_plan.eks_taints(pool)],
            launch_template=aws.eks.NodeGroupLaunchTemplateArgs(
                id=template.id, version=template.latest_version.apply(str)),
            update_config=aws.eks.NodeGroupUpdateConfigArgs(max_unavailable=1),
            tags=tags,
            # The cluster autoscaler owns the current size once the group exists. Pulumi does not pass a
            # component's depends_on to its children, so the group itself waits for what the caller named.
            opts=pulumi.ResourceOptions(parent=self, ignore_changes=["scalingConfig.desiredSize"],
                                        depends_on=_depends_on(opts)),
        )
        # Managed node groups do not pass their tags to the Auto Scaling group: tag it directly, so the
        # autoscaler can build this pool's nodes from zero.
        asg_name = group.resources.apply(lambda found: found[0].autoscaling_groups[0].name)
        for key, value in sorted(pool_plan.autoscaler_node_template_tags(pool).items()):
            # Named after the key (stable when other labels come and go).
            key_id = hashlib.sha256(key.encode()).hexdigest()[:8]
            aws.autoscaling.Tag(f"{name}-asg-tag-{key_id}", autoscaling_group_name=asg_name,
                                tag=aws.autoscaling.TagTagArgs(key=key, value=value, propagate_at_launch=False),
                                opts=child)
        self.pool = pool
        self.node_group_name = group.node_group_name
        self.launch_template_id = template.id
        self.register_outputs({"nodeGroupName": self.node_group_name, "launchTemplateId": self.launch_template_id})


def _depends_on(opts: pulumi.ResourceOptions | None) -> list[pulumi.Resource]:
    waits = opts.depends_on if opts is not None else None
    if waits is None:
        return []
    return list(waits) if isinstance(waits, list | tuple) else [waits]
