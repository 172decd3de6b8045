"""EKS: Kubernetes secrets envelope-encrypted with a KMS key, a private API endpoint, audit logs on."""

from __future__ import annotations

from ..core import (
    MISSING,
    UNKNOWN,
    Context,
    Enforcement,
    Finding,
    ResourceView,
    Severity,
    Unknown,
    describe,
    iso27001,
    items,
    lookup,
    pdpl,
    rule,
)

CLUSTER = ("aws:eks/cluster:Cluster",)


@rule(id="SAHAB-AWS-015", name="aws-eks-cluster-secrets-encrypted",
      title="EKS clusters envelope-encrypt Kubernetes secrets",
      description="An EKS cluster encrypts Kubernetes secrets in etcd with a customer-managed KMS key.",
      remediation="Set `encryption_config={\"resources\": [\"secrets\"], \"provider\": {\"key_arn\": key.arn}}` "
                  "on `aws.eks.Cluster`.",
      severity=Severity.HIGH, frameworks=(pdpl("Art. 20 (security of processing)"), iso27001("A.8.24")),
      enforcement=Enforcement.MANDATORY, residency=False, unknown=Unknown.FAILS_AFTER_UPDATE, types=CLUSTER)
def aws_eks_secrets(view: ResourceView, ctx: Context):
    config = lookup(view.props, "encryptionConfig")
    if config is UNKNOWN:
        yield from ctx.still_unknown("`encryptionConfig`")
        return
    if config is MISSING:
        yield Finding("no `encryptionConfig`: secrets are stored without envelope encryption")
        return
    resources = items(config, "resources")
    if UNKNOWN in resources:
        yield from ctx.still_unknown("`encryptionConfig.resources`")
    elif "secrets" not in resources:
        yield Finding(f"`encryptionConfig.resources` is {resources!r}, without \"secrets\"")
    key = lookup(config, "provider", "keyArn")
    if key is UNKNOWN:
        yield from ctx.still_unknown("`encryptionConfig.provider.keyArn`")
    elif key is MISSING:
        yield Finding("`encryptionConfig.provider.keyArn` is not set")


@rule(id="SAHAB-AWS-022", name="aws-eks-cluster-private-endpoint",
      title="EKS API servers are private",
      description="The EKS API endpoint is reachable only from inside the VPC.",
      remediation="Set `vpc_config.endpoint_public_access=False` and `endpoint_private_access=True`.",
      severity=Severity.MEDIUM, frameworks=(iso27001("A.8.20"),),
      enforcement=Enforcement.ADVISORY, residency=False, unknown=Unknown.IGNORED, types=CLUSTER)
def aws_eks_private(view: ResourceView, ctx: Context):
    public = lookup(view.props, "vpcConfig", "endpointPublicAccess")
    if public is UNKNOWN or public is False:
        return
    yield Finding("`vpcConfig.endpointPublicAccess` is " + ("not set (AWS: public)" if public is MISSING
                                                            else describe(public)))


@rule(id="SAHAB-AWS-023", name="aws-eks-cluster-audit-logging",
      title="EKS control planes log audit events",
      description="The EKS control plane sends its audit log to CloudWatch Logs in the same region.",
      remediation="Add \"audit\" (and \"authenticator\") to `enabled_cluster_log_types`.",
      severity=Severity.LOW, frameworks=(iso27001("A.8.15"),),
      enforcement=Enforcement.ADVISORY, residency=False, unknown=Unknown.IGNORED, types=CLUSTER)
def aws_eks_logging(view: ResourceView, ctx: Context):
    types = items(view.props, "enabledClusterLogTypes")
    if UNKNOWN in types or "audit" in types:
        return
    yield Finding(f"`enabledClusterLogTypes` is {types!r}, without \"audit\"")


@rule(id="SAHAB-AWS-025", name="aws-ecr-repository-kms-encrypted",
      title="ECR repositories are encrypted with KMS",
      description="Container images are encrypted with a KMS key rather than the S3-managed default.",
      remediation="Set `encryption_configurations=[{\"encryption_type\": \"KMS\", \"kms_key\": key.arn}]`.",
      severity=Severity.LOW, frameworks=(iso27001("A.8.24"),),
      enforcement=Enforcement.ADVISORY, residency=False, unknown=Unknown.IGNORED,
      types=("aws:ecr/repository:Repository",))
def aws_ecr_kms(view: ResourceView, ctx: Context):
    configs = items(view.props, "encryptionConfigurations")
    kinds = [lookup(c, "encryptionType") for c in configs]
    if UNKNOWN in configs or UNKNOWN in kinds or "KMS" in kinds or "KMS_DSSE" in kinds:
        return
    yield Finding("`encryptionConfigurations[].encryptionType` is " + (describe(kinds[0]) if kinds else
                                                                        "not set (AWS: AES256)"))




OPEN_TO_ALL = ("0.0.0.0/0", "::/0")


@rule(id="SAHAB-AWS-027", name="aws-eks-cluster-public-endpoint-restricted",
      title="A public EKS API endpoint is limited to known networks",
      description="An EKS API endpoint that is public (AWS's default) must list the CIDRs allowed to reach it; a "
                  "public endpoint with no CIDRs, or with 0.0.0.0/0, opens the cluster API to the internet.",
      remediation="Set `vpc_config.endpoint_public_access=False` (and `endpoint_private_access=True`), or list "
                  "your operators' networks in `vpc_config.public_access_cidrs`.",
      severity=Severity.HIGH, frameworks=(pdpl("Art. 20 (security of processing)"), iso27001("A.8.20")),
      enforcement=Enforcement.MANDATORY, residency=False, unknown=Unknown.FAILS_AFTER_UPDATE, types=CLUSTER)
def aws_eks_public_endpoint(view: ResourceView, ctx: Context):
    public = lookup(view.props, "vpcConfig", "endpointPublicAccess")
    if public is UNKNOWN:
        yield from ctx.still_unknown("`vpcConfig.endpointPublicAccess`")
        return
    if public is False or (isinstance(public, str) and public.lower() == "false"):
        return
    cidrs = items(view.props, "vpcConfig", "publicAccessCidrs")
    if UNKNOWN in cidrs:
        yield from ctx.still_unknown("`vpcConfig.publicAccessCidrs`")
        return
    if not cidrs:
        yield Finding("the API endpoint is public (`vpcConfig.endpointPublicAccess` is "
                      f"{describe(public) if public is not MISSING else 'not set, AWS: public'}) with no "
                      "`publicAccessCidrs`: AWS opens it to 0.0.0.0/0")
    elif any(c in OPEN_TO_ALL for c in cidrs):
        yield Finding(f"the public API endpoint is open to the internet (`publicAccessCidrs` {cidrs!r})")
