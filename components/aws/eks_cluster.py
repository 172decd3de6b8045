"""EksCluster: an EKS control plane with envelope-encrypted secrets, a private endpoint, full control-plane
logging, least-privilege IAM roles, IRSA for the add-ons that call AWS, and a KMS key for node volumes."""

from __future__ import annotations

import hashlib
import json
from typing import Annotated, Any

import pulumi
import pulumi_aws as aws
from pydantic import BaseModel, ConfigDict, Field
from sahab.components.aws.kms import autoscaling_statements, customer_key, key_policy, logs_statement, root_statement
from sahab.components.aws.node_group import EksNodeGroup, EksNodeGroupArgs
from sahab.components.fleet_config import KeyPolicy, NodePool

LOG_TYPES = ["api", "audit", "authenticator", "controllerManager", "scheduler"]
MANAGED = "arn:aws:iam::aws:policy/"
# Managed policies, each on the narrowest principal that needs it. The VPC CNI's policy sits on its own
# IRSA role instead of the node role, so ordinary pods on a node cannot use it.
CLUSTER_POLICIES = ("AmazonEKSClusterPolicy",)
NODE_POLICIES = ("AmazonEKSWorkerNodePolicy", "AmazonEC2ContainerRegistryPullOnly")
CNI_POLICY = "AmazonEKS_CNI_Policy"
# EKS access policy that grants cluster-admin (EKS user guide, "Associate access policies with access entries").
CLUSTER_ADMIN_POLICY = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"
# Add-ons nodes need before they can become Ready; the rest run pods and wait for nodes.
NETWORK_ADDONS = ("vpc-cni", "kube-proxy", "eks-pod-identity-agent")
EBS_CSI_POLICY = "service-role/AmazonEBSCSIDriverPolicy"
# Add-on settings (each add-on's configuration schema): the VPC CNI enforces NetworkPolicies through its
# network policy agent, so the teams' default-deny policies hold on EKS.
ADDON_CONFIGURATION = {"vpc-cni": {"enableNetworkPolicy": "true"}}


class EksClusterArgs(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    cluster_name: str
    """Physical EKS cluster name (also names its log group). Required."""
    region: str
    """Region of the provider the cluster is created under (for the log service principal). Required."""
    account_id: Any
    """AWS account id (str or Output), for key policies. Required."""
    subnet_ids: Any
    """Private subnets for the control-plane network interfaces (Input[list[str]]). Required."""
    subnets_by_zone: Any = None
    """The same subnets by zone ID (dict[str, Input[str]]): each node group takes those of its pool's zones.
    Default: none (every node group uses `subnet_ids`)."""
    vpc_id: Any = None
    """The VPC (Input[str]), for the EFA security group of clusters older than 1.33. Default: none."""
    admin_principals: tuple[str, ...] = ()
    """IAM roles/users (ARNs) that get an access entry with the AmazonEKSClusterAdminPolicy on the whole cluster,
    beyond the identity that creates it. Default: none."""
    kubernetes_version: str = "1.34"
    """Kubernetes minor version. Default: 1.34."""
    public_endpoint: bool = False
    """Also expose the API server on the internet. Default: false (private endpoint only)."""
    public_access_cidrs: tuple[str, ...] = ()
    """When the public endpoint is on, the only source ranges allowed to reach it. Default: none given, which
    AWS treats as 0.0.0.0/0; set them whenever `public_endpoint` is true."""
    security_group_ids: tuple[Any, ...] = ()
    """Security groups (Input[str]) added to the control plane's network interfaces, e.g. the one admitting the
    on-prem sites on HTTPS (components.aws.hybrid_hub.api_access_group). Default: none (EKS's cluster group)."""
    keys: KeyPolicy = KeyPolicy()
    """Rotation and deletion window of the secrets and node-volume keys. Default: rotate yearly, 30-day window."""
    log_retention_days: Annotated[int, Field(ge=1)] = 365
    """Days CloudWatch keeps control-plane logs (encrypted with the cluster key). Default: 365."""
    pools: tuple[NodePool, ...] = ()
    """Node pools to create as managed node groups of this cluster. Default: none."""
    addons: tuple[str, ...] = ("vpc-cni", "kube-proxy", "coredns", "aws-ebs-csi-driver")
    """EKS managed add-ons to install; vpc-cni and aws-ebs-csi-driver get IRSA roles. The network add-ons come
    before the node groups (nodes need them to become Ready), the others after (their pods need nodes).
    Default: those four."""
    tags: dict[str, str] = Field(default_factory=dict)
    """Tags on every resource (beyond the provider's default tags). Default: none."""


def assume_role_policy(service: str) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"Service": service}, "Action": ["sts:AssumeRole", "sts:TagSession"]}]})


def irsa_trust_policy(provider_arn: str, issuer_url: str, namespace: str, service_account: str) -> str:
    """Only one Kubernetes service account of this cluster may assume the role."""
    host = issuer_url.removeprefix("https://")
    return json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"Federated": provider_arn}, "Action": "sts:AssumeRoleWithWebIdentity",
        "Condition": {"StringEquals": {f"{host}:sub": f"system:serviceaccount:{namespace}:{service_account}",
                                       f"{host}:aud": "sts.amazonaws.com"}}}]})


def eks_kubeconfig(cluster_name: str, endpoint: str, ca_data: str, region: str) -> str:
    """A kubeconfig that authenticates with `aws eks get-token` (no long-lived credential inside)."""
    return json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": cluster_name,
        "clusters": [{"name": cluster_name, "cluster": {"server": endpoint, "certificate-authority-data": ca_data}}],
        "contexts": [{"name": cluster_name, "context": {"cluster": cluster_name, "user": cluster_name}}],
        "users": [{"name": cluster_name, "user": {"exec": {
            "apiVersion": "client.authentication.k8s.io/v1beta1", "command": "aws",
            "args": ["eks", "get-token", "--cluster-name", cluster_name, "--region", region, "--output", "json"],
            "interactiveMode": "Never"}}}],
    }, indent=2)


class EksCluster(pulumi.ComponentResource):
    kind = "eks"
    cluster_name: pulumi.Output[str]
    endpoint: pulumi.Output[str]
    certificate_authority: pulumi.Output[str]
    kubeconfig: pulumi.Output[str]
    node_role_arn: pulumi.Output[str]
    ebs_kms_key_arn: pulumi.Output[str]
    secrets_kms_key_arn: pulumi.Output[str]
    oidc_provider_arn: pulumi.Output[str]
    oidc_issuer: pulumi.Output[str]

    def __init__(self, name: str, args: EksClusterArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("sahab:aws:EksCluster", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        self.region = args.region
        tags = {**args.tags, "sahab.io/cluster": args.cluster_name}
        log_group_name = f"/aws/eks/{args.cluster_name}/cluster"
        account = pulumi.Output.from_input(args.account_id)
        if args.public_endpoint and not args.public_access_cidrs:
            pulumi.log.warn(f"EKS {args.cluster_name}: public endpoint open to every address; "
                            "set public_access_cidrs to the ranges that need it", resource=self)

        secrets_key = customer_key(
            f"{name}-secrets-key", description=f"EKS {args.cluster_name}: Kubernetes secrets and control-plane logs",
            keys=args.keys, tags=tags, opts=child,
            policy=account.apply(lambda a: key_policy([root_statement(a),
                                                       logs_statement(a, args.region, log_group_name)])))
        ebs_key = customer_key(
            f"{name}-ebs-key", description=f"EKS {args.cluster_name}: node root volumes and persistent volumes",
            keys=args.keys, tags=tags, opts=child,
            policy=account.apply(lambda a: key_policy([root_statement(a), *autoscaling_statements(a)])))

        cluster_role = aws.iam.Role(f"{name}-cluster-role", assume_role_policy=assume_role_policy("eks.amazonaws.com"),
                                    description=f"EKS control plane of {args.cluster_name}", tags=tags, opts=child)
        attachments = [aws.iam.RolePolicyAttachment(f"{name}-cluster-{p}", role=cluster_role.name,
                                                    policy_arn=MANAGED + p, opts=child) for p in CLUSTER_POLICIES]
        # The control plane uses the secrets key for envelope encryption: that key only, these actions only.
        attachments.append(aws.iam.RolePolicy(
            f"{name}-cluster-kms", role=cluster_role.id, opts=child,
            policy=secrets_key.arn.apply(lambda arn: json.dumps({"Version": "2012-10-17", "Statement": [{
                "Effect": "Allow", "Action": ["kms:Encrypt", "kms:Decrypt", "kms:ListGrants", "kms:DescribeKey"],
                "Resource": arn}]}))))
        # Created here rather than by EKS, so it is encrypted and expires.
        log_group = aws.cloudwatch.LogGroup(f"{name}-logs", name=log_group_name, kms_key_id=secrets_key.arn,
                                            retention_in_days=args.log_retention_days, tags=tags, opts=child)

        cluster = aws.eks.Cluster(
            f"{name}-cluster",
            name=args.cluster_name,
            role_arn=cluster_role.arn,
            version=args.kubernetes_version,
            vpc_config=aws.eks.ClusterVpcConfigArgs(
                subnet_ids=args.subnet_ids, endpoint_private_access=True,
                security_group_ids=list(args.security_group_ids) or None,
                endpoint_public_access=args.public_endpoint,
                public_access_cidrs=list(args.public_access_cidrs) if args.public_endpoint and args.public_access_cidrs
                else None),
            encryption_config=aws.eks.ClusterEncryptionConfigArgs(
                provider=aws.eks.ClusterEncryptionConfigProviderArgs(key_arn=secrets_key.arn), resources=["secrets"]),
            enabled_cluster_log_types=LOG_TYPES,
            access_config=aws.eks.ClusterAccessConfigArgs(authentication_mode="API",
                                                          bootstrap_cluster_creator_admin_permissions=True),
            # The add-ons below are EKS-managed; do not also install unmanaged copies.
            bootstrap_self_managed_addons=False,
            upgrade_policy=aws.eks.ClusterUpgradePolicyArgs(support_type="STANDARD"),
            tags=tags,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[log_group, *attachments]),
        )
        issuer = cluster.identities.apply(lambda ids: ids[0].oidcs[0].issuer)
        oidc = aws.iam.OpenIdConnectProvider(f"{name}-oidc", url=issuer, client_id_lists=["sts.amazonaws.com"],
                                             tags=tags, opts=child)

        node_role = aws.iam.Role(f"{name}-node-role", assume_role_policy=assume_role_policy("ec2.amazonaws.com"),
                                 description=f"EKS nodes of {args.cluster_name}", tags=tags, opts=child)
        node_attachments = [aws.iam.RolePolicyAttachment(f"{name}-node-{p}", role=node_role.name,
                                                         policy_arn=MANAGED + p, opts=child) for p in NODE_POLICIES]

        def irsa_role(suffix: str, namespace: str, service_account: str, policies: tuple[str, ...],
                      inline: pulumi.Input[str] | None = None) -> aws.iam.Role:
            role = aws.iam.Role(
                f"{name}-{suffix}-role", description=f"{namespace}/{service_account} in {args.cluster_name}",
                assume_role_policy=pulumi.Output.all(oidc.arn, issuer).apply(
                    lambda v: irsa_trust_policy(v[0], v[1], namespace, service_account)),
                tags=tags, opts=child)
            for p in policies:
                aws.iam.RolePolicyAttachment(f"{name}-{suffix}-{p.rsplit('/', 1)[-1]}", role=role.name,
                                             policy_arn=MANAGED + p, opts=child)
            if inline is not None:
                aws.iam.RolePolicy(f"{name}-{suffix}-inline", role=role.id, policy=inline, opts=child)
            return role

        roles: dict[str, aws.iam.Role] = {}
        if "vpc-cni" in args.addons:
            roles["vpc-cni"] = irsa_role("vpc-cni", "kube-system", "aws-node", (CNI_POLICY,))
        if "aws-ebs-csi-driver" in args.addons:
            roles["aws-ebs-csi-driver"] = irsa_role(
                "ebs-csi", "kube-system", "ebs-csi-controller-sa", (EBS_CSI_POLICY,),
                inline=ebs_key.arn.apply(lambda arn: json.dumps({"Version": "2012-10-17", "Statement": [
                    {"Effect": "Allow", "Action": ["kms:Encrypt", "kms:Decrypt", "kms:ReEncrypt*",
                                                   "kms:GenerateDataKey*", "kms:DescribeKey"], "Resource": arn},
                    {"Effect": "Allow", "Action": ["kms:CreateGrant", "kms:ListGrants", "kms:RevokeGrant"],
                     "Resource": arn, "Condition": {"Bool": {"kms:GrantIsForAWSResource": "true"}}}]})))

        def addon(addon_name: str, depends_on: list[pulumi.Resource]) -> aws.eks.Addon:
            role = roles.get(addon_name)
            settings = ADDON_CONFIGURATION.get(addon_name)
            return aws.eks.Addon(f"{name}-{addon_name}", cluster_name=cluster.name, addon_name=addon_name,
                                 service_account_role_arn=role.arn if role else None,
                                 configuration_values=json.dumps(settings) if settings else None,
                                 resolve_conflicts_on_create="OVERWRITE", resolve_conflicts_on_update="PRESERVE",
                                 tags=tags, opts=pulumi.ResourceOptions(parent=self, depends_on=depends_on))

        self.addons = {a: addon(a, []) for a in args.addons if a in NETWORK_ADDONS}
        # Node groups wait for the node role's policies and the CNI, or nodes never become Ready.
        self.node_dependencies: list[pulumi.Resource] = [*node_attachments, *self.addons.values()]
        self.admins = [self._admin(name, cluster, arn, tags) for arn in args.admin_principals]
        cluster_sg = cluster.vpc_config.apply(lambda c: c.cluster_security_group_id)
        self.node_groups = {pool.name: EksNodeGroup(f"{name}-{pool.name}", EksNodeGroupArgs(
            pool=pool, region=args.region, cluster_name=cluster.name, node_role_arn=node_role.arn,
            subnet_ids=args.subnet_ids, subnets_by_zone=args.subnets_by_zone, ebs_kms_key_arn=ebs_key.arn,
            cluster_security_group_id=cluster_sg, vpc_id=args.vpc_id, kubernetes_version=args.kubernetes_version,
            tags=args.tags),
            opts=pulumi.ResourceOptions(parent=self, depends_on=self.node_dependencies)) for pool in args.pools}
        self.addons |= {a: addon(a, list(self.node_groups.values())) for a in args.addons if a not in NETWORK_ADDONS}

        self.cluster_name = cluster.name
        self.cluster_security_group_id = cluster_sg
        self.endpoint = cluster.endpoint
        self.certificate_authority = cluster.certificate_authority.apply(lambda ca: ca.data)
        self.kubeconfig = pulumi.Output.secret(pulumi.Output.all(cluster.name, cluster.endpoint,
                                                                 self.certificate_authority).apply(
            lambda v: eks_kubeconfig(v[0], v[1], v[2], args.region)))
        self.node_role_arn = node_role.arn
        self.ebs_kms_key_arn = ebs_key.arn
        self.secrets_kms_key_arn = secrets_key.arn
        self.oidc_provider_arn = oidc.arn
        self.oidc_issuer = issuer
        self.register_outputs({
            "clusterName": self.cluster_name, "endpoint": self.endpoint,
            "certificateAuthority": self.certificate_authority, "kubeconfig": self.kubeconfig,
            "nodeRoleArn": self.node_role_arn, "ebsKmsKeyArn": self.ebs_kms_key_arn,
            "secretsKmsKeyArn": self.secrets_kms_key_arn, "oidcProviderArn": self.oidc_provider_arn,
            "oidcIssuer": self.oidc_issuer,
        })

    def _admin(self, name: str, cluster: aws.eks.Cluster, principal_arn: str,
               tags: dict[str, str]) -> aws.eks.AccessPolicyAssociation:
        """An access entry for one admin principal, with cluster-admin on the whole cluster."""
        suffix = hashlib.sha256(principal_arn.encode()).hexdigest()[:8]
        entry = aws.eks.AccessEntry(f"{name}-admin-{suffix}", cluster_name=cluster.name, principal_arn=principal_arn,
                                    type="STANDARD", tags=tags, opts=pulumi.ResourceOptions(parent=self))
        return aws.eks.AccessPolicyAssociation(
            f"{name}-admin-{suffix}-policy", cluster_name=cluster.name, principal_arn=entry.principal_arn,
            policy_arn=CLUSTER_ADMIN_POLICY, access_scope=aws.eks.AccessPolicyAssociationAccessScopeArgs(
                type="cluster"), opts=pulumi.ResourceOptions(parent=self))

    @property
    def storage_encryption_id(self) -> pulumi.Output[str]:
        """What the platform's encrypted StorageClass names: the KMS key ARN for EBS volumes."""
        return self.ebs_kms_key_arn
