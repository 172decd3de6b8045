"""Live AWS API shapes -> the resource views the policy rules read.

Each function takes what boto3 returned and builds `LiveResource`s typed and shaped as the pulumi-aws
provider (v7) would hold the same resource: the Pulumi type token and its camelCase engine properties,
with `region` set, as v7 resources carry it. Only properties some rule or the evidence reads are mapped.
An S3 bucket becomes several views, because Pulumi models its encryption, public access block, policy and
replication as separate resources that point at the bucket by name.
"""

from __future__ import annotations

from typing import Any

from sahab.audit.scan_types import LiveResource

BUCKET = "aws:s3/bucket:Bucket"
BUCKET_SSE = "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration"
BUCKET_PAB = "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock"
BUCKET_POLICY = "aws:s3/bucketPolicy:BucketPolicy"
BUCKET_REPLICATION = "aws:s3/bucketReplicationConfig:BucketReplicationConfig"
BUCKET_VERSIONING = "aws:s3/bucketVersioning:BucketVersioning"
VOLUME = "aws:ebs/volume:Volume"
SNAPSHOT = "aws:ebs/snapshot:Snapshot"
EBS_DEFAULT = "aws:ebs/encryptionByDefault:EncryptionByDefault"
KMS_KEY = "aws:kms/key:Key"
EKS_CLUSTER = "aws:eks/cluster:Cluster"


def _drop_none(mapping: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in mapping.items() if v is not None}


def bucket_arn(name: str, partition: str = "aws") -> str:
    return f"arn:{partition}:s3:::{name}"


def s3_bucket(
    name: str,
    region: str,
    *,
    encryption: dict[str, Any] | None,
    public_access_block: dict[str, Any] | None,
    policy: str | None,
    replication: dict[str, Any] | None,
    versioning: dict[str, Any] | None = None,
    partition: str = "aws",
) -> list[LiveResource]:
    """A bucket and its companions from ListBuckets + GetBucketEncryption, GetPublicAccessBlock,
    GetBucketPolicy, GetBucketReplication and GetBucketVersioning (None where the bucket has no such
    configuration; versioning that was never turned on has no status)."""
    arn = bucket_arn(name, partition)
    views = [LiveResource(BUCKET, name, arn, region, {"bucket": name, "region": region, "arn": arn},
                          frozenset({name, arn}))]
    if encryption is not None:
        rules = [
            _drop_none({
                "applyServerSideEncryptionByDefault": _drop_none({
                    "sseAlgorithm": rule.get("ApplyServerSideEncryptionByDefault", {}).get("SSEAlgorithm"),
                    "kmsMasterKeyId": rule.get("ApplyServerSideEncryptionByDefault", {}).get("KMSMasterKeyID"),
                }),
                "bucketKeyEnabled": rule.get("BucketKeyEnabled"),
            })
            for rule in encryption.get("Rules", [])
        ]
        views.append(_companion(BUCKET_SSE, name, region, {"bucket": name, "region": region, "rules": rules}))
    if public_access_block is not None:
        props = {
            "bucket": name,
            "region": region,
            "blockPublicAcls": bool(public_access_block.get("BlockPublicAcls")),
            "blockPublicPolicy": bool(public_access_block.get("BlockPublicPolicy")),
            "ignorePublicAcls": bool(public_access_block.get("IgnorePublicAcls")),
            "restrictPublicBuckets": bool(public_access_block.get("RestrictPublicBuckets")),
        }
        views.append(_companion(BUCKET_PAB, name, region, props))
    if policy is not None:
        views.append(_companion(BUCKET_POLICY, name, region, {"bucket": name, "region": region, "policy": policy}))
    if replication is not None:
        views.append(_companion(BUCKET_REPLICATION, name, region, _replication_props(name, region, replication)))
    if versioning and versioning.get("Status"):
        config = _drop_none({"status": versioning["Status"], "mfaDelete": versioning.get("MFADelete")})
        views.append(_companion(BUCKET_VERSIONING, name, region,
                                {"bucket": name, "region": region, "versioningConfiguration": config}))
    return views


def _companion(type_: str, bucket: str, region: str, props: dict[str, Any]) -> LiveResource:
    """A configuration Pulumi models as its own resource; its id is the bucket's ARN + `#Kind`, so findings
    about it are reported against the bucket (see `LiveResource.subject`)."""
    kind = type_.rsplit(":", 1)[1]
    return LiveResource(type_, bucket, f"{bucket_arn(bucket)}#{kind}", region, props)


def _replication_props(bucket: str, region: str, config: dict[str, Any]) -> dict[str, Any]:
    rules = []
    for rule in config.get("Rules", []):
        dest = rule.get("Destination", {})
        destination = _drop_none({
            "bucket": dest.get("Bucket"),
            "account": dest.get("Account"),
            "storageClass": dest.get("StorageClass"),
            "encryptionConfiguration": _drop_none({
                "replicaKmsKeyId": dest.get("EncryptionConfiguration", {}).get("ReplicaKmsKeyID"),
            }) or None,
        })
        rules.append(_drop_none({
            "id": rule.get("ID"),
            "status": rule.get("Status"),
            "priority": rule.get("Priority"),
            "destination": destination,
        }))
    return _drop_none({"bucket": bucket, "region": region, "role": config.get("Role"), "rules": rules})


def ebs_volume(volume: dict[str, Any], region: str, account_id: str, partition: str = "aws") -> LiveResource:
    """One entry of DescribeVolumes."""
    vid = volume["VolumeId"]
    arn = f"arn:{partition}:ec2:{region}:{account_id}:volume/{vid}"
    props = _drop_none({
        "availabilityZone": volume.get("AvailabilityZone"),
        "encrypted": bool(volume.get("Encrypted")),
        "kmsKeyId": volume.get("KmsKeyId"),
        "size": volume.get("Size"),
        "type": volume.get("VolumeType"),
        "region": region,
        "arn": arn,
    })
    return LiveResource(VOLUME, vid, arn, region, props, frozenset({vid, arn}))


def ebs_snapshot(snapshot: dict[str, Any], region: str, partition: str = "aws") -> LiveResource:
    """One entry of DescribeSnapshots (OwnerIds=self)."""
    sid = snapshot["SnapshotId"]
    arn = f"arn:{partition}:ec2:{region}::snapshot/{sid}"
    props = _drop_none({
        "volumeId": snapshot.get("VolumeId"),
        "encrypted": bool(snapshot.get("Encrypted")),
        "kmsKeyId": snapshot.get("KmsKeyId"),
        "volumeSize": snapshot.get("VolumeSize"),
        "region": region,
        "arn": arn,
    })
    return LiveResource(SNAPSHOT, sid, arn, region, props, frozenset({sid, arn}))


def ebs_encryption_by_default(enabled: bool, region: str, account_id: str) -> LiveResource:
    """GetEbsEncryptionByDefault: an account setting per region, which Pulumi models as a resource."""
    return LiveResource(EBS_DEFAULT, f"ebs-encryption-by-default-{region}",
                        f"ebs-encryption-by-default:{account_id}:{region}", region,
                        {"enabled": bool(enabled), "region": region})


def kms_key(metadata: dict[str, Any], rotation_enabled: bool | None, aliases: list[str], region: str) -> LiveResource:
    """DescribeKey's KeyMetadata, GetKeyRotationStatus (None where rotation does not apply) and the key's aliases."""
    kid, arn = metadata["KeyId"], metadata["Arn"]
    props = _drop_none({
        "keyId": kid,
        "arn": arn,
        "description": metadata.get("Description") or None,
        "enableKeyRotation": rotation_enabled,
        "multiRegion": bool(metadata.get("MultiRegion")),
        "keyUsage": metadata.get("KeyUsage"),
        "customerMasterKeySpec": metadata.get("KeySpec") or metadata.get("CustomerMasterKeySpec"),
        "isEnabled": metadata.get("KeyState") == "Enabled",
        "region": region,
    })
    name = aliases[0].removeprefix("alias/") if aliases else kid
    return LiveResource(KMS_KEY, name, arn, region, props, frozenset({kid, arn, *aliases}))


def eks_cluster(cluster: dict[str, Any], region: str) -> LiveResource:
    """DescribeCluster's cluster. pulumi-aws v7 holds `encryptionConfig` as one object (the API's list of one)."""
    name, arn = cluster["name"], cluster["arn"]
    configs = cluster.get("encryptionConfig") or []
    encryption = None
    if configs:
        first = configs[0]
        encryption = {
            "resources": list(first.get("resources", [])),
            "provider": _drop_none({"keyArn": first.get("provider", {}).get("keyArn")}),
        }
    vpc = cluster.get("resourcesVpcConfig") or {}
    logged = [t for entry in (cluster.get("logging") or {}).get("clusterLogging", []) if entry.get("enabled")
              for t in entry.get("types", [])]
    props = _drop_none({
        "name": name,
        "arn": arn,
        "version": cluster.get("version"),
        "roleArn": cluster.get("roleArn"),
        "encryptionConfig": encryption,
        "vpcConfig": _drop_none({
            "endpointPublicAccess": vpc.get("endpointPublicAccess"),
            "endpointPrivateAccess": vpc.get("endpointPrivateAccess"),
            "publicAccessCidrs": vpc.get("publicAccessCidrs"),
            "subnetIds": vpc.get("subnetIds"),
        }),
        "enabledClusterLogTypes": sorted(logged),
        "region": region,
    })
    return LiveResource(EKS_CLUSTER, name, arn, region, props, frozenset({name, arn}))
