"""EksNodeGroup: one fleet node pool as an EKS managed node group on an encrypted, IMDSv2-only launch template,
in the subnets of the zones that sell its instance type, and, for multi-node training on an EFA-capable type,
with every EFA interface the type has, in one cluster placement group (components.pool_plan.efa_layout)."""

from __future__ import annotations

import hashlib
from typing import Annotated, Any, Literal

import pulumi
import pulumi_aws as aws
from pydantic import BaseModel, ConfigDict, Field
from sahab.components import pool_plan
from sahab.components.errors import ConfigError
from sahab.components.fleet_config import NodePool

ROOT_DEVICE = "/dev/xvda"  # Amazon Linux 2023 EKS images boot from this device


class EksNodeGroupArgs(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    pool: NodePool
    """The pool from the fleet config: accelerator, instance type, sizes, labels, taints, zones. Required."""
    region: str
    """Region of the provider (the instance type must be offered there per its offerings snapshot). Required."""
    cluster_name: Any
    """EKS cluster to join (Input[str]). Required."""
    node_role_arn: Any
    """IAM role the nodes run as (Input[str]). Required."""
    subnet_ids: Any = None
    """Private subnets to launch nodes into (Input[list[str]]), when `subnets_by_zone` is not given.
    Default: none."""
    subnets_by_zone: Any = None
    """The cluster's private subnets by zone ID (dict[str, Input[str]], or Input[dict] read from another stack):
    the group uses those of the pool's `zones`, so it never launches where its type is not sold. Default: none
    (use `subnet_ids`)."""
    ebs_kms_key_arn: Any
    """Customer-managed KMS key that encrypts the root volumes (Input[str]). Required."""
    cluster_security_group_id: Any = None
    """The cluster security group EKS creates (Input[str]); an EFA launch template names its network interfaces'
    security groups itself, so it must name this one. Required for an EFA pool. Default: none."""
    vpc_id: Any = None
    """The cluster's VPC (Input[str]), for the EFA security group clusters older than 1.33 need. Default: none."""
    kubernetes_version: str = "1.34"
    """The cluster's Kubernetes minor version. Default: 1.34."""
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
        # Refuse before anything is registered: a region that does not sell the type cannot host the pool.
        instance_type = pool_plan.require_offered(pool, "aws", args.region)
        sizes = pool_plan.scaling(pool)
        efa = pool_plan.efa_layout(pool, instance_type)
        if efa and args.cluster_security_group_id is None:
            raise ConfigError(f"node pool {pool.name}.efa", "an EFA node group needs the cluster's security group")
        super().__init__("sahab:aws:EksNodeGroup", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = {**args.tags, "sahab.io/pool": pool.name, "sahab.io/accelerator": pool.accelerator}
        labels = pool_plan.eks_labels(pool, instance_type)

        fabric: dict[str, Any] = {}
        if efa:
            groups = [args.cluster_security_group_id]
            if pool_plan.efa_needs_own_security_group(args.kubernetes_version):
                groups.append(self._efa_security_group(name, args, tags).id)
            placement = aws.ec2.PlacementGroup(f"{name}-pg", strategy="cluster", tags=tags, opts=child)
            fabric = {
                "network_interfaces": [aws.ec2.LaunchTemplateNetworkInterfaceArgs(
                    device_index=nic.device_index, network_card_index=nic.network_card_index,
                    interface_type="efa", security_groups=groups, delete_on_termination="true")
                    for nic in efa.interfaces],
                "placement": aws.ec2.LaunchTemplatePlacementArgs(group_name=placement.name),
                "user_data": pool_plan.hugepages_user_data(efa.hugepages_2mi_pages),
            }
        template = aws.ec2.LaunchTemplate(
            f"{name}-lt",
            description=f"Nodes of pool {pool.name}: encrypted root volume, IMDSv2 only"
                        + (f", {len(efa.interfaces)} EFA interfaces in a cluster placement group" if efa else ""),
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
            **fabric,
        )
        group = aws.eks.NodeGroup(
            f"{name}-ng",
            cluster_name=args.cluster_name,
            node_group_name_prefix=f"{pool.name}-",
            node_role_arn=args.node_role_arn,
            subnet_ids=self._subnets(pool, args),
            instance_types=[instance_type],
            ami_type=pool_plan.eks_ami_type(pool),
            capacity_type="SPOT" if pool.spot else "ON_DEMAND",
            scaling_config=aws.eks.NodeGroupScalingConfigArgs(
                min_size=sizes.min_size, max_size=sizes.max_size, desired_size=sizes.desired_size),
            labels=labels,
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
        for key, value in sorted(pool_plan.autoscaler_node_template_tags(pool, labels, efa).items()):
            # Named after the key (stable when other labels come and go).
            key_id = hashlib.sha256(key.encode()).hexdigest()[:8]
            aws.autoscaling.Tag(f"{name}-asg-tag-{key_id}", autoscaling_group_name=asg_name,
                                tag=aws.autoscaling.TagTagArgs(key=key, value=value, propagate_at_launch=False),
                                opts=child)
        self.pool = pool
        self.node_group_name = group.node_group_name
        self.launch_template_id = template.id
        self.register_outputs({"nodeGroupName": self.node_group_name, "launchTemplateId": self.launch_template_id})

    @staticmethod
    def _subnets(pool: NodePool, args: EksNodeGroupArgs) -> Any:
        """The subnets of the pool's zones (all of `subnet_ids` for a pool placed nowhere in particular)."""
        if args.subnets_by_zone is None or not pool.zones:
            return args.subnet_ids

        def pick(by_zone: dict[str, str]) -> list[str]:
            missing = [z for z in pool.zones if z not in by_zone]
            if missing:
                raise ConfigError(f"node pool {pool.name}.zones", f"the cluster's VPC has no subnet in "
                                  f"{', '.join(missing)} (its zones: {', '.join(sorted(by_zone)) or 'none'}); "
                                  f"{pool.instance_type} needs one of the zones that sell it")
            return [by_zone[z] for z in pool.zones]

        if isinstance(args.subnets_by_zone, dict):  # this stack's VPC: the node group depends on its own subnets only
            return pick(args.subnets_by_zone)
        return pulumi.Output.from_input(args.subnets_by_zone).apply(pick)

    def _efa_security_group(self, name: str, args: EksNodeGroupArgs, tags: dict[str, str]) -> aws.ec2.SecurityGroup:
        """Before 1.33 the cluster security group does not carry EFA's traffic: EFA needs a group that admits
        all traffic from and to itself (eksctl's rule for managed node groups)."""
        if args.vpc_id is None:
            raise ConfigError(f"node pool {args.pool.name}.efa", "an EFA node group before Kubernetes 1.33 needs "
                              "the cluster's VPC for its EFA security group")
        group = aws.ec2.SecurityGroup(f"{name}-efa-sg", vpc_id=args.vpc_id, tags=tags,
                                      description=f"EFA traffic between the nodes of pool {args.pool.name}",
                                      opts=pulumi.ResourceOptions(parent=self))
        for direction in ("ingress", "egress"):
            aws.ec2.SecurityGroupRule(f"{name}-efa-{direction}", type=direction, security_group_id=group.id,
                                      source_security_group_id=group.id, protocol="-1", from_port=0, to_port=0,
                                      description="EFA: all traffic within the group",
                                      opts=pulumi.ResourceOptions(parent=self))
        return group


def _depends_on(opts: pulumi.ResourceOptions | None) -> list[pulumi.Resource]:
    waits = opts.depends_on if opts is not None else None
    if waits is None:
        return []
    return list(waits) if isinstance(waits, list | tuple) else [waits]
