"""Components built directly under the engine's mocks: secure defaults, explicit opt-outs, clear refusals."""

import json

import pulumi
import pytest
from pydantic import ValidationError
from sahab.components.aws.bucket import S3Bucket, S3BucketArgs
from sahab.components.aws.eks_cluster import EksCluster, EksClusterArgs
from sahab.components.aws.node_group import EksNodeGroup, EksNodeGroupArgs
from sahab.components.azure.node_pool import AksNodePool, AksNodePoolArgs
from sahab.components.azure.storage_account import AzureStorage, AzureStorageArgs
from sahab.components.fleet import Fleet
from sahab.components.fleet_config import Bucket, NodePool, parse_fleet

from sahab.errors import ConfigError
from sahab.project import REDACTED
from tests.helpers import record

KEY_ARN = "arn:aws:kms:me-central-1:111122223333:key/0000"


def node_group(pool: NodePool, region: str = "me-central-1") -> EksNodeGroup:
    return EksNodeGroup("ng", EksNodeGroupArgs(pool=pool, region=region, cluster_name="c", node_role_arn="arn:role",
                                               subnet_ids=["subnet-1"], ebs_kms_key_arn=KEY_ARN))


def test_node_group_for_an_accelerator_the_region_does_not_sell_is_refused_before_any_resource():
    registered = []

    def build():
        registered.append(node_group(NodePool(name="big", cluster="c", accelerator="h100",
                                              instance_type="p5.48xlarge")))

    with pytest.raises(ConfigError, match="'h100' is not offered in me-central-1"):
        record(build)
    assert registered == []


def test_aks_pool_for_a_size_the_location_does_not_sell_is_refused(azure_offerings):
    azure_offerings("uaecentral", {"Standard_NC24ads_A100_v4": {
        "family": "standardNCADSA100v4Family", "vcpus": 24, "zones": [],
        "restrictions": [{"type": "Location", "reason": "NotAvailableForSubscription", "zones": [],
                          "locations": ["uaecentral"]}]}})
    with pytest.raises(ConfigError, match="'a100' is not offered in uaecentral"):
        record(lambda: AksNodePool("p", AksNodePoolArgs(
            pool=NodePool(name="a100", cluster="c", accelerator="a100", instance_type="Standard_NC24ads_A100_v4"),
            location="uaecentral", resource_group_name="rg", cluster_name="aks", subnet_id="/subnets/x")))


def test_node_group_defaults_encrypt_the_root_volume_and_require_imdsv2():
    plan = record(lambda: node_group(NodePool(name="a10g", cluster="c", accelerator="a10g", spot=True,
                                              min_size=0, max_size=3)))
    template = plan.one("aws:ec2/launchTemplate:LaunchTemplate").inputs
    assert template["blockDeviceMappings"][0]["ebs"] == {
        "encrypted": "true", "kmsKeyId": KEY_ARN, "volumeSize": 200, "volumeType": "gp3",
        "deleteOnTermination": "true"}
    assert template["metadataOptions"]["httpTokens"] == "required"
    group = plan.one("aws:eks/nodeGroup:NodeGroup").inputs
    assert group["capacityType"] == "SPOT" and group["instanceTypes"] == ["g5.2xlarge"]
    assert group["scalingConfig"] == {"minSize": 0, "maxSize": 3, "desiredSize": 0}


def test_component_args_reject_unknown_settings_and_cannot_be_changed():
    args = EksNodeGroupArgs(pool=NodePool(name="pp", cluster="c"), region="me-central-1", cluster_name="c",
                            node_role_arn="r", subnet_ids=[], ebs_kms_key_arn=KEY_ARN)
    with pytest.raises(ValidationError, match="extra"):
        EksNodeGroupArgs(**args.model_dump(), encrypted=False)
    with pytest.raises(ValidationError, match="frozen"):
        args.imds_hop_limit = 2


def eks(**overrides) -> EksCluster:
    return EksCluster("eks", EksClusterArgs(**{"cluster_name": "sahab-eks", "region": "me-central-1",
                                               "account_id": "111122223333", "subnet_ids": ["subnet-1"],
                                               **overrides}))


def test_eks_endpoint_is_private_unless_made_public_explicitly_and_then_only_for_given_ranges():
    private = record(eks).one("aws:eks/cluster:Cluster").inputs["vpcConfig"]
    assert private["endpointPublicAccess"] is False and "publicAccessCidrs" not in private
    public = record(lambda: eks(public_endpoint=True, public_access_cidrs=("203.0.113.0/24",)))
    vpc = public.one("aws:eks/cluster:Cluster").inputs["vpcConfig"]
    assert vpc["endpointPublicAccess"] is True and vpc["publicAccessCidrs"] == ["203.0.113.0/24"]


def test_eks_cluster_role_may_use_only_its_own_secrets_key():
    plan = record(eks)
    cluster = plan.one("aws:eks/cluster:Cluster").inputs
    key_arn = cluster["encryptionConfig"]["provider"]["keyArn"]
    (inline,) = [p for p in plan.of("aws:iam/rolePolicy:RolePolicy") if "cluster-kms" in p.name]
    (statement,) = json.loads(inline.inputs["policy"])["Statement"]
    assert statement["Resource"] == key_arn and "kms:*" not in statement["Action"]


def s3(bucket: Bucket, **kw) -> S3Bucket:
    return S3Bucket("b", S3BucketArgs(bucket=bucket, **kw))


def test_turning_versioning_off_is_explicit_and_suspends_it():
    on = record(lambda: s3(Bucket(name="data", cloud="aws")))
    assert on.one("aws:s3/bucketVersioning:BucketVersioning").inputs["versioningConfiguration"]["status"] == "Enabled"
    off = record(lambda: s3(Bucket(name="data", cloud="aws", versioning=False)))
    assert off.one("aws:s3/bucketVersioning:BucketVersioning").inputs["versioningConfiguration"]["status"] == \
        "Suspended"
    rules = off.one("aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration").inputs["rules"]
    assert [r["id"] for r in rules] == ["abort-incomplete-uploads"]
    # Everything else stays on.
    assert off.one("aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock").inputs["blockPublicPolicy"] is True


@pytest.mark.parametrize("target, message", [("eu-central-1", "outside the residency list"),
                                             ("uaenorth", "not an AWS Region")])
def test_replication_outside_the_allowed_regions_is_refused(target, message):
    with pytest.raises(ConfigError, match=message):
        record(lambda: s3(Bucket(name="data", cloud="aws", replicate_to=target),
                          allowed_regions=("me-central-1", "uaenorth")))


def test_replication_to_an_allowed_region_keeps_the_replica_encrypted_in_that_region():
    plan = record(lambda: s3(Bucket(name="data", cloud="aws", replicate_to="me-south-1"),
                             allowed_regions=("me-central-1", "me-south-1")))
    source, replica = sorted(plan.of("aws:s3/bucket:Bucket"), key=lambda b: "replica" in b.name)
    assert replica.inputs["region"] == "me-south-1" and "region" not in source.inputs
    (rule,) = plan.one("aws:s3/bucketReplicationConfig:BucketReplicationConfig").inputs["rules"]
    assert rule["destination"]["bucket"] == replica.outputs["arn"]
    replica_key = rule["destination"]["encryptionConfiguration"]["replicaKmsKeyId"]
    assert replica_key.startswith("arn:aws:kms:me-south-1:")
    assert len(plan.of("aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock")) == 2


def azure_storage(bucket: Bucket, **kw) -> AzureStorage:
    return AzureStorage("st", AzureStorageArgs(**{
        "bucket": bucket, "account_name": "sahabdata0001", "location": "uaenorth", "resource_group_name": "rg",
        "vault_name": "kv", "vault_uri": "https://kv.vault.azure.net/", **kw}))


def test_geo_redundancy_whose_pair_is_not_allowed_is_refused():
    with pytest.raises(ConfigError, match="would replicate to uaecentral"):
        record(lambda: azure_storage(Bucket(name="dd", cloud="azure", geo_redundant=True),
                                     allowed_locations=("uaenorth",)))
    with pytest.raises(ConfigError, match="outside the residency list"):
        record(lambda: azure_storage(Bucket(name="dd", cloud="azure"), location="westeurope"))


def test_storage_account_uses_its_key_only_after_its_identity_may_unwrap_with_it():
    plan = record(lambda: azure_storage(Bucket(name="dd", cloud="azure")))
    account = plan.one("azure-native:storage:StorageAccount")
    grant = plan.one("azure-native:authorization:RoleAssignment")
    key = plan.one("azure-native:keyvault:Key")
    assert grant.inputs["scope"] == key.id
    assert grant.urn in account.dependencies
    assert account.inputs["sku"]["name"] == "Standard_ZRS"
    assert account.inputs["encryption"]["keyVaultProperties"]["keyName"] == key.outputs["name"]


FLEET = {
    "environment": "prod",
    "clouds": {"aws": {}, "azure": {}},
    "clusters": [{"name": "eks-a", "kind": "eks"}, {"name": "aks-a", "kind": "aks"}],
    "node_pools": [{"name": "gpu", "cluster": "eks-a", "accelerator": "a10g"},
                   {"name": "agpu", "cluster": "aks-a", "accelerator": "t4"}],
}


def test_fleet_exposes_every_cloud_cluster_with_a_secret_kubeconfig_and_its_storage_key():
    built = {}

    def build():
        fleet = built["fleet"] = Fleet("sahab", parse_fleet(FLEET))
        for name, cluster in fleet.clusters.items():
            pulumi.export(f"{name}-kubeconfig", cluster.kubeconfig)
            pulumi.export(f"{name}-storage-key", cluster.storage_encryption_id)

    plan = record(build)
    clusters = built["fleet"].clusters
    assert {n: c.kind for n, c in clusters.items()} == {"eks-a": "eks", "aks-a": "aks"}
    assert plan.outputs["eks-a-kubeconfig"] == plan.outputs["aks-a-kubeconfig"] == REDACTED
    eks_config = json.loads(plan.revealed_outputs["eks-a-kubeconfig"])
    assert eks_config["users"][0]["user"]["exec"]["args"][:2] == ["eks", "get-token"]
    assert "kind: Config" in plan.revealed_outputs["aks-a-kubeconfig"]
    assert plan.outputs["eks-a-storage-key"] in {k.outputs["arn"] for k in plan.of("aws:kms/key:Key")}
    assert plan.outputs["aks-a-storage-key"] == plan.one("azure-native:compute:DiskEncryptionSet").id


def test_uaecentral_is_selectable_per_cloud_and_per_cluster():
    config = parse_fleet({
        "environment": "prod",
        "clouds": {"azure": {"location": "uaecentral"}},
        "clusters": [{"name": "aks-c", "kind": "aks", "region_access_granted": True},
                     {"name": "aks-n", "kind": "aks", "location": "uaenorth"}],
        "node_pools": [{"name": "cpu-c", "cluster": "aks-c"}, {"name": "t4-n", "cluster": "aks-n",
                                                              "accelerator": "t4"}],
        "storage": {"buckets": [{"name": "ckpt", "cloud": "azure", "purpose": "checkpoints",
                                 "geo_redundant": True}]},
    })
    plan = record(lambda: Fleet("sahab", config))
    groups = {g.inputs["location"] for g in plan.of("azure-native:resources:ResourceGroup")}
    assert groups == {"uaecentral", "uaenorth"}
    clusters = {c.inputs["resourceName"]: c.inputs["location"]
                for c in plan.of("azure-native:containerservice:ManagedCluster")}
    assert clusters == {"sahab-aks-c": "uaecentral", "sahab-aks-n": "uaenorth"}
    (account,) = plan.of("azure-native:storage:StorageAccount")
    assert account.inputs["location"] == "uaecentral"
    assert account.inputs["sku"]["name"] == "Standard_GRS"  # pairs with uaenorth; uaecentral has no zones


def test_aws_provider_refuses_other_accounts_when_the_fleet_names_one():
    config = parse_fleet({"environment": "dev", "clouds": {"aws": {"account_id": "444455556666", "az_count": 2}},
                          "clusters": [{"name": "eks-d", "kind": "eks"}]})
    plan = record(lambda: Fleet("sahab", config))
    provider = plan.one("pulumi:providers:aws").inputs
    assert provider["region"] == "me-central-1"
    assert json.loads(provider["allowedAccountIds"]) == ["444455556666"]
    key = next(k for k in plan.of("aws:kms/key:Key") if "ebs" in k.name)
    assert "arn:aws:iam::444455556666:root" in key.inputs["policy"]
    assert len(plan.of("aws:ec2/subnet:Subnet")) == 4  # two zones, a private and a public subnet each
