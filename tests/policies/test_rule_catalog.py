"""Every rule, through the pack's own Policy object: compliant passes; non-compliant fails with its id; the
property missing; the value unknown in preview (the SDK's unknown-checking proxy). Residency rules fail
closed on unknowns, presence checks count an unknown value as present."""

from __future__ import annotations

import json

import pytest
from sahab.policies.core import Enforcement, Unknown, all_rules

from tests.policies.policy_harness import UNKNOWN, UNKNOWN_BOOL, Res, Stack, run

ME = {"region": "me-central-1"}
EU = {"region": "eu-west-1"}
BUCKET = "aws:s3/bucket:Bucket"
BUCKET_V2 = "aws:s3/bucketV2:BucketV2"
SSE = "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration"
BUCKET_POLICY = "aws:s3/bucketPolicy:BucketPolicy"
PAB = "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock"
VERSIONING = "aws:s3/bucketVersioning:BucketVersioning"
REPLICATION = "aws:s3/bucketReplicationConfig:BucketReplicationConfig"
KEY = "aws:kms/key:Key"
CLUSTER = "aws:eks/cluster:Cluster"
LT = "aws:ec2/launchTemplate:LaunchTemplate"
ACCOUNT = "azure-native:storage:StorageAccount"
AKS = "azure-native:containerservice:ManagedCluster"
SC = "kubernetes:storage.k8s.io/v1:StorageClass"
PVC = "kubernetes:core/v1:PersistentVolumeClaim"
KEY_ARN = "arn:aws:kms:me-central-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab"
TLS_DENY = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Sid": "AllowRole", "Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::111122223333:role/x"},
     "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*"},
    {"Sid": "DenyInsecureTransport", "Effect": "Deny", "Principal": "*", "Action": "s3:*",
     "Resource": ["arn:aws:s3:::b", "arn:aws:s3:::b/*"], "Condition": {"Bool": {"aws:SecureTransport": "false"}}}]})
ALLOW_ONLY = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*"}]})


def mk_worker(labels):
    return Res("kubernetes:kueue.x-k8s.io/v1beta2:MultiKueueCluster", {"metadata": {"name": "w", "labels": labels},
               "spec": {"clusterSource": {"kubeConfig": {"locationType": "Secret", "location": "w"}}}},
               provider={}, provider_type="pulumi:providers:kubernetes")


def bucket(name="b", provider=ME, **props):
    return Res(BUCKET, props, name=name, provider=provider)


def attached(type_, props, name="cfg"):
    """A resource that names bucket `b` through its `bucket` input (the value is the bucket's id)."""
    return Res(type_, {"bucket": "b-0123456", **props}, name=name, provider=ME, deps={"bucket": ["b"]})


def sse(algorithm="aws:kms", key=KEY_ARN):
    default = {"sseAlgorithm": algorithm}
    if key is not None:
        default["kmsMasterKeyId"] = key
    return attached(SSE, {"rules": [{"applyServerSideEncryptionByDefault": default, "bucketKeyEnabled": True}]})


def replication(dest, deps=None):
    return Res(REPLICATION, {"bucket": "b-0123456", "role": "arn:aws:iam::111122223333:role/r",
                             "rules": [{"status": "Enabled", "destination": dest}]},
               name="repl", provider=ME, deps={"bucket": ["b"], "rules": deps or []})


def backup(copy):
    return Stack([Res("aws:backup/plan:Plan", {"name": "p", "rules": [
        {"ruleName": "daily", "targetVaultName": "v", "copyActions": [copy]}]}, provider=ME)])


def ecr_replication(dest):
    return Res("aws:ecr/replicationConfiguration:ReplicationConfiguration",
               {"replicationConfiguration": {"rules": [{"destinations": [dest]}]}}, provider=ME)


def pab(**overrides):
    settings = {"blockPublicAcls": True, "blockPublicPolicy": True, "ignorePublicAcls": True,
                "restrictPublicBuckets": True} | overrides
    return Stack([bucket(), attached(PAB, settings)])


def storage_class(params=None, provisioner="ebs.csi.aws.com", annotations=None, name="encrypted"):
    props = {"metadata": {"name": name, **({"annotations": annotations} if annotations else {})},
             "provisioner": provisioner}
    if params is not None:
        props["parameters"] = params
    return Res(SC, props, name=name, provider={}, provider_type="pulumi:providers:kubernetes")


def pvc(class_name):
    spec = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}}}
    if class_name is not None:
        spec["storageClassName"] = class_name
    return Res(PVC, {"metadata": {"name": "data"}, "spec": spec}, name="data", provider={},
               provider_type="pulumi:providers:kubernetes")


def fleet(*sites):
    return {"sahab:fleet": {"environment": "prod", "sites": list(sites)}}


def azure(type_, props):
    return Res(type_, props, provider={}, provider_type="pulumi:providers:azure-native")


def account(**props):
    return azure(ACCOUNT, {"location": "uaenorth", "sku": {"name": "Standard_ZRS"}, **props})


ECR = "123456789012.dkr.ecr.me-central-1.amazonaws.com"
DIGEST = "sha256:" + "ab" * 32


def deployment(image, name="app"):
    """A Deployment with one container; `image=None` leaves the container without one."""
    container = {"name": "main", **({"image": image} if image is not None else {})}
    return Res("kubernetes:apps/v1:Deployment", {"metadata": {"name": name}, "spec": {"template": {"spec": {
        "containers": [container]}}}}, name=name, provider={}, provider_type="pulumi:providers:kubernetes")


def in_fleet(*resources):
    """The resources in a stack whose fleet names its in-country registry."""
    return Stack(list(resources), {"sahab:fleet": {"environment": "prod", "registries": {"eks": ECR}}})


# rule name -> {case: (scenario, violation expected)}
CASES = {
    "aws-all-resource-region-allowed": {
        "compliant": (bucket(), False),
        "noncompliant": (bucket(provider={"region": "eu-central-1"}), True),
        "missing": (bucket(provider={}), True),
        "unknown": (bucket(region=UNKNOWN), True),
    },
    "aws-pulumi-provider-region-allowed": {
        "compliant": (Res("pulumi:providers:aws", {"region": "me-central-1"}), False),
        "noncompliant": (Res("pulumi:providers:aws", {"region": "eu-central-1"}), True),
        "missing": (Res("pulumi:providers:aws", {}), True),
        "unknown": (Res("pulumi:providers:aws", {"region": UNKNOWN}), True),
    },
    "aws-kms-key-single-region": {
        "compliant": (Res(KEY, {"multiRegion": False}, provider=ME), False),
        "noncompliant": (Res(KEY, {"multiRegion": True}, provider=ME), True),
        "missing": (Res(KEY, {}, provider=ME), False),
        "unknown": (Res(KEY, {"multiRegion": UNKNOWN_BOOL}, provider=ME), True),
    },
    "aws-s3-bucketreplication-destination-region-allowed": {
        "compliant": (Stack([bucket(), bucket("dst", arn="arn:aws:s3:::dst"),
                             replication({"bucket": "arn:aws:s3:::dst"})]), False),
        "noncompliant": (Stack([bucket(), bucket("dst", EU, arn="arn:aws:s3:::dst"),
                                replication({"bucket": "arn:aws:s3:::dst"})]), True),
        "missing": (Stack([bucket(), replication({"storageClass": "STANDARD"})]), True),
        "unknown": (Stack([bucket(), replication({"bucket": UNKNOWN})]), True),
    },
    "aws-backup-plan-copy-region-allowed": {
        "compliant": (backup({"destinationVaultArn": "arn:aws:backup:me-central-1:111122223333:backup-vault:v"}),
                      False),
        "noncompliant": (backup({"destinationVaultArn": "arn:aws:backup:eu-west-1:111122223333:backup-vault:v"}),
                         True),
        "missing": (backup({"lifecycle": {"deleteAfter": 30}}), True),
        "unknown": (backup({"destinationVaultArn": UNKNOWN}), True),
    },
    "aws-ecr-replicationconfiguration-region-allowed": {
        "compliant": (ecr_replication({"region": "me-central-1", "registryId": "111122223333"}), False),
        "noncompliant": (ecr_replication({"region": "eu-west-1", "registryId": "111122223333"}), True),
        "missing": (ecr_replication({"registryId": "111122223333"}), True),
        "unknown": (ecr_replication({"region": UNKNOWN, "registryId": "111122223333"}), True),
    },
    "aws-dynamodb-table-replica-region-allowed": {
        "compliant": (Res("aws:dynamodb/table:Table", {"replicas": [{"regionName": "me-central-1"}]}, provider=ME),
                      False),
        "noncompliant": (Res("aws:dynamodb/table:Table", {"replicas": [{"regionName": "eu-west-1"}]}, provider=ME),
                         True),
        "missing": (Res("aws:dynamodb/table:Table", {"replicas": [{"kmsKeyArn": KEY_ARN}]}, provider=ME), True),
        "unknown": (Res("aws:dynamodb/table:Table", {"replicas": [{"regionName": UNKNOWN}]}, provider=ME), True),
    },
    "aws-s3-bucket-sse-kms-cmk": {
        "compliant": (Stack([bucket(), sse()]), False),
        "noncompliant": (Stack([bucket(), sse("AES256", None)]), True),
        "missing": (Stack([bucket()]), True),
        "unknown": (Stack([bucket(), sse(key=UNKNOWN)]), False),
    },
    "aws-s3-bucket-deny-insecure-transport": {
        "compliant": (Stack([bucket(), attached(BUCKET_POLICY, {"policy": TLS_DENY})]), False),
        "noncompliant": (Stack([bucket(), attached(BUCKET_POLICY, {"policy": ALLOW_ONLY})]), True),
        "missing": (Stack([bucket()]), True),
        "unknown": (Stack([bucket(), attached(BUCKET_POLICY, {"policy": UNKNOWN})]), False),
    },
    "aws-ebs-volume-encrypted": {
        "compliant": (Res("aws:ebs/volume:Volume", {"encrypted": True, "size": 100}, provider=ME), False),
        "noncompliant": (Res("aws:ebs/volume:Volume", {"encrypted": False}, provider=ME), True),
        "missing": (Res("aws:ebs/volume:Volume", {"size": 100}, provider=ME), True),
        "unknown": (Res("aws:ebs/volume:Volume", {"encrypted": UNKNOWN_BOOL}, provider=ME), False),
    },
    # Rules added with `sahab audit aws` (policies/rules/aws_ebs_account.py).
    "aws-ebs-snapshot-encrypted": {
        "compliant": (Stack([Res("aws:ebs/volume:Volume", {"encrypted": True}, name="vol", provider=ME),
                             Res("aws:ebs/snapshot:Snapshot", {"volumeId": "vol-0123"}, name="snap", provider=ME,
                                 deps={"volumeId": ["vol"]})]), False),
        "noncompliant": (Stack([Res("aws:ebs/volume:Volume", {"encrypted": False}, name="vol", provider=ME),
                                Res("aws:ebs/snapshot:Snapshot", {"volumeId": "vol-0123"}, name="snap", provider=ME,
                                    deps={"volumeId": ["vol"]})]), True),
        "missing": (Stack([Res("aws:ebs/snapshot:Snapshot", {"volumeId": "vol-0123456789abcdef0"}, name="snap",
                               provider=ME)]), True),
        "unknown": (Stack([Res("aws:ebs/snapshotCopy:SnapshotCopy", {"sourceSnapshotId": "snap-0123",
                                                                      "encrypted": UNKNOWN_BOOL}, name="copy",
                               provider=ME)]), False),
    },
    "aws-ebs-encryptionbydefault-enabled": {
        "compliant": (Res("aws:ebs/encryptionByDefault:EncryptionByDefault", {"enabled": True}, provider=ME), False),
        "noncompliant": (Res("aws:ebs/encryptionByDefault:EncryptionByDefault", {"enabled": False}, provider=ME),
                         True),
        "missing": (Res("aws:ebs/encryptionByDefault:EncryptionByDefault", {}, provider=ME), False),  # default on
        "unknown": (Res("aws:ebs/encryptionByDefault:EncryptionByDefault", {"enabled": UNKNOWN_BOOL}, provider=ME),
                    False),
    },
    "aws-ec2-launchtemplate-ebs-encrypted": {
        "compliant": (Res(LT, {"blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {
            "encrypted": "true", "kmsKeyId": KEY_ARN, "volumeSize": 200}}]}, provider=ME), False),
        "noncompliant": (Res(LT, {"blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {
            "encrypted": "false"}}]}, provider=ME), True),
        "missing": (Res(LT, {"imageId": "ami-0123"}, provider=ME), True),
        "unknown": (Res(LT, {"blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {
            "encrypted": UNKNOWN}}]}, provider=ME), False),
    },
    "aws-kms-key-rotation-enabled": {
        "compliant": (Res(KEY, {"enableKeyRotation": True}, provider=ME), False),
        "noncompliant": (Res(KEY, {"enableKeyRotation": False}, provider=ME), True),
        "missing": (Res(KEY, {"description": "k"}, provider=ME), True),
        "unknown": (Res(KEY, {"enableKeyRotation": UNKNOWN_BOOL}, provider=ME), False),
    },
    "aws-eks-cluster-secrets-encrypted": {
        "compliant": (Res(CLUSTER, {"encryptionConfig": {"resources": ["secrets"], "provider": {"keyArn": KEY_ARN}}},
                          provider=ME), False),
        "noncompliant": (Res(CLUSTER, {"encryptionConfig": {"resources": ["configmaps"],
                                                            "provider": {"keyArn": KEY_ARN}}}, provider=ME), True),
        "missing": (Res(CLUSTER, {"name": "c"}, provider=ME), True),
        "unknown": (Res(CLUSTER, {"encryptionConfig": {"resources": ["secrets"], "provider": {"keyArn": UNKNOWN}}},
                        provider=ME), False),
    },
    "aws-s3-bucket-public-access-blocked": {
        "compliant": (pab(), False),
        "noncompliant": (pab(blockPublicPolicy=False), True),
        "missing": (Stack([bucket()]), True),
        "unknown": (pab(restrictPublicBuckets=UNKNOWN_BOOL), False),
    },
    "aws-s3-bucket-versioning-enabled": {
        "compliant": (Stack([bucket(), attached(VERSIONING, {"versioningConfiguration": {"status": "Enabled"}})]),
                      False),
        "noncompliant": (Stack([bucket(), attached(VERSIONING, {"versioningConfiguration": {
            "status": "Suspended"}})]), True),
        "missing": (Stack([bucket()]), True),
        "unknown": (Stack([bucket(), attached(VERSIONING, {"versioningConfiguration": {"status": UNKNOWN}})]),
                    False),
    },
    "aws-eks-cluster-private-endpoint": {
        "compliant": (Res(CLUSTER, {"vpcConfig": {"endpointPublicAccess": False}}, provider=ME), False),
        "noncompliant": (Res(CLUSTER, {"vpcConfig": {"endpointPublicAccess": True}}, provider=ME), True),
        "missing": (Res(CLUSTER, {"vpcConfig": {"subnetIds": ["subnet-1"]}}, provider=ME), True),
        "unknown": (Res(CLUSTER, {"vpcConfig": {"endpointPublicAccess": UNKNOWN_BOOL}}, provider=ME), False),
    },
    "aws-eks-cluster-audit-logging": {
        "compliant": (Res(CLUSTER, {"enabledClusterLogTypes": ["api", "audit"]}, provider=ME), False),
        "noncompliant": (Res(CLUSTER, {"enabledClusterLogTypes": ["api"]}, provider=ME), True),
        "missing": (Res(CLUSTER, {}, provider=ME), True),
        "unknown": (Res(CLUSTER, {"enabledClusterLogTypes": UNKNOWN}, provider=ME), False),
    },
    "aws-kms-key-deletion-window-30-days": {
        "compliant": (Res(KEY, {"deletionWindowInDays": 30}, provider=ME), False),
        "noncompliant": (Res(KEY, {"deletionWindowInDays": 7}, provider=ME), True),
        "missing": (Res(KEY, {}, provider=ME), False),  # AWS waits 30 days when unset
        "unknown": (Res(KEY, {"deletionWindowInDays": UNKNOWN}, provider=ME), False),
    },
    "aws-ecr-repository-kms-encrypted": {
        "compliant": (Res("aws:ecr/repository:Repository", {"encryptionConfigurations": [
            {"encryptionType": "KMS", "kmsKey": KEY_ARN}]}, provider=ME), False),
        "noncompliant": (Res("aws:ecr/repository:Repository", {"encryptionConfigurations": [
            {"encryptionType": "AES256"}]}, provider=ME), True),
        "missing": (Res("aws:ecr/repository:Repository", {}, provider=ME), True),
        "unknown": (Res("aws:ecr/repository:Repository", {"encryptionConfigurations": [
            {"encryptionType": UNKNOWN}]}, provider=ME), False),
    },
    "aws-ec2-instance-imdsv2-required": {
        "compliant": (Res(LT, {"metadataOptions": {"httpTokens": "required"}}, provider=ME), False),
        "noncompliant": (Res("aws:ec2/instance:Instance", {"metadataOptions": {"httpTokens": "optional"}},
                             provider=ME), True),
        "missing": (Res("aws:ec2/instance:Instance", {}, provider=ME), True),
        "unknown": (Res(LT, {"metadataOptions": {"httpTokens": UNKNOWN}}, provider=ME), False),
    },
    "azure-all-resource-location-allowed": {
        "compliant": (account(), False),
        "noncompliant": (account(location="westeurope"), True),
        "missing": (azure(ACCOUNT, {"sku": {"name": "Standard_ZRS"}}), True),
        "unknown": (account(location=UNKNOWN), True),
    },
    "azure-pulumi-provider-location-allowed": {
        "compliant": (Res("pulumi:providers:azure-native", {"location": "uaecentral"}), False),
        "noncompliant": (Res("pulumi:providers:azure-native", {"location": "westeurope"}), True),
        "missing": (Res("pulumi:providers:azure-native", {"subscriptionId": "s"}), False),
        "unknown": (Res("pulumi:providers:azure-native", {"location": UNKNOWN}), True),
    },
    "azure-storage-storageaccount-geo-replica-in-country": {
        "compliant": (account(sku={"name": "Standard_GRS"}), False),
        "noncompliant": (account(location="westeurope", sku={"name": "Standard_RAGRS"}), True),
        "missing": (azure(ACCOUNT, {"sku": {"name": "Standard_GRS"}}), True),
        "unknown": (account(sku={"name": UNKNOWN}), True),
    },
    "azure-storage-storageaccount-min-tls-1-2": {
        "compliant": (account(minimumTlsVersion="TLS1_2"), False),
        "noncompliant": (account(minimumTlsVersion="TLS1_0"), True),
        "missing": (account(), True),
        "unknown": (account(minimumTlsVersion=UNKNOWN), False),
    },
    "azure-storage-storageaccount-https-only": {
        "compliant": (account(enableHttpsTrafficOnly=True), False),
        "noncompliant": (account(enableHttpsTrafficOnly=False), True),
        "missing": (account(), True),
        "unknown": (account(enableHttpsTrafficOnly=UNKNOWN_BOOL), False),
    },
    "azure-storage-storageaccount-no-public-blob-access": {
        "compliant": (account(allowBlobPublicAccess=False), False),
        "noncompliant": (account(allowBlobPublicAccess=True), True),
        "missing": (account(), True),
        "unknown": (account(allowBlobPublicAccess=UNKNOWN_BOOL), False),
    },
    "azure-containerservice-managedcluster-private": {
        "compliant": (azure(AKS, {"apiServerAccessProfile": {"enablePrivateCluster": True}}), False),
        "noncompliant": (azure(AKS, {"apiServerAccessProfile": {"enablePrivateCluster": False}}), True),
        "missing": (azure(AKS, {"dnsPrefix": "aks"}), True),
        "unknown": (azure(AKS, {"apiServerAccessProfile": {"enablePrivateCluster": UNKNOWN_BOOL}}), False),
    },
    "azure-containerservice-managedcluster-disk-encryption-set": {
        "compliant": (azure(AKS, {"diskEncryptionSetID": "/subscriptions/s/resourceGroups/g/providers/"
                                                         "Microsoft.Compute/diskEncryptionSets/des"}), False),
        "noncompliant": (azure(AKS, {"diskEncryptionSetID": ""}), True),
        "missing": (azure(AKS, {"dnsPrefix": "aks"}), True),
        "unknown": (azure(AKS, {"diskEncryptionSetID": UNKNOWN}), False),
    },
    "azure-keyvault-vault-purge-protection": {
        "compliant": (azure("azure-native:keyvault:Vault", {"properties": {"enablePurgeProtection": True}}), False),
        "noncompliant": (azure("azure-native:keyvault:Vault", {"properties": {"enablePurgeProtection": False}}),
                         True),
        "missing": (azure("azure-native:keyvault:Vault", {"properties": {"tenantId": "t"}}), True),
        "unknown": (azure("azure-native:keyvault:Vault", {"properties": {"enablePurgeProtection": UNKNOWN_BOOL}}),
                    False),
    },
    "azure-compute-disk-customer-managed-key": {
        "compliant": (azure("azure-native:compute:Disk", {"encryption": {"diskEncryptionSetId": "/des"}}), False),
        "noncompliant": (azure("azure-native:compute:Disk", {"encryption": {
            "type": "EncryptionAtRestWithPlatformKey"}}), True),
        "missing": (azure("azure-native:compute:Disk", {"diskSizeGB": 100}), True),
        "unknown": (azure("azure-native:compute:Disk", {"encryption": {"diskEncryptionSetId": UNKNOWN}}), False),
    },
    "kubernetes-storage-storageclass-encrypted": {
        "compliant": (storage_class({"type": "gp3", "encrypted": "true", "kmsKeyId": KEY_ARN}), False),
        "noncompliant": (storage_class({"type": "gp3", "encrypted": "false"}), True),
        "missing": (storage_class(None), True),
        "unknown": (storage_class({"type": "gp3", "encrypted": UNKNOWN}), False),
    },
    "kubernetes-core-persistentvolumeclaim-encrypted-class": {
        "compliant": (Stack([storage_class({"encrypted": "true"}), pvc("encrypted")]), False),
        "noncompliant": (Stack([storage_class({"encrypted": "false"}, name="plain"), pvc("plain")]), True),
        "missing": (Stack([storage_class({"encrypted": "true"}), pvc(None)]), True),  # no default class marked
        "unknown": (Stack([storage_class({"encrypted": "true"}), pvc(UNKNOWN)]), False),
    },
    "kubernetes-core-namespace-pod-security-enforced": {
        "compliant": (Res("kubernetes:core/v1:Namespace", {"metadata": {"labels": {
            "pod-security.kubernetes.io/enforce": "restricted"}}}), False),
        "noncompliant": (Res("kubernetes:core/v1:Namespace", {"metadata": {"labels": {
            "pod-security.kubernetes.io/enforce": "privileged"}}}), True),
        "missing": (Res("kubernetes:core/v1:Namespace", {"metadata": {"name": "team"}}), True),
        "unknown": (Res("kubernetes:core/v1:Namespace", {"metadata": {"labels": {
            "pod-security.kubernetes.io/enforce": UNKNOWN}}}), False),
    },
    "kubernetes-kueue-multikueuecluster-uae-region": {
        "compliant": (mk_worker({"sahab.io/region": "me-central-1"}), False),
        "noncompliant": (mk_worker({"sahab.io/region": "eu-west-1"}), True),
        "missing": (mk_worker({}), True),
        "unknown": (mk_worker({"sahab.io/region": UNKNOWN}), True),
    },
    "kubernetes-all-workload-image-registry-allowed": {
        "compliant": (in_fleet(deployment(f"{ECR}/sahab/workload:0.1.0")), False),
        "noncompliant": (in_fleet(deployment("docker.io/sahab/workload:0.1.0")), True),
        "missing": (in_fleet(deployment(None)), True),
        "unknown": (in_fleet(deployment(UNKNOWN)), True),
    },
    "kubernetes-all-workload-image-digest-pinned": {
        "compliant": (deployment(f"{ECR}/sahab/workload:0.1.0@{DIGEST}"), False),
        "noncompliant": (deployment(f"{ECR}/sahab/workload:0.1.0"), True),
        "missing": (deployment(None), True),
        "unknown": (deployment(UNKNOWN), True),
    },
    "onprem-site-country-allowed": {
        "compliant": (Stack([], fleet({"name": "auh-dc1", "country": "AE", "emirate": "abu-dhabi"})), False),
        "noncompliant": (Stack([], fleet({"name": "auh-dc1", "country": "AE"}, {"name": "ruh-dc1",
                                                                                 "country": "SA"})), True),
        "missing": (Stack([], fleet({"name": "auh-dc1", "emirate": "abu-dhabi"})), False),  # schema default: AE
        "unknown": (Stack([Res("sahab:onprem:Site", {"name": "dc", "country": UNKNOWN}, name="dc")]), True),
    },
}
SQS = "aws:sqs/queue:Queue"
RDS = "aws:rds/instance:Instance"
SUBSCRIPTION = "aws:sns/topicSubscription:TopicSubscription"
DISK = "azure-native:compute:Disk"
DES = "azure-native:compute:DiskEncryptionSet"
DES_ID = "/subscriptions/s/resourceGroups/g/providers/Microsoft.Compute/diskEncryptionSets/des"


def other_cloud(type_, props, package):
    return Res(type_, props, provider={}, provider_type=f"pulumi:providers:{package}")


def subscription(endpoint):
    return Res(SUBSCRIPTION, {"protocol": "sqs", "topic": "arn:aws:sns:me-central-1:111122223333:t",
                              "endpoint": endpoint}, name="sub", provider=ME)


CASES |= {
    "cloud-all-resource-region-allowed": {
        "compliant": (other_cloud("azapi:index:Resource", {"location": "uaenorth", "type": "X@2024"}, "azapi"), False),
        "noncompliant": (other_cloud("digitalocean:index/droplet:Droplet", {"region": "fra1"}, "digitalocean"),
                         True),
        "missing": (other_cloud("mongodbatlas:index/cluster:Cluster", {"name": "c"}, "mongodbatlas"), True),
        "unknown": (other_cloud("azapi:index:Resource", {"location": UNKNOWN}, "azapi"), True),
    },
    "cloud-all-resource-references-in-country": {
        "compliant": (subscription("arn:aws:sqs:me-central-1:111122223333:q"), False),
        "noncompliant": (subscription("arn:aws:sqs:eu-west-1:111122223333:q"), True),
        "missing": (Res(SUBSCRIPTION, {"protocol": "sqs"}, name="sub", provider=ME), False),
        "unknown": (subscription(UNKNOWN), True),  # from no resource of this program
    },
    "cloud-all-resource-edge-service-forbidden": {
        "compliant": (Res("aws:wafv2/webAcl:WebAcl", {"scope": "REGIONAL"}, provider=ME), False),
        "noncompliant": (Res("aws:cloudfront/distribution:Distribution", {"enabled": True}, provider=ME), True),
        "missing": (Res("aws:wafv2/webAcl:WebAcl", {"name": "acl"}, provider=ME), False),
        "unknown": (Res("aws:wafv2/webAcl:WebAcl", {"scope": UNKNOWN}, provider=ME), True),
    },
    "aws-storage-datastore-encrypted-cmk": {
        "compliant": (Res(RDS, {"storageEncrypted": True, "kmsKeyId": KEY_ARN}, provider=ME), False),
        "noncompliant": (Res(RDS, {"storageEncrypted": False}, provider=ME), True),
        "missing": (Res(SQS, {"name": "q"}, provider=ME), True),
        "unknown": (Res(RDS, {"storageEncrypted": True, "kmsKeyId": UNKNOWN}, provider=ME), False),
    },
    "azure-storage-datastore-encrypted-cmk": {
        "compliant": (Stack([azure(DES, {"location": "uaenorth"}), Res(
            DISK, {"encryption": {"diskEncryptionSetId": DES_ID}}, name="disk", provider={},
            provider_type="pulumi:providers:azure-native", deps={"encryption": ["r"]})]), False),
        "noncompliant": (account(encryption={"keySource": "Microsoft.Storage"}), True),
        "missing": (azure("azure-native:cosmosdb:DatabaseAccount", {"databaseAccountOfferType": "Standard"}), True),
        "unknown": (azure(DISK, {"encryption": {"diskEncryptionSetId": UNKNOWN}}), False),
    },
}
CASES |= {
    "aws-eks-cluster-public-endpoint-restricted": {
        "compliant": (Res(CLUSTER, {"vpcConfig": {"endpointPublicAccess": True,
                                                  "publicAccessCidrs": ["203.0.113.0/24"]}}, provider=ME), False),
        "noncompliant": (Res(CLUSTER, {"vpcConfig": {"endpointPublicAccess": True,
                                                     "publicAccessCidrs": ["0.0.0.0/0"]}}, provider=ME), True),
        "missing": (Res(CLUSTER, {"vpcConfig": {"subnetIds": ["subnet-1"]}}, provider=ME), True),  # AWS: public
        "unknown": (Res(CLUSTER, {"vpcConfig": {"endpointPublicAccess": UNKNOWN_BOOL}}, provider=ME), False),
    },
    "azure-containerservice-managedcluster-public-endpoint-restricted": {
        "compliant": (azure(AKS, {"apiServerAccessProfile": {"authorizedIPRanges": ["203.0.113.0/24"]}}), False),
        "noncompliant": (azure(AKS, {"apiServerAccessProfile": {"enablePrivateCluster": False,
                                                                "authorizedIPRanges": ["0.0.0.0/0"]}}), True),
        "missing": (azure(AKS, {"dnsPrefix": "aks"}), True),
        "unknown": (azure(AKS, {"apiServerAccessProfile": {"enablePrivateCluster": UNKNOWN_BOOL}}), False),
    },
}
NP = "kubernetes:networking.k8s.io/v1:NetworkPolicy"
VAULT = "azure-native:keyvault:Vault"
PRIVATE_ENDPOINT = "azure-native:network:PrivateEndpoint"


def network_policy(*egress):
    return Res(NP, {"metadata": {"name": "egress", "namespace": "team"},
                    "spec": {"podSelector": {}, "policyTypes": ["Egress"], "egress": list(egress)}},
               name="np", provider={}, provider_type="pulumi:providers:kubernetes")


def behind_private_endpoint(resource):
    """`resource` in a stack that also has a private endpoint (so the service should refuse public networks)."""
    return Stack([resource, azure(PRIVATE_ENDPOINT, {"location": "uaenorth", "subnet": {"id": "/subnets/pe"}})])


def vault(**properties):
    return azure(VAULT, {"location": "uaenorth", "properties": {"tenantId": "t", **properties}})


def registry(**props):
    return azure("azure-native:containerregistry:Registry", {"location": "uaenorth", "sku": {"name": "Premium"},
                                                              **props})


CASES |= {
    "kubernetes-networking-networkpolicy-no-public-egress": {
        "compliant": (network_policy({"to": [{"ipBlock": {"cidr": "10.40.0.0/16"}}],
                                      "ports": [{"protocol": "TCP", "port": 443}]}), False),
        "noncompliant": (network_policy({"to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": ["10.0.0.0/8"]}}]}),
                         True),
        "missing": (network_policy({"ports": [{"protocol": "TCP", "port": 443}]}), True),  # no `to`: everything
        "unknown": (network_policy({"to": [{"ipBlock": {"cidr": UNKNOWN}}]}), False),
    },
    "azure-storage-storageaccount-public-network-access-disabled": {
        "compliant": (behind_private_endpoint(account(publicNetworkAccess="Disabled")), False),
        "noncompliant": (behind_private_endpoint(account(publicNetworkAccess="Enabled")), True),
        "missing": (behind_private_endpoint(account()), True),  # Azure's default is Enabled
        "unknown": (behind_private_endpoint(account(publicNetworkAccess=UNKNOWN)), False),
    },
    "azure-keyvault-vault-public-network-access-disabled": {
        "compliant": (behind_private_endpoint(vault(publicNetworkAccess="Disabled")), False),
        "noncompliant": (behind_private_endpoint(vault(publicNetworkAccess="Enabled")), True),
        "missing": (behind_private_endpoint(vault()), True),
        "unknown": (behind_private_endpoint(vault(publicNetworkAccess=UNKNOWN)), False),
    },
    "azure-containerregistry-registry-public-network-access-disabled": {
        "compliant": (behind_private_endpoint(registry(publicNetworkAccess="Disabled")), False),
        "noncompliant": (behind_private_endpoint(registry(publicNetworkAccess="Enabled")), True),
        "missing": (behind_private_endpoint(registry()), True),  # Azure's default is Enabled
        "unknown": (behind_private_endpoint(registry(publicNetworkAccess=UNKNOWN)), False),
    },
}
VPN = "aws:ec2/vpnConnection:VpnConnection"
GATEWAY_CONNECTION = "azure-native:network:VirtualNetworkGatewayConnection"


def vpn(**options):
    """An AWS VPN connection with both tunnels set as Sahab sets them, `options` overriding."""
    tunnels = {}
    for tunnel in ("tunnel1", "tunnel2"):
        tunnels |= {f"{tunnel}IkeVersions": ["ikev2"], f"{tunnel}Phase1EncryptionAlgorithms": ["AES256-GCM-16"],
                    f"{tunnel}Phase2EncryptionAlgorithms": ["AES256-GCM-16"], f"{tunnel}Phase1DhGroupNumbers": [20],
                    f"{tunnel}Phase2DhGroupNumbers": [20]}
    return Res(VPN, {"type": "ipsec.1", **tunnels, **options}, provider=ME)


def gateway_connection(policy=None, **props):
    policies = [] if policy is False else [{"ikeEncryption": "GCMAES256", "ikeIntegrity": "SHA384",
                                            "dhGroup": "ECP384", "ipsecEncryption": "GCMAES256",
                                            "ipsecIntegrity": "GCMAES256", "pfsGroup": "ECP384",
                                            "saLifeTimeSeconds": 27000, "saDataSizeKilobytes": 102400000,
                                            **(policy or {})}]
    base = {"location": "uaenorth", "connectionType": "IPsec", "connectionProtocol": "IKEv2"}
    return azure(GATEWAY_CONNECTION, {**base, **({"ipsecPolicies": policies} if policies else {}), **props})


CASES |= {
    "aws-ec2-vpnconnection-ikev2-only": {
        "compliant": (vpn(), False),
        "noncompliant": (vpn(tunnel2IkeVersions=["ikev1", "ikev2"]), True),
        "missing": (vpn(tunnel1IkeVersions=None), True),  # AWS then accepts IKEv1 too
        "unknown": (vpn(tunnel1IkeVersions=UNKNOWN), True),
    },
    "aws-ec2-vpnconnection-aes-gcm-only": {
        "compliant": (vpn(tunnel1Phase1EncryptionAlgorithms=["AES128-GCM-16", "AES256-GCM-16"]), False),
        "noncompliant": (vpn(tunnel2Phase2EncryptionAlgorithms=["AES256-GCM-16", "AES256"]), True),
        "missing": (vpn(tunnel1Phase1EncryptionAlgorithms=None), True),
        "unknown": (vpn(tunnel2Phase1EncryptionAlgorithms=[UNKNOWN]), True),
    },
    "aws-ec2-vpnconnection-strong-dh-groups": {
        "compliant": (vpn(tunnel1Phase2DhGroupNumbers=[14, 19, 21]), False),
        "noncompliant": (vpn(tunnel1Phase1DhGroupNumbers=[2, 20]), True),
        "missing": (vpn(tunnel2Phase2DhGroupNumbers=[]), True),  # empty: AWS's defaults, group 2 among them
        "unknown": (vpn(tunnel2Phase1DhGroupNumbers=UNKNOWN), True),
    },
    "azure-network-virtualnetworkgatewayconnection-ikev2-only": {
        "compliant": (gateway_connection(), False),
        "noncompliant": (gateway_connection(connectionProtocol="IKEv1"), True),
        "missing": (azure(GATEWAY_CONNECTION, {"location": "uaenorth", "connectionType": "IPsec"}), False),
        "unknown": (gateway_connection(connectionProtocol=UNKNOWN), True),
    },
    "azure-network-virtualnetworkgatewayconnection-aes-gcm-policy": {
        "compliant": (gateway_connection(), False),
        "noncompliant": (gateway_connection({"ipsecEncryption": "AES256", "ipsecIntegrity": "SHA256"}), True),
        "missing": (gateway_connection(False), True),  # Azure's default proposals include AES-CBC and SHA-1
        "unknown": (gateway_connection({"ikeEncryption": UNKNOWN}), True),
    },
    "azure-network-virtualnetworkgatewayconnection-strong-dh-groups": {
        "compliant": (gateway_connection({"dhGroup": "DHGroup14", "pfsGroup": "ECP256"}), False),
        "noncompliant": (gateway_connection({"pfsGroup": "PFS1"}), True),
        "missing": (gateway_connection(False), True),
        "unknown": (gateway_connection(ipsecPolicies=UNKNOWN), True),
    },
}

# The public-exposure family (policies/rules/exposure.py).
PUBLIC_READ = json.dumps({"Statement": [{"Sid": "Everyone", "Effect": "Allow", "Principal": "*",
                                         "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*"}]})
PINNED = json.dumps({"Statement": [{"Effect": "Allow", "Principal": "*", "Action": "sqs:SendMessage",
                                    "Resource": "*", "Condition": {"ArnEquals": {
                                        "aws:SourceArn": "arn:aws:sns:me-central-1:111122223333:t"}}}]})
QUEUE_POLICY = "aws:sqs/queuePolicy:QueuePolicy"
BUCKET_ACL = "aws:s3/bucketAclV2:BucketAclV2"
SG = "aws:ec2/securityGroup:SecurityGroup"
SQL_SERVER = "azure-native:sql:Server"


def queue_policy(policy):
    return Res(QUEUE_POLICY, {"queueUrl": "https://sqs.me-central-1.amazonaws.com/1/q", "policy": policy},
               provider=ME)


def sg(cidr, port=5432):
    return Res(SG, {"ingress": [{"protocol": "tcp", "fromPort": port, "toPort": port, "cidrBlocks": [cidr]}]},
               provider=ME)


CASES |= {
    "cloud-all-resource-policy-not-public": {
        "compliant": (queue_policy(PINNED), False),
        "noncompliant": (queue_policy(PUBLIC_READ), True),
        "missing": (Stack([bucket(), attached(BUCKET_POLICY, {"policy": PUBLIC_READ}),
                           attached(PAB, {"blockPublicAcls": True}, "pab")]), True),  # no policy block set
        "unknown": (queue_policy(UNKNOWN), False),
    },
    "aws-s3-bucket-acl-not-public": {
        "compliant": (Stack([bucket(), attached(BUCKET_ACL, {"acl": "public-read"}),
                             attached(PAB, {"ignorePublicAcls": True}, "pab")]), False),
        "noncompliant": (Stack([bucket(), attached(BUCKET_ACL, {"acl": "public-read"}),
                                attached(PAB, {"blockPublicAcls": False, "ignorePublicAcls": False}, "pab")]), True),
        "missing": (Stack([bucket(), attached(BUCKET_ACL, {"accessControlPolicy": {"grants": [
            {"grantee": {"type": "Group", "uri": "http://acs.amazonaws.com/groups/global/AllUsers"},
             "permission": "READ"}]}})]), True),  # no public access block at all
        "unknown": (Stack([bucket(), attached(BUCKET_ACL, {"acl": UNKNOWN})]), False),
    },
    "cloud-all-snapshot-image-not-shared-publicly": {
        "compliant": (Res("aws:rds/snapshot:Snapshot", {"dbInstanceIdentifier": "db", "dbSnapshotIdentifier": "s",
                                                         "sharedAccounts": ["111122223333"]}, provider=ME), False),
        "noncompliant": (Res("aws:rds/snapshot:Snapshot", {"dbInstanceIdentifier": "db", "dbSnapshotIdentifier": "s",
                                                            "sharedAccounts": ["all"]}, provider=ME), True),
        "missing": (Res("aws:ec2/amiLaunchPermission:AmiLaunchPermission", {"imageId": "ami-1", "group": "all"},
                        provider=ME), True),
        "unknown": (Res("aws:rds/snapshot:Snapshot", {"dbInstanceIdentifier": "db", "sharedAccounts": [UNKNOWN]},
                        provider=ME), False),
    },
    "cloud-all-datastore-not-publicly-accessible": {
        "compliant": (Res(RDS, {"publiclyAccessible": False, "storageEncrypted": True}, provider=ME), False),
        "noncompliant": (Res(RDS, {"publiclyAccessible": True}, provider=ME), True),
        "missing": (Res("aws:opensearch/domain:Domain", {"domainName": "search"}, provider=ME), True),  # no VPC
        "unknown": (Res(RDS, {"publiclyAccessible": UNKNOWN_BOOL}, provider=ME), False),
    },
    "azure-all-datastore-public-network-access-disabled": {
        "compliant": (azure(SQL_SERVER, {"location": "uaenorth", "publicNetworkAccess": "Disabled"}), False),
        "noncompliant": (Stack([azure(SQL_SERVER, {"location": "uaenorth", "publicNetworkAccess": "Enabled"}),
                                Res("azure-native:sql:FirewallRule", {"serverName": "r", "startIpAddress": "0.0.0.1",
                                                                      "endIpAddress": "255.255.255.255"},
                                    name="open", provider={}, provider_type="pulumi:providers:azure-native",
                                    deps={"serverName": ["r"]})]), True),
        "missing": (azure("azure-native:cosmosdb:DatabaseAccount", {"location": "uaenorth"}), True),  # default on
        "unknown": (azure(SQL_SERVER, {"location": "uaenorth", "publicNetworkAccess": UNKNOWN}), False),
    },
    "cloud-all-network-data-port-not-public": {
        "compliant": (sg("10.0.0.0/16"), False),
        "noncompliant": (sg("0.0.0.0/0"), True),
        "missing": (Res(SG, {"ingress": [{"protocol": "-1", "fromPort": 0, "toPort": 0,
                                          "ipv6CidrBlocks": ["::/0"]}]}, provider=ME), True),  # all ports
        "unknown": (sg(UNKNOWN), False),
    },
    "cloud-all-web-endpoint-not-anonymous": {
        "compliant": (Res("aws:lambda/functionUrl:FunctionUrl", {"functionName": "f", "authorizationType": "AWS_IAM"},
                          provider=ME), False),
        "noncompliant": (Res("aws:lambda/functionUrl:FunctionUrl", {"functionName": "f", "authorizationType": "NONE"},
                             provider=ME), True),
        "missing": (Stack([bucket(), attached("aws:s3/bucketWebsiteConfigurationV2:BucketWebsiteConfigurationV2",
                                              {"indexDocument": {"suffix": "index.html"}})]), True),
        "unknown": (Res("aws:lambda/functionUrl:FunctionUrl", {"functionName": "f", "authorizationType": UNKNOWN},
                        provider=ME), False),
    },
}

# Encryption in transit (policies/rules/transit.py), host-path volumes, unjudged data stores.
MSK = "aws:msk/cluster:Cluster"
LISTENER = "aws:lb/listener:Listener"
PV = "kubernetes:core/v1:PersistentVolume"
EFS = "aws:efs/fileSystem:FileSystem"
DENY_PLAINTEXT = json.dumps({"Statement": [{"Effect": "Deny", "Principal": "*", "Action": "*",
                                            "Condition": {"Bool": {"aws:SecureTransport": "false"}}}]})


def msk(**in_transit):
    return Res(MSK, {"clusterName": "k", "encryptionInfo": {"encryptionInTransit": in_transit}}, provider=ME)


def mysql(params=None, group_value=None):
    resources = [Res(RDS, {"engine": "mysql", "parameterGroupName": "tls" if params else None,
                           "storageEncrypted": True}, name="db", provider=ME, deps={"parameterGroupName": ["tls"]}
                     if params else {})]
    if params:
        resources.append(Res("aws:rds/parameterGroup:ParameterGroup", {"name": "tls", "family": "mysql8.0",
                             "parameters": [{"name": "require_secure_transport", "value": group_value}]},
                             name="tls", provider=ME))
    return Stack(resources)


def k8s(type_, props, name="r"):
    return Res(type_, props, name=name, provider={}, provider_type="pulumi:providers:kubernetes")


def host_pv(path, klass=None):
    spec = {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": path}}
    return k8s(PV, {"metadata": {"name": "data"}, "spec": spec}, "data")


LUKS_CLASS = storage_class({"nodePath": "/var/lib/sahab/volumes"}, provisioner="sahab.io/luks-local-path",
                           annotations={"sahab.io/encryption": "luks"}, name="sahab-encrypted")

CASES |= {
    "cloud-all-stream-cache-encrypted-in-transit": {
        "compliant": (msk(clientBroker="TLS", inCluster=True), False),
        "noncompliant": (msk(clientBroker="TLS_PLAINTEXT"), True),
        "missing": (Res("aws:elasticache/replicationGroup:ReplicationGroup", {"description": "c"}, provider=ME),
                    True),  # ElastiCache: off unless set
        "unknown": (msk(clientBroker=UNKNOWN), False),
    },
    "cloud-all-database-requires-tls": {
        "compliant": (mysql(True, "1"), False),
        "noncompliant": (mysql(True, "0"), True),
        "missing": (mysql(), True),  # MySQL's default parameter group accepts plaintext
        "unknown": (mysql(True, UNKNOWN), False),
    },
    "cloud-all-filesystem-mount-encrypted-in-transit": {
        "compliant": (Stack([Res(EFS, {"encrypted": True}, name="fs", provider=ME),
                             Res("aws:efs/fileSystemPolicy:FileSystemPolicy", {"fileSystemId": "fs-1",
                                                                                "policy": DENY_PLAINTEXT},
                                 name="pol", provider=ME, deps={"fileSystemId": ["fs"]})]), False),
        "noncompliant": (k8s(PV, {"spec": {"nfs": {"server": "10.0.0.5", "path": "/exports"}}}), True),
        "missing": (Stack([Res(EFS, {"encrypted": True}, name="fs", provider=ME)]), True),  # no policy at all
        "unknown": (Stack([Res(EFS, {"encrypted": True}, name="fs", provider=ME),
                           Res("aws:efs/fileSystemPolicy:FileSystemPolicy", {"fileSystemId": "fs-1", "policy": UNKNOWN},
                               name="pol", provider=ME, deps={"fileSystemId": ["fs"]})]), False),
    },
    "cloud-all-loadbalancer-listener-tls": {
        "compliant": (Res(LISTENER, {"protocol": "HTTPS", "port": 443,
                                     "sslPolicy": "ELBSecurityPolicy-TLS13-1-2-2021-06"}, provider=ME), False),
        "noncompliant": (Res(LISTENER, {"protocol": "HTTP", "port": 80, "defaultActions": [{"type": "forward"}]},
                             provider=ME), True),
        "missing": (Res(LISTENER, {"protocol": "HTTPS", "port": 443}, provider=ME), True),  # 2016-08: TLS 1.0
        "unknown": (Res(LISTENER, {"protocol": UNKNOWN, "port": 443}, provider=ME), False),
    },
    "kubernetes-core-volume-host-path-encrypted": {
        "compliant": (Stack([LUKS_CLASS, host_pv("/var/lib/sahab/volumes/pv-data")]), False),
        "noncompliant": (Stack([LUKS_CLASS, host_pv("/mnt/patients")]), True),
        "missing": (host_pv("/data"), True),  # no encrypted node path in the stack at all
        "unknown": (Stack([LUKS_CLASS, host_pv(UNKNOWN)]), False),
    },
    "cloud-all-datastore-judged": {
        "compliant": (Res("aws:sqs/queue:Queue", {"kmsMasterKeyId": KEY_ARN}, provider=ME), False),
        "noncompliant": (Res("aws:qldb/ledger:Ledger", {"permissionsMode": "STANDARD", "kmsKey": KEY_ARN},
                             provider=ME), True),
        # The key input unset: the ledger still holds data (under an AWS-owned key).
        "missing": (Res("aws:qldb/ledger:Ledger", {"permissionsMode": "STANDARD"}, provider=ME), True),
        "unknown": (Res("aws:qldb/ledger:Ledger", {"kmsKey": UNKNOWN}, provider=ME), True),
    },
}
KINDS = ("compliant", "noncompliant", "missing", "unknown")
RULES = {r.name: r for r in all_rules()}
# Rules that judge a resource's type, not a value: an unknown value changes nothing (they fail either way).
TYPE_LEVEL_RULES = {"SAHAB-CLOUD-030"}


def test_every_rule_has_all_four_cases():
    assert set(CASES) == set(RULES)
    for name, cases in CASES.items():
        assert set(cases) == set(KINDS), name


def test_catalog_metadata():
    assert len(RULES) >= 25
    ids = [r.id for r in RULES.values()]
    assert len(set(ids)) == len(ids)
    for rule in RULES.values():
        vendor = rule.name.split("-")[0]
        assert vendor in ("aws", "azure", "cloud", "kubernetes", "onprem"), rule.name
        assert len(rule.name.split("-")) >= 4, rule.name  # vendor-service-resource-rule
        assert rule.description and rule.remediation and rule.title
        assert rule.frameworks
    frameworks = {f.name for r in RULES.values() for f in r.frameworks}
    assert any("45/2021" in f for f in frameworks) and any("2/2019" in f for f in frameworks)
    assert any("27001" in f for f in frameworks)


@pytest.mark.parametrize(("rule_name", "kind"), [(n, k) for n in CASES for k in KINDS])
def test_rule_case(rule_name, kind):
    scenario, expect_violation = CASES[rule_name][kind]
    rule = RULES[rule_name]
    found = run(rule_name, scenario)
    if expect_violation:
        assert found, f"{rule.id} should report the {kind} case"
        assert all(message.startswith(f"[{rule.id}]") for message, _ in found)
    else:
        assert found == [], f"{rule.id} should pass the {kind} case"
    if kind == "unknown":
        # Each rule does what it declares: residency and supply-chain rules fail closed in every phase; the
        # other mandatory rules count an unknown value as present in preview (the update will know it) and fail
        # closed on one still unknown after the update phase, naming it; advisory rules may ignore it.
        assert bool(found) == rule.fails_closed
        after_update = run(rule_name, scenario, phase="update")
        assert bool(after_update) == (rule.unknown is not Unknown.IGNORED), rule.id
        for message, _ in after_update:
            if rule.id not in TYPE_LEVEL_RULES:
                assert "unknown" in message and ("`" in message or "'" in message), message


def test_every_mandatory_rule_fails_closed_on_a_value_still_unknown_after_the_update():
    for rule in RULES.values():
        assert isinstance(rule.unknown, Unknown), rule.id
        if rule.enforcement is Enforcement.MANDATORY:
            assert rule.unknown is not Unknown.IGNORED, rule.id



def test_a_data_store_type_is_recognised_without_its_optional_encryption_block():
    """SAHAB-CLOUD-030 recognises the type: a Databricks workspace holds data with or without `encryption`."""
    bare = Res("azure-native:databricks:Workspace", {"location": "uaenorth", "sku": {"name": "premium"}})
    assert run("cloud-all-datastore-judged", bare)
    # A key in a block about something else (an ECS service's managed EBS volume) counts only when set.
    service = Res("aws:ecs/service:Service", {"name": "svc"}, provider=ME)
    assert run("cloud-all-datastore-judged", service) == []
