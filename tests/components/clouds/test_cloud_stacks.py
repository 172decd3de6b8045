"""prod exports what consumers need; burst adds scale-from-zero pools to prod's clusters; smb has no cloud."""

import pytest

from sahab.project import REDACTED


def test_prod_exports_cluster_endpoints_bucket_names_and_key_arns_with_kubeconfigs_secret(prod):
    clusters, buckets = prod.outputs["clusters"], prod.outputs["buckets"]
    eks = clusters["eks-main"]
    assert eks["clusterName"] == "sahab-eks-main" and eks["endpoint"].startswith("https://")
    assert eks["ebsKmsKeyArn"].startswith("arn:aws:kms:me-central-1:")
    des = prod.one("azure-native:compute:DiskEncryptionSet")
    assert clusters["aks-main"]["diskEncryptionSetId"] == des.id
    clusters_with_kubeconfigs = ("eks-main", "aks-main", "auh-onprem", "dxb-onprem")
    assert prod.outputs["kubeconfigs"] == dict.fromkeys(clusters_with_kubeconfigs, REDACTED)
    assert buckets["datasets"]["kmsKeyArn"].startswith("arn:aws:kms:me-central-1:")
    assert buckets["azdatasets"]["accountName"]


def test_burst_creates_no_cluster_and_reads_prods_through_a_stack_reference(burst, prod):
    assert not burst.of("aws:eks/cluster:Cluster") and not burst.of("azure-native:containerservice:ManagedCluster")
    ref = burst.one("pulumi:pulumi:StackReference")
    assert ref.inputs["name"] == "organization/sahab/prod"
    prod_cluster = prod.one("aws:eks/cluster:Cluster")
    for group in burst.of("aws:eks/nodeGroup:NodeGroup"):
        assert group.inputs["clusterName"] == prod_cluster.outputs["name"]
    (pool,) = burst.of("azure-native:containerservice:AgentPool")
    assert pool.inputs["resourceName"] == prod.one("azure-native:containerservice:ManagedCluster").outputs["name"]


def test_burst_gpu_pools_scale_from_zero(burst):
    groups = burst.of("aws:eks/nodeGroup:NodeGroup")
    assert len(groups) == 2
    for group in groups:
        assert group.inputs["scalingConfig"]["minSize"] == 0 and group.inputs["scalingConfig"]["maxSize"] > 0
        assert {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"} in group.inputs["taints"]
    (pool,) = burst.of("azure-native:containerservice:AgentPool")
    assert pool.inputs["enableAutoScaling"] is True and pool.inputs["minCount"] == 0
    assert pool.inputs["scaleSetPriority"] == "Spot"


def test_burst_launch_templates_encrypt_with_prods_volume_key(burst, prod):
    prod_key = prod.outputs["clusters"]["eks-main"]["ebsKmsKeyArn"]
    for template in burst.of("aws:ec2/launchTemplate:LaunchTemplate"):
        assert [m["ebs"]["kmsKeyId"] for m in template.inputs["blockDeviceMappings"]] == [prod_key]


@pytest.mark.parametrize("prefix", ["aws:", "azure-native:", "sahab:aws:", "sahab:azure:"])
def test_smb_has_no_cloud_part(smb, prefix):
    assert not [r for r in smb.resources if r.type.startswith(prefix)]
    assert "clusters" not in smb.outputs and "buckets" not in smb.outputs
