"""The AWS half of the real prod stack, read from its plan as `sahab plan --stack prod` prints it."""

import json

import pytest
from sahab.components.accelerators import LABEL_ACCELERATOR

REGION = "me-central-1"
EKS = "aws:eks/cluster:Cluster"
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
KEY = "aws:kms/key:Key"


def key_arns(plan):
    return {k.outputs["arn"] for k in plan.of(KEY)}


def test_every_aws_resource_is_in_me_central_1_under_an_explicit_provider(prod):
    aws = [r for r in prod.resources if r.type.startswith("aws:")]
    assert len(aws) > 50
    assert {prod.region_of(r) for r in aws} == {REGION}
    providers = {r.provider for r in aws}
    assert all(not p.rsplit("::", 1)[-1].startswith("default") for p in providers), providers


def test_vpc_has_private_node_subnets_in_every_zone_and_in_region_endpoints_for_s3_and_ecr(prod):
    vpc = prod.one("aws:ec2/vpc:Vpc")
    subnets = [s for s in prod.of("aws:ec2/subnet:Subnet") if s.inputs["vpcId"] == vpc.id]
    private = [s for s in subnets if "kubernetes.io/role/internal-elb" in s.inputs["tags"]]
    # Placed by zone ID (names map to different zones per account): every zone of me-central-1.
    assert sorted(s.inputs["availabilityZoneId"] for s in private) == ["mec1-az1", "mec1-az2", "mec1-az3"]
    assert not any(s.inputs["mapPublicIpOnLaunch"] for s in subnets)
    endpoints = {e.inputs["serviceName"]: e.inputs for e in prod.of("aws:ec2/vpcEndpoint:VpcEndpoint")}
    assert endpoints[f"com.amazonaws.{REGION}.s3"]["vpcEndpointType"] == "Gateway"
    for service in ("ecr.api", "ecr.dkr"):
        ep = endpoints[f"com.amazonaws.{REGION}.{service}"]
        assert ep["vpcEndpointType"] == "Interface" and ep["privateDnsEnabled"] is True
        assert set(ep["subnetIds"]) == {s.id for s in private}
    node_subnets = {sid for ng in prod.of(NODE_GROUP) for sid in ng.inputs["subnetIds"]}
    assert node_subnets == {s.id for s in private}


def test_vpc_flow_logs_record_all_traffic_into_an_encrypted_log_group(prod):
    vpc = prod.one("aws:ec2/vpc:Vpc")
    flow = prod.one("aws:ec2/flowLog:FlowLog").inputs
    assert flow["vpcId"] == vpc.id and flow["trafficType"] == "ALL"
    group = prod.by_id("aws:cloudwatch/logGroup:LogGroup", flow["logDestination"]).inputs
    assert group["kmsKeyId"] in key_arns(prod)
    default_sg = prod.one("aws:ec2/defaultSecurityGroup:DefaultSecurityGroup").inputs
    assert default_sg["vpcId"] == vpc.id and not default_sg.get("ingress") and not default_sg.get("egress")


def test_eks_encrypts_secrets_with_a_customer_key_and_keeps_its_endpoint_private(prod):
    cluster = prod.one(EKS).inputs
    (encryption,) = cluster["encryptionConfig"] if isinstance(cluster["encryptionConfig"], list) \
        else [cluster["encryptionConfig"]]
    assert encryption["resources"] == ["secrets"]
    assert encryption["provider"]["keyArn"] in key_arns(prod)
    assert cluster["vpcConfig"]["endpointPrivateAccess"] is True
    assert cluster["vpcConfig"]["endpointPublicAccess"] is False
    assert set(cluster["enabledClusterLogTypes"]) == {"api", "audit", "authenticator", "controllerManager",
                                                      "scheduler"}
    assert cluster["accessConfig"]["authenticationMode"] == "API"


def test_control_plane_logs_are_kept_encrypted_in_the_clusters_log_group(prod):
    cluster = prod.one(EKS)
    groups = {g.inputs["name"]: g.inputs for g in prod.of("aws:cloudwatch/logGroup:LogGroup")}
    group = groups[f"/aws/eks/{cluster.inputs['name']}/cluster"]
    assert group["kmsKeyId"] in key_arns(prod) and group["retentionInDays"] >= 90


def test_iam_roles_carry_only_the_managed_policies_they_need(prod):
    roles = {r.outputs["name"]: r for r in prod.of("aws:iam/role:Role")}
    attached: dict[str, set[str]] = {}
    for a in prod.of("aws:iam/rolePolicyAttachment:RolePolicyAttachment"):
        attached.setdefault(a.inputs["role"], set()).add(a.inputs["policyArn"].rsplit("/", 1)[-1])
    cluster_role = next(n for n, r in roles.items() if "eks.amazonaws.com" in r.inputs["assumeRolePolicy"])
    node_role = next(n for n, r in roles.items() if "ec2.amazonaws.com" in r.inputs["assumeRolePolicy"])
    assert attached[cluster_role] == {"AmazonEKSClusterPolicy"}
    assert attached[node_role] == {"AmazonEKSWorkerNodePolicy", "AmazonEC2ContainerRegistryPullOnly"}
    # The CNI policy sits on an IRSA role only the aws-node service account can assume.
    cni_role = next(n for n, pols in attached.items() if "AmazonEKS_CNI_Policy" in pols)
    trust = json.loads(roles[cni_role].inputs["assumeRolePolicy"])["Statement"][0]
    assert trust["Action"] == "sts:AssumeRoleWithWebIdentity"
    assert "system:serviceaccount:kube-system:aws-node" in trust["Condition"]["StringEquals"].values()


@pytest.mark.parametrize("pool, gpu", [("eks-l40s", True), ("eks-cpu", False)])
def test_node_groups_are_tainted_for_gpus_only_and_labelled_with_their_accelerator(prod, pool, gpu):
    group = next(g.inputs for g in prod.of(NODE_GROUP) if g.inputs["nodeGroupNamePrefix"] == f"{pool}-")
    taints = group.get("taints") or []
    if gpu:
        assert {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"} in taints
        assert group["labels"][LABEL_ACCELERATOR] == "l40s"
        assert group["amiType"] == "AL2023_x86_64_NVIDIA"
    else:
        assert taints == []
        assert group["labels"][LABEL_ACCELERATOR] == "cpu"


def test_every_node_group_boots_from_an_encrypted_imdsv2_only_launch_template(prod):
    templates = {t.id: t.inputs for t in prod.of("aws:ec2/launchTemplate:LaunchTemplate")}
    groups = prod.of(NODE_GROUP)
    assert len(groups) == 2
    for group in groups:
        template = templates[group.inputs["launchTemplate"]["id"]]
        for mapping in template["blockDeviceMappings"]:
            assert mapping["ebs"]["encrypted"] == "true"
            assert mapping["ebs"]["kmsKeyId"] in key_arns(prod)
        assert template["metadataOptions"]["httpTokens"] == "required"
        assert template["metadataOptions"]["httpPutResponseHopLimit"] == 1


def test_every_kms_key_rotates_and_is_single_region(prod):
    keys = prod.of(KEY)
    assert len(keys) == 6  # EKS secrets, EKS volumes, VPC flow logs, two buckets, the ECR registry
    for key in keys:
        assert key.inputs["enableKeyRotation"] is True
        assert not key.inputs.get("multiRegion")


def test_ebs_key_lets_auto_scaling_encrypt_node_volumes(prod):
    template_keys = {m["ebs"]["kmsKeyId"] for t in prod.of("aws:ec2/launchTemplate:LaunchTemplate")
                     for m in t.inputs["blockDeviceMappings"]}
    (key,) = [k for k in prod.of(KEY) if k.outputs["arn"] in template_keys]
    principals = [s["Principal"].get("AWS", "") for s in json.loads(key.inputs["policy"])["Statement"]]
    assert any(p.endswith("AWSServiceRoleForAutoScaling") for p in principals)


def test_every_bucket_is_kms_encrypted_private_versioned_and_tls_only(prod):
    buckets = prod.of("aws:s3/bucket:Bucket")
    assert len(buckets) == 2

    def guard(token, bucket):
        (found,) = [r.inputs for r in prod.of(token) if r.inputs["bucket"] == bucket.id]
        return found

    for bucket in buckets:
        (rule,) = guard("aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
                        bucket)["rules"]
        assert rule["applyServerSideEncryptionByDefault"]["sseAlgorithm"] == "aws:kms"
        assert rule["applyServerSideEncryptionByDefault"]["kmsMasterKeyId"] in key_arns(prod)
        assert rule["bucketKeyEnabled"] is True
        block = guard("aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock", bucket)
        assert all(block[f] is True for f in ("blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls",
                                              "restrictPublicBuckets"))
        versioning = guard("aws:s3/bucketVersioning:BucketVersioning", bucket)
        assert versioning["versioningConfiguration"]["status"] == "Enabled"
        policy = json.loads(guard("aws:s3/bucketPolicy:BucketPolicy", bucket)["policy"])
        assert any(s["Effect"] == "Deny" and s["Condition"].get("Bool", {}).get("aws:SecureTransport") == "false"
                   for s in policy["Statement"])
    assert not prod.of("aws:s3/bucketReplicationConfig:BucketReplicationConfig")


def test_node_groups_wait_for_the_cni_and_pod_add_ons_wait_for_the_nodes(prod):
    addons = {a.inputs["addonName"]: a for a in prod.of("aws:eks/addon:Addon")}
    groups = prod.of(NODE_GROUP)
    for group in groups:
        assert addons["vpc-cni"].urn in group.dependencies
        assert any(d.endswith("AmazonEKSWorkerNodePolicy") for d in group.dependencies)
    for name in ("coredns", "aws-ebs-csi-driver"):
        assert {g.urn for g in groups} <= set(addons[name].dependencies)
    assert addons["aws-ebs-csi-driver"].inputs["serviceAccountRoleArn"].startswith("arn:aws:iam::")
