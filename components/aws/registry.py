"""EcrRegistry: the account's private ECR registry in its (UAE) Region as the EKS clusters' only image source.

- A pull-through cache rule per upstream ECR can cache (registry.k8s.io -> `k8s/`, quay.io -> `quay/`, and
  docker.io -> `docker-hub/`, ghcr.io -> `ghcr/` when credentials are configured: ECR caches those two only with
  a login, kept in a Secrets Manager secret named `ecr-pullthroughcache/...`, encrypted with the registry's key).
  Repositories the cache creates get the registry's KMS key from a repository creation template per prefix.
- A repository (immutable tags, scanned on push, KMS-encrypted) for everything that is seeded: charts
  (`charts/<chart>`), images from upstreams ECR cannot cache (nvcr.io) or may not without credentials, and
  Sahab's own training image.

The caller passes the Region's AWS provider in `opts`.
"""

from __future__ import annotations

import json
from typing import Any

import pulumi
import pulumi_aws as aws
from pydantic import Field
from sahab.components.artifacts import UPSTREAMS, Upstream
from sahab.components.aws.kms import customer_key, key_policy, root_statement
from sahab.components.fleet_config import KeyPolicy
from sahab.components.kubernetes.common import Args


class EcrRegistryArgs(Args):
    account_id: str
    """The registry's account (from its host). Required."""
    region: str
    """Its Region (from its host), one of the residency list. Required."""
    credentials: dict[str, Any] = Field(default_factory=dict)
    """Upstream host -> `{"username", "accessToken"}` JSON (a Pulumi secret) for the upstreams that need a login.
    Default: none (those upstreams are seeded)."""
    seeded: tuple[str, ...] = ()
    """Repository paths to create for seeded artifacts (components.registry_plan). Default: none."""
    node_role_arns: dict[str, Any] = Field(default_factory=dict)
    """Cluster name -> its node role ARN (Input[str]): those nodes may pull a cached image the first time (import
    it from the upstream, creating its repository) under the cache prefixes only. Default: none."""
    keys: KeyPolicy = KeyPolicy()
    """Rotation and deletion window of the registry's KMS key. Default: the fleet's defaults."""
    name_prefix: str = "sahab"
    """Prefix of the credential secrets' names. Default: sahab."""
    tags: dict[str, str] = Field(default_factory=dict)
    """Tags on every resource. Default: none."""


def cached_upstreams(credentials: dict[str, Any]) -> list[Upstream]:
    """The upstreams the registry pulls through: ECR supports them, and any login they need is configured."""
    return [u for u in UPSTREAMS.values()
            if u.ecr_url is not None and (not u.needs_credentials or u.host in credentials)]


def ecr_key_policy(account_id: str) -> str:
    """The account administers the key and IAM decides who uses it: ECR encrypts a repository through a grant it
    creates for the principal that creates the repository (the operator, or the creation template's role)."""
    return key_policy([root_statement(account_id)])


def creation_trust_policy(account_id: str) -> str:
    """Only ECR, acting for this account, assumes the repository creation role."""
    return json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"Service": "ecr.amazonaws.com"}, "Action": "sts:AssumeRole",
        "Condition": {"StringEquals": {"aws:SourceAccount": account_id}}}]})


def creation_permissions(account_id: str, region: str, prefixes: list[str], key_arn: str) -> str:
    """What ECR needs to create a cache's repositories with the registry's key and tags: under the cache prefixes
    only, and the one key."""
    repositories = [f"arn:aws:ecr:{region}:{account_id}:repository/{p}/*" for p in prefixes]
    return json.dumps({"Version": "2012-10-17", "Statement": [
        {"Sid": "CreateCacheRepositories", "Effect": "Allow",
         "Action": ["ecr:CreateRepository", "ecr:ReplicateImage", "ecr:TagResource"], "Resource": repositories},
        {"Sid": "EncryptWithRegistryKey", "Effect": "Allow",
         "Action": ["kms:CreateGrant", "kms:RetireGrant", "kms:DescribeKey"], "Resource": key_arn},
    ]})


def first_pull_permissions(account_id: str, region: str, prefixes: list[str]) -> str:
    """A node's first pull of a cached image imports it and creates its repository; only under the cache prefixes
    (reading images comes from the node role's AmazonEC2ContainerRegistryPullOnly)."""
    return json.dumps({"Version": "2012-10-17", "Statement": [{
        "Sid": "FirstPullThroughCache", "Effect": "Allow",
        "Action": ["ecr:BatchImportUpstreamImage", "ecr:CreateRepository"],
        "Resource": [f"arn:aws:ecr:{region}:{account_id}:repository/{p}/*" for p in prefixes]}]})


class EcrRegistry(pulumi.ComponentResource):
    """Pull-through cache rules, their credential secrets and the seeded repositories of one ECR registry."""

    def __init__(self, name: str, args: EcrRegistryArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("sahab:aws:EcrRegistry", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        key = customer_key(f"{name}-key", description="ECR registry: cached and seeded images, upstream logins",
                           keys=args.keys, policy=ecr_key_policy(args.account_id), tags=args.tags,
                           opts=child)
        encryption = [aws.ecr.RepositoryEncryptionConfigurationArgs(encryption_type="KMS", kms_key=key.arn)]

        cached = cached_upstreams(args.credentials)
        # ECR creates the cache's repositories through this role: a template with a KMS key or tags needs one.
        creator = aws.iam.Role(f"{name}-creation-role", description="ECR: creates pull-through cache repositories",
                               assume_role_policy=creation_trust_policy(args.account_id), tags=args.tags, opts=child)
        creator_policy = aws.iam.RolePolicy(
            f"{name}-creation-policy", role=creator.id, opts=child,
            policy=key.arn.apply(lambda arn: creation_permissions(args.account_id, args.region,
                                                                 [u.alias for u in cached], arn)))
        self.rules: dict[str, aws.ecr.PullThroughCacheRule] = {}
        for upstream in cached:
            credential_arn = None
            if upstream.needs_credentials:
                secret = aws.secretsmanager.Secret(
                    f"{name}-{upstream.alias}-login", name=f"ecr-pullthroughcache/{args.name_prefix}-{upstream.alias}",
                    # Under Secrets Manager's AWS-managed key: ECR's pull-through role can read no other (AWS's ECR
                    # guide, "Storing your upstream repository credentials"). The policy pack knows this exception.
                    description=f"ECR pull-through cache login to {upstream.host}",
                    recovery_window_in_days=30, tags=args.tags, opts=child)
                aws.secretsmanager.SecretVersion(
                    f"{name}-{upstream.alias}-login-value", secret_id=secret.id,
                    secret_string=pulumi.Output.secret(args.credentials[upstream.host]), opts=child)
                credential_arn = secret.arn
            template = aws.ecr.RepositoryCreationTemplate(
                f"{name}-{upstream.alias}-template", prefix=upstream.alias, applied_fors=["PULL_THROUGH_CACHE"],
                description=f"Repositories the {upstream.host} cache creates: KMS-encrypted",
                encryption_configurations=[{"encryption_type": "KMS", "kms_key": key.arn}],
                # A cache keeps its tags in step with the upstream, so they stay mutable.
                image_tag_mutability="MUTABLE", resource_tags=args.tags, custom_role_arn=creator.arn,
                opts=pulumi.ResourceOptions(parent=self, depends_on=[creator_policy]))
            self.rules[upstream.host] = aws.ecr.PullThroughCacheRule(
                f"{name}-{upstream.alias}-cache", ecr_repository_prefix=upstream.alias,
                upstream_registry_url=upstream.ecr_url, credential_arn=credential_arn,
                opts=pulumi.ResourceOptions(parent=self, depends_on=[template]))

        if cached:
            pull = first_pull_permissions(args.account_id, args.region, [u.alias for u in cached])
            for cluster, role_arn in args.node_role_arns.items():
                aws.iam.RolePolicy(f"{name}-{cluster}-first-pull", policy=pull, opts=child,
                                   role=pulumi.Output.from_input(role_arn).apply(lambda arn: arn.rsplit("/", 1)[-1]))

        self.repositories = {path: aws.ecr.Repository(
            f"{name}-{path.replace('/', '-').replace('_', '-').replace('.', '-')}", name=path,
            image_tag_mutability="IMMUTABLE", encryption_configurations=encryption,
            image_scanning_configuration=aws.ecr.RepositoryImageScanningConfigurationArgs(scan_on_push=True),
            tags=args.tags, opts=child) for path in args.seeded}
        self.key_arn = key.arn
        self.register_outputs({"keyArn": self.key_arn, "cachedUpstreams": sorted(self.rules),
                               "seededRepositories": sorted(self.repositories)})
