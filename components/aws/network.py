"""Network: the VPC EKS nodes live in, with AWS reached through in-region VPC endpoints (components.aws.endpoints).

Egress: by default one NAT gateway lets nodes pull the platform's public images (GPU operator, monitoring,
Kueue, autoscaler) until every image is mirrored in-region. `nat_gateway=False` builds an air-gapped VPC: no
internet gateway, no NAT, no public subnets; nodes reach only the endpoints. Team pods never reach a public
address either way: their NetworkPolicies allow only the cluster and the VPC's range (the endpoints)."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

import pulumi
import pulumi_aws as aws
from pydantic import BaseModel, ConfigDict, Field
from sahab.components.aws import hybrid_hub
from sahab.components.aws.endpoints import DEFAULT_INTERFACE_SERVICES, VpcEndpoints, VpcEndpointsArgs
from sahab.components.aws.kms import customer_key, key_policy, logs_statement, root_statement
from sahab.components.fleet_config import KeyPolicy
from sahab.components.network_plan import plan_resolver_addresses, plan_vpc_subnets


class NetworkArgs(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    region: str
    """Region the VPC is in, for endpoint service names; must match the provider's. Required."""
    cidr: str = "10.40.0.0/16"
    """VPC address range, split by `plan_vpc_subnets`. Default: 10.40.0.0/16."""
    az_count: Annotated[int, Field(ge=1, le=3)] = 3
    """Availability zones with a private and a public subnet each, when `zone_ids` names none. Default: 3."""
    zone_ids: tuple[str, ...] = ()
    """The availability zones, by zone ID (`mec1-az1`: the same place in every account, unlike zone names), in
    subnet order; the fleet picks those that sell its pools' instance types (components.fleet_config.vpc_zones).
    Default: none (the first `az_count` zone IDs the account's region lists)."""
    nat_gateway: bool = True
    """One NAT gateway so nodes can pull public images (GPU operator, monitoring charts' images). Default: true.
    Set false for an air-gapped VPC (no internet or NAT gateway, no public subnets) whose nodes pull only from
    in-region ECR mirrors through the endpoints."""
    interface_endpoints: tuple[str, ...] = DEFAULT_INTERFACE_SERVICES
    """Interface endpoint services (`com.amazonaws.<region>.<service>`). Default: see
    `components.aws.endpoints.DEFAULT_INTERFACE_SERVICES` (ECR, STS, EKS Auth, KMS, Logs, EC2, Auto Scaling, EKS)."""
    bucket_arns: tuple[Any, ...] = ()
    """The fleet's S3 buckets (Input[str] ARNs) that S3's endpoints let through. Default: none."""
    flow_logs: bool = True
    """Record every accepted and rejected flow in an encrypted CloudWatch log group. Default: true."""
    flow_log_retention_days: Annotated[int, Field(ge=1)] = 365
    """Days flow logs are kept. Default: 365."""
    account_id: Any = None
    """AWS account id (Input[str]); required when `flow_logs` is on, for the log key's policy. Default: unset."""
    keys: KeyPolicy = KeyPolicy()
    """Rotation and deletion window of the flow-log key. Default: rotate yearly, 30-day window."""
    hybrid_hub: Literal["virtual-private-gateway", "transit-gateway"] | None = None
    """The gateway on-prem sites' links attach to (components.aws.hybrid_hub), with an inbound resolver for their
    DNS servers. Default: none (no site reaches this VPC)."""
    site_cidrs: tuple[str, ...] = ()
    """The linked sites' blocks: routed to the hub, and admitted on HTTPS by the Kubernetes API's and the
    interface endpoints' security groups and on DNS by the inbound resolver's. Default: none."""
    tags: dict[str, str] = Field(default_factory=dict)
    """Tags on every resource (beyond the provider's default tags). Default: none."""


class Network(pulumi.ComponentResource):
    vpc_id: pulumi.Output[str]
    private_subnets_by_zone: dict[str, pulumi.Output[str]]
    private_subnet_ids: pulumi.Output[list[str]]
    public_subnet_ids: pulumi.Output[list[str]]

    def __init__(self, name: str, args: NetworkArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("sahab:aws:Network", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        plan = plan_vpc_subnets(args.cidr, len(args.zone_ids) or args.az_count)
        tags = {**args.tags, "sahab.io/component": name}

        vpc = aws.ec2.Vpc(f"{name}-vpc", cidr_block=args.cidr, enable_dns_hostnames=True, enable_dns_support=True,
                          tags={**tags, "Name": name}, opts=child)
        # The default security group allows all traffic between its members; take every rule away.
        aws.ec2.DefaultSecurityGroup(f"{name}-default-sg", vpc_id=vpc.id, ingress=[], egress=[], tags=tags,
                                     opts=child)
        if args.zone_ids:
            zone_ids: list = list(args.zone_ids)
        else:
            listed = aws.get_availability_zones_output(state="available", opts=pulumi.InvokeOutputOptions(parent=self))
            zone_ids = [listed.zone_ids[i] for i in range(len(plan.private))]

        # Placed by zone ID: a zone name means a different place in each account.
        private = [aws.ec2.Subnet(f"{name}-private-{i}", vpc_id=vpc.id, cidr_block=cidr,
                                  availability_zone_id=zone_ids[i], map_public_ip_on_launch=False,
                                  tags={**tags, "Name": f"{name}-private-{i}", "kubernetes.io/role/internal-elb": "1"},
                                  opts=child)
                   for i, cidr in enumerate(plan.private)]
        public = [aws.ec2.Subnet(f"{name}-public-{i}", vpc_id=vpc.id, cidr_block=cidr,
                                 availability_zone_id=zone_ids[i], map_public_ip_on_launch=False,
                                 tags={**tags, "Name": f"{name}-public-{i}", "kubernetes.io/role/elb": "1"},
                                 opts=child)
                  for i, cidr in enumerate(plan.public)] if args.nat_gateway else []

        private_routes = []
        self.hub = None
        if args.hybrid_hub:
            self.hub = hybrid_hub.gateway(name, args.hybrid_hub, vpc.id, [s.id for s in private], tags, child)
            if self.hub.transit_gateway is not None:  # a VGW's routes arrive by propagation instead
                private_routes += [aws.ec2.RouteTableRouteArgs(cidr_block=cidr, transit_gateway_id=self.hub.id)
                                   for cidr in args.site_cidrs]
        if args.nat_gateway:
            igw = aws.ec2.InternetGateway(f"{name}-igw", vpc_id=vpc.id, tags=tags, opts=child)
            public_rt = aws.ec2.RouteTable(f"{name}-public-rt", vpc_id=vpc.id, tags=tags, opts=child, routes=[
                aws.ec2.RouteTableRouteArgs(cidr_block="0.0.0.0/0", gateway_id=igw.id)])
            for i, subnet in enumerate(public):
                aws.ec2.RouteTableAssociation(f"{name}-public-rta-{i}", subnet_id=subnet.id,
                                              route_table_id=public_rt.id, opts=child)
            eip = aws.ec2.Eip(f"{name}-nat-eip", domain="vpc", tags=tags, opts=child)
            nat = aws.ec2.NatGateway(f"{name}-nat", subnet_id=public[0].id, allocation_id=eip.id,
                                     connectivity_type="public", tags=tags,
                                     opts=pulumi.ResourceOptions(parent=self, depends_on=[igw]))
            private_routes.append(aws.ec2.RouteTableRouteArgs(cidr_block="0.0.0.0/0", nat_gateway_id=nat.id))
        # Routes inline (a standalone aws.ec2.Route would fight this list); the sites' blocks through the hub.
        private_rt = aws.ec2.RouteTable(
            f"{name}-private-rt", vpc_id=vpc.id, routes=private_routes, tags=tags,
            propagating_vgws=[self.hub.id] if self.hub and self.hub.vpn_gateway is not None else None,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[self.hub.attachment] if self.hub and
                                        self.hub.attachment is not None else None))
        for i, subnet in enumerate(private):
            aws.ec2.RouteTableAssociation(f"{name}-private-rta-{i}", subnet_id=subnet.id,
                                          route_table_id=private_rt.id, opts=child)

        self.endpoints = VpcEndpoints(f"{name}-endpoints", VpcEndpointsArgs(
            region=args.region, vpc_id=vpc.id, vpc_cidr=args.cidr, subnet_ids=[s.id for s in private],
            route_table_ids=[private_rt.id], bucket_arns=args.bucket_arns, interface_services=args.interface_endpoints,
            client_cidrs=args.site_cidrs, tags=tags), opts=child)
        self.api_security_group_ids: list[pulumi.Output[str]] = []
        self.resolver_addresses: tuple[str, ...] = ()
        if self.hub is not None:
            self.api_security_group_ids = [hybrid_hub.api_access_group(name, vpc.id, args.site_cidrs, tags, child).id]
            self.resolver_addresses = plan_resolver_addresses(args.cidr, args.az_count)
            hybrid_hub.inbound_resolver(name, vpc.id, [s.id for s in private[:2]], self.resolver_addresses,
                                        args.site_cidrs, tags, child)

        if args.flow_logs:
            self._flow_logs(name, args, vpc, tags)

        self.vpc_id = vpc.id
        self.cidr = args.cidr
        self.private_subnet_ids = pulumi.Output.all(*[s.id for s in private])
        self.public_subnet_ids = pulumi.Output.all(*[s.id for s in public])
        # Zone ID -> private subnet: node groups take the subnets of the zones that sell their instance types.
        self.private_subnets_by_zone = {zone: subnet.id for zone, subnet in zip(args.zone_ids, private, strict=False)}
        self.register_outputs({"vpcId": self.vpc_id, "privateSubnetIds": self.private_subnet_ids,
                               "publicSubnetIds": self.public_subnet_ids})

    def _flow_logs(self, name: str, args: NetworkArgs, vpc: aws.ec2.Vpc, tags: dict[str, str]) -> None:
        if args.account_id is None:
            raise ValueError("NetworkArgs.account_id is required when flow_logs is on")
        child = pulumi.ResourceOptions(parent=self)
        group_name = f"/sahab/vpc/{name}/flow-logs"
        key = customer_key(
            f"{name}-flow-logs-key", description=f"VPC {name}: flow logs", keys=args.keys, tags=tags, opts=child,
            policy=pulumi.Output.from_input(args.account_id).apply(
                lambda a: key_policy([root_statement(a), logs_statement(a, args.region, group_name)])))
        group = aws.cloudwatch.LogGroup(f"{name}-flow-logs", name=group_name, kms_key_id=key.arn,
                                        retention_in_days=args.flow_log_retention_days, tags=tags, opts=child)
        role = aws.iam.Role(f"{name}-flow-logs-role", tags=tags, opts=child, assume_role_policy=json.dumps({
            "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole",
                                                    "Principal": {"Service": "vpc-flow-logs.amazonaws.com"}}]}))
        aws.iam.RolePolicy(f"{name}-flow-logs-write", role=role.id, opts=child,
                           policy=group.arn.apply(lambda arn: json.dumps({"Version": "2012-10-17", "Statement": [{
                               "Effect": "Allow", "Resource": [arn, f"{arn}:*"],
                               "Action": ["logs:CreateLogStream", "logs:PutLogEvents", "logs:DescribeLogStreams"]}]})))
        aws.ec2.FlowLog(f"{name}-flow-log", vpc_id=vpc.id, traffic_type="ALL", log_destination_type="cloud-watch-logs",
                        log_destination=group.arn, iam_role_arn=role.arn, max_aggregation_interval=60, tags=tags,
                        opts=child)
