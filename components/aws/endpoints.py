"""VpcEndpoints: the in-region AWS services a fleet VPC reaches without the internet.

S3 is reached two ways. A gateway endpoint on the private route tables carries traffic that goes to S3's
public addresses (the global endpoint, clients that bypass DNS). An interface endpoint with private DNS makes
the regional S3 names resolve to addresses inside the VPC, so pods fenced by NetworkPolicies to the VPC's range
can still write checkpoints. Both carry the same policy: the fleet's own buckets, plus the bucket ECR serves
image layers from (`prod-<region>-starport-layer-bucket`), read only.

Every other service is an interface endpoint with private DNS in the private subnets, behind a security group
that admits HTTPS from the VPC's range only.
"""

from __future__ import annotations

import json
from typing import Any

import pulumi
import pulumi_aws as aws
from pydantic import BaseModel, ConfigDict, Field

# What the nodes and the platform call, and why:
# - ecr.api, ecr.dkr: image pulls (the layers themselves come from S3, through the endpoints above);
# - sts: IRSA (AssumeRoleWithWebIdentity) for the VPC CNI, EBS CSI, cluster-autoscaler and checkpoint writers;
# - eks-auth: EKS Pod Identity (the eks-pod-identity-agent add-on's AssumeRoleForPodIdentity);
# - kms: clients that decrypt with the fleet's keys (SSE-KMS objects, envelope-encrypted data);
# - logs: CloudWatch Logs agents;
# - ec2: the VPC CNI's ENI calls, the EBS CSI driver's volume calls, cluster-autoscaler's instance-type lookups;
# - autoscaling: cluster-autoscaler's DescribeAutoScalingGroups / SetDesiredCapacity;
# - eks: cluster-autoscaler's DescribeNodegroup, which sizes scale-from-zero node groups (the burst pools).
# Not elasticloadbalancing: nothing in the VPC calls the ELB API (EKS's cloud controller runs in the
# AWS-managed control plane, and the fleet installs no load-balancer controller).
DEFAULT_INTERFACE_SERVICES = ("ecr.api", "ecr.dkr", "sts", "eks-auth", "kms", "logs", "ec2", "autoscaling", "eks")
# Read and write objects, list and clean up multipart uploads: what checkpoint writers and dataset readers do.
BUCKET_ACTIONS = ("s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload",
                  "s3:ListMultipartUploadParts", "s3:ListBucket", "s3:ListBucketMultipartUploads",
                  "s3:GetBucketLocation")


def service_name(region: str, service: str) -> str:
    """`com.amazonaws.<region>.<service>`, the name every AWS endpoint service has in a commercial region."""
    return f"com.amazonaws.{region}.{service}"


def ecr_layer_bucket_arn(region: str) -> str:
    """The AWS-owned bucket ECR hands out presigned layer URLs for, in `region`."""
    return f"arn:aws:s3:::prod-{region}-starport-layer-bucket/*"


def s3_endpoint_policy(region: str, bucket_arns: list[str]) -> str:
    """An endpoint policy that lets traffic through to the fleet's buckets and the ECR layer bucket only."""
    statements: list[dict[str, Any]] = [{
        "Sid": "EcrImageLayers", "Effect": "Allow", "Principal": "*", "Action": "s3:GetObject",
        "Resource": ecr_layer_bucket_arn(region)}]
    if bucket_arns:
        statements.append({
            "Sid": "FleetBuckets", "Effect": "Allow", "Principal": "*", "Action": list(BUCKET_ACTIONS),
            "Resource": [r for arn in bucket_arns for r in (arn, f"{arn}/*")]})
    return json.dumps({"Version": "2012-10-17", "Statement": statements})


class VpcEndpointsArgs(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    region: str
    """Region of the VPC (and of the provider): endpoint service names carry it. Required."""
    vpc_id: Any
    """The VPC (Input[str]). Required."""
    vpc_cidr: str
    """The VPC's range: the only source the endpoints' security group admits. Required."""
    subnet_ids: Any
    """Private subnets (Input[list[str]]), one per availability zone, that hold the interface endpoints. Required."""
    route_table_ids: Any
    """Private route tables (Input[list[str]]) that get the S3 gateway route. Required."""
    bucket_arns: tuple[Any, ...] = ()
    """ARNs (Input[str]) of the fleet's S3 buckets in this region, the only buckets reachable through S3's
    endpoints besides ECR's layer bucket. Default: none (image layers only)."""
    client_cidrs: tuple[str, ...] = ()
    """Blocks outside the VPC that reach the endpoints over HTTPS too: the on-prem sites linked to it, whose DNS
    servers forward ECR's and the ECR layer bucket's names to the VPC (components.hybrid_plan). Default: none."""
    interface_services: tuple[str, ...] = DEFAULT_INTERFACE_SERVICES
    """Interface endpoint services (`com.amazonaws.<region>.<service>`). Default: ecr.api, ecr.dkr, sts, eks-auth,
    kms, logs, ec2, autoscaling, eks (see DEFAULT_INTERFACE_SERVICES for why each)."""
    tags: dict[str, str] = Field(default_factory=dict)
    """Tags on every resource. Default: none."""


class VpcEndpoints(pulumi.ComponentResource):
    security_group_id: pulumi.Output[str]

    def __init__(self, name: str, args: VpcEndpointsArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("sahab:aws:VpcEndpoints", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        region, tags = args.region, args.tags
        policy = pulumi.Output.all(*args.bucket_arns).apply(lambda arns: s3_endpoint_policy(region, list(arns)))

        group = aws.ec2.SecurityGroup(
            f"{name}-sg", vpc_id=args.vpc_id, description="HTTPS from the VPC to its interface endpoints",
            ingress=[aws.ec2.SecurityGroupIngressArgs(protocol="tcp", from_port=443, to_port=443,
                                                      cidr_blocks=[args.vpc_cidr], description="HTTPS from the VPC"),
                     *(aws.ec2.SecurityGroupIngressArgs(protocol="tcp", from_port=443, to_port=443, cidr_blocks=[cidr],
                                                        description="HTTPS from an on-prem site")
                       for cidr in args.client_cidrs)],
            egress=[], tags=tags, opts=child)
        s3_gateway = aws.ec2.VpcEndpoint(
            f"{name}-s3-gateway", vpc_id=args.vpc_id, service_name=service_name(region, "s3"),
            vpc_endpoint_type="Gateway", route_table_ids=args.route_table_ids, policy=policy, tags=tags, opts=child)
        # Regional S3 names resolve to this endpoint everywhere in the VPC (not only for on-premises resolvers).
        aws.ec2.VpcEndpoint(
            f"{name}-s3", vpc_id=args.vpc_id, service_name=service_name(region, "s3"), vpc_endpoint_type="Interface",
            private_dns_enabled=True, subnet_ids=args.subnet_ids, security_group_ids=[group.id], policy=policy,
            dns_options=aws.ec2.VpcEndpointDnsOptionsArgs(private_dns_only_for_inbound_resolver_endpoint=False),
            tags=tags, opts=pulumi.ResourceOptions(parent=self, depends_on=[s3_gateway]))
        for service in args.interface_services:
            aws.ec2.VpcEndpoint(
                f"{name}-{service.replace('.', '-')}", vpc_id=args.vpc_id, service_name=service_name(region, service),
                vpc_endpoint_type="Interface", private_dns_enabled=True, subnet_ids=args.subnet_ids,
                security_group_ids=[group.id], tags=tags, opts=child)

        self.security_group_id = group.id
        self.register_outputs({"securityGroupId": self.security_group_id})
