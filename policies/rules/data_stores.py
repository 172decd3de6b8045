"""Every data store of AWS and Azure is encrypted at rest with a customer-managed key held in an allowed place.

Each store type says where its encryption switch and its key are (`AWS_STORES`, `AZURE_STORES`); one judge
applies the same three questions to every one of them: is it encrypted, is the key customer-managed (not the
provider's own `alias/aws/*` or platform key), and is that key held in an allowed place (an ARN's region, or
the key, vault or disk encryption set this program creates, whose own place the residency rules judge).

A stack's policy config may accept provider-managed keys (`"allowProviderManagedKeys": true`, meant for the
dev and smb stacks); encryption itself is never optional, and `sahab check` reports the relaxation."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

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
    truthy,
)
from ..residency import place_allowed, place_of_reference

ENCRYPTION = (pdpl("Art. 20 (security of processing)"), iso27001("A.8.24"), iso27001("A.5.34"))
RELAX_SETTING = "allowProviderManagedKeys"
AWS_MANAGED_KEY = re.compile(r"(^|:)alias/aws/")


@dataclass(frozen=True)
class Point:
    """One place a store keeps data: whether it is encrypted, and with which key."""

    where: str  # e.g. "storageEncrypted/kmsKeyId" or "rootBlockDevice"
    encrypted: Any  # True/False/UNKNOWN/MISSING; True when the service always encrypts
    key: Any  # the key reference, UNKNOWN or MISSING (provider-managed)
    key_input: str  # the top-level input the key came from (for property dependencies)


Points = Callable[[ResourceView, Context], list[Point]]


ECR_PULL_THROUGH_PREFIX = "ecr-pullthroughcache/"


def _flag_and_key(flag: str | None, *key: str, always: bool = False) -> Points:
    def points(view: ResourceView, ctx: Context) -> list[Point]:
        encrypted = True if flag is None else lookup(view.props, *flag.split("."))
        return [Point(f"`{flag}`/`{'.'.join(key)}`" if flag else f"`{'.'.join(key)}`",
                      True if always else encrypted, lookup(view.props, *key), key[0])]

    return points


def _kinesis(view: ResourceView, ctx: Context) -> list[Point]:
    kind = lookup(view.props, "encryptionType")
    return [Point("`encryptionType`/`kmsKeyId`", kind if kind is UNKNOWN else kind == "KMS",
                  lookup(view.props, "kmsKeyId"), "kmsKeyId")]


def _secret(view: ResourceView, ctx: Context) -> list[Point]:
    # ECR reads a pull-through cache login only under Secrets Manager's AWS-managed key (AWS's ECR guide: "you
    # must use the default aws/secretsmanager encryption key"); such a secret carries the registry's login, and
    # its name marks it. Every other secret needs a customer-managed key.
    name = lookup(view.props, "name")
    if isinstance(name, str) and name.startswith(ECR_PULL_THROUGH_PREFIX):
        return []
    return _flag_and_key(None, "kmsKeyId")(view, ctx)


def _ecr(view: ResourceView, ctx: Context) -> list[Point]:
    configs = items(view.props, "encryptionConfigurations")
    if not configs:
        return [Point("`encryptionConfigurations`", True, MISSING, "encryptionConfigurations")]
    out = []
    for i, c in enumerate(configs):
        kind = lookup(c, "encryptionType")
        out.append(Point(f"`encryptionConfigurations[{i}]`", True,
                         lookup(c, "kmsKey") if kind in ("KMS", "KMS_DSSE", UNKNOWN) else MISSING,
                         "encryptionConfigurations"))
    return out


def _ebs_points(block: Any, where: str, key_input: str) -> Point:
    return Point(where, lookup(block, "encrypted"), lookup(block, "kmsKeyId"), key_input)


def _instance(view: ResourceView, ctx: Context) -> list[Point]:
    root = lookup(view.props, "rootBlockDevice")
    out = []
    if root is MISSING:
        if lookup(view.props, "launchTemplate") is MISSING:
            out.append(Point("root volume (no `rootBlockDevice` and no launch template)", MISSING, MISSING,
                             "rootBlockDevice"))
    else:
        out.append(_ebs_points(root, "`rootBlockDevice`", "rootBlockDevice"))
    for i, device in enumerate(items(view.props, "ebsBlockDevices")):
        out.append(_ebs_points(device, f"`ebsBlockDevices[{i}]`", "ebsBlockDevices"))
    return out


def _launch_template(view: ResourceView, ctx: Context) -> list[Point]:
    out = []
    for i, device in enumerate(items(view.props, "blockDeviceMappings")):
        ebs = lookup(device, "ebs")
        if device is UNKNOWN or ebs is MISSING:
            continue  # instance-store or unknown mappings: SAHAB-AWS-013 judges whether they are encrypted
        out.append(Point(f"`blockDeviceMappings[{i}].ebs`", lookup(ebs, "encrypted"), lookup(ebs, "kmsKeyId"),
                         "blockDeviceMappings"))
    return out


def _node_group(view: ResourceView, ctx: Context) -> list[Point]:
    if lookup(view.props, "launchTemplate") is not MISSING:
        return []  # its disks are the launch template's, judged there
    return [Point("node disks (no `launchTemplate`: the AMI's default volumes)", MISSING, MISSING, "launchTemplate")]


def _firehose(view: ResourceView, ctx: Context) -> list[Point]:
    sse = lookup(view.props, "serverSideEncryption")
    key_type = lookup(sse, "keyType")
    key = lookup(sse, "keyArn") if key_type in ("CUSTOMER_MANAGED_CMK", UNKNOWN) else MISSING
    return [Point("`serverSideEncryption`", lookup(sse, "enabled"), key, "serverSideEncryption")]


def _state_machine(view: ResourceView, ctx: Context) -> list[Point]:
    config = lookup(view.props, "encryptionConfiguration")
    kind = lookup(config, "type")
    key = lookup(config, "kmsKeyId") if kind in ("CUSTOMER_MANAGED_KMS_KEY", UNKNOWN) else MISSING
    return [Point("`encryptionConfiguration`", True, key, "encryptionConfiguration")]


def _athena(view: ResourceView, ctx: Context) -> list[Point]:
    """Query results, encrypted per the workgroup's result configuration (SSE_S3 is S3's own key)."""
    config = lookup(view.props, "configuration", "resultConfiguration", "encryptionConfiguration")
    option = lookup(config, "encryptionOption")
    key = lookup(config, "kmsKeyArn") if option in ("SSE_KMS", "CSE_KMS", UNKNOWN) else MISSING
    return [Point("`configuration.resultConfiguration.encryptionConfiguration`",
                  option if option is UNKNOWN else option is not MISSING, key, "configuration")]


def _glue_catalog(view: ResourceView, ctx: Context) -> list[Point]:
    rest = lookup(view.props, "dataCatalogEncryptionSettings", "encryptionAtRest")
    mode = lookup(rest, "catalogEncryptionMode")
    return [Point("`dataCatalogEncryptionSettings.encryptionAtRest`", mode if mode is UNKNOWN else mode == "SSE-KMS",
                  lookup(rest, "sseAwsKmsKeyId"), "dataCatalogEncryptionSettings")]


def _glue_security(view: ResourceView, ctx: Context) -> list[Point]:
    out = []
    for part, mode_key, wanted in (("s3Encryptions", "s3EncryptionMode", "SSE-KMS"),
                                   ("cloudwatchEncryption", "cloudwatchEncryptionMode", "SSE-KMS"),
                                   ("jobBookmarksEncryption", "jobBookmarksEncryptionMode", "CSE-KMS")):
        block = lookup(view.props, "encryptionConfiguration", part)
        if isinstance(block, list) or type(block).__name__ == "_ListProxy":
            block = lookup(block, 0)
        mode = lookup(block, mode_key)
        out.append(Point(f"`encryptionConfiguration.{part}`", mode if mode is UNKNOWN else mode == wanted,
                         lookup(block, "kmsKeyArn"), "encryptionConfiguration"))
    return out


def _mail_s3_actions(view: ResourceView, ctx: Context) -> list[Point]:
    """Mail an SES receipt rule stores in S3, encrypted by SES under the action's KMS key before it is written
    (where the bucket goes is the residency rules'; none set: the bucket's own encryption only)."""
    return [Point(f"`s3Actions[{i}].kmsKeyArn`", True, lookup(action, "kmsKeyArn"), "s3Actions")
            for i, action in enumerate(items(view.props, "s3Actions"))]


def _workspace(view: ResourceView, ctx: Context) -> list[Point]:
    """A WorkSpace's root and user volumes: each encrypted only when its switch is on (off by default), both under
    `volumeEncryptionKey` (AWS's `aws/workspaces` key when unset)."""
    key = lookup(view.props, "volumeEncryptionKey")
    return [Point(f"`{flag}`/`volumeEncryptionKey`", lookup(view.props, flag), key, "volumeEncryptionKey")
            for flag in ("rootVolumeEncryptionEnabled", "userVolumeEncryptionEnabled")]


def _chosen_key(switch: str, customer: str, key: str) -> Points:
    """A store that always encrypts, under a customer key only when the input at `switch` says so (`customer`, in
    any case): otherwise the provider's own key."""
    def points(view: ResourceView, ctx: Context) -> list[Point]:
        chosen = lookup(view.props, *switch.split("."))
        mine = chosen is UNKNOWN or (isinstance(chosen, str) and chosen.lower() == customer.lower())
        return [Point(f"`{switch}`/`{key}`", True, lookup(view.props, *key.split(".")) if mine else MISSING,
                      key.split(".")[0])]

    return points


def _keys_when_given(*paths: str) -> Points:
    """Keys for data the service writes into a store of the program's choosing (an S3 bucket, a log group), or for
    a configuration that holds no one's data (a firewall's rules): the store's own encryption, or the service's key,
    holds when no key is given; a key that is given must be held in an allowed place. Each path is dotted; a number
    steps into a list."""
    def points(view: ResourceView, ctx: Context) -> list[Point]:
        out = []
        for path in paths:
            steps = [int(step) if step.isdigit() else step for step in path.split(".")]
            key = lookup(view.props, *steps)
            if key is not MISSING:
                out.append(Point(f"`{path}`", True, key, str(steps[0])))
        return out

    return points


# EMR Serverless job logs: in EMR's own managed persistence (30 days, an AWS-owned key unless one is given), the
# program's bucket or its log group.
_EMR_SERVERLESS_LOGS = _keys_when_given(*(f"monitoringConfiguration.{block}.encryptionKeyArn" for block in (
    "managedPersistenceMonitoringConfiguration", "s3MonitoringConfiguration", "cloudwatchLoggingConfiguration")))


def _mq_broker(view: ResourceView, ctx: Context) -> list[Point]:
    """Messages at rest: an AWS-owned key unless `encryptionOptions.useAwsOwnedKey` is false (then `kmsKeyId`, or
    the account's aws/mq key)."""
    owned = lookup(view.props, "encryptionOptions", "useAwsOwnedKey")
    key = MISSING if owned is MISSING or truthy(owned) else lookup(view.props, "encryptionOptions", "kmsKeyId")
    return [Point("`encryptionOptions`", True, UNKNOWN if owned is UNKNOWN else key, "encryptionOptions")]


def _ecs_volume(view: ResourceView, ctx: Context) -> list[Point]:
    """The EBS volume ECS attaches to each task, when the service asks for one."""
    volume = lookup(view.props, "volumeConfiguration", "managedEbsVolume")
    if volume is MISSING:
        return []
    return [Point("`volumeConfiguration.managedEbsVolume`", lookup(volume, "encrypted"), lookup(volume, "kmsKeyId"),
                  "volumeConfiguration")]


AWS_STORES: dict[str, tuple[str, Points]] = {
    "aws:rds/instance:Instance": ("RDS instance", _flag_and_key("storageEncrypted", "kmsKeyId")),
    "aws:rds/cluster:Cluster": ("Aurora/RDS cluster", _flag_and_key("storageEncrypted", "kmsKeyId")),
    "aws:docdb/cluster:Cluster": ("DocumentDB cluster", _flag_and_key("storageEncrypted", "kmsKeyId")),
    "aws:neptune/cluster:Cluster": ("Neptune cluster", _flag_and_key("storageEncrypted", "kmsKeyArn")),
    "aws:dynamodb/table:Table": ("DynamoDB table", _flag_and_key(None, "serverSideEncryption", "kmsKeyArn")),
    # A replica of a global table holds the whole table; without `kmsKeyArn` it uses alias/aws/dynamodb.
    "aws:dynamodb/tableReplica:TableReplica": ("DynamoDB table replica", _flag_and_key(None, "kmsKeyArn")),
    "aws:efs/fileSystem:FileSystem": ("EFS file system", _flag_and_key("encrypted", "kmsKeyId")),
    "aws:fsx/lustreFileSystem:LustreFileSystem": ("FSx for Lustre", _flag_and_key(None, "kmsKeyId")),
    "aws:fsx/windowsFileSystem:WindowsFileSystem": ("FSx for Windows", _flag_and_key(None, "kmsKeyId")),
    "aws:fsx/ontapFileSystem:OntapFileSystem": ("FSx for ONTAP", _flag_and_key(None, "kmsKeyId")),
    "aws:fsx/openZfsFileSystem:OpenZfsFileSystem": ("FSx for OpenZFS", _flag_and_key(None, "kmsKeyId")),
    "aws:elasticache/replicationGroup:ReplicationGroup": (
        "ElastiCache replication group", _flag_and_key("atRestEncryptionEnabled", "kmsKeyId")),
    "aws:elasticache/serverlessCache:ServerlessCache": ("ElastiCache serverless cache",
                                                        _flag_and_key(None, "kmsKeyId")),
    "aws:elasticache/cluster:Cluster": ("ElastiCache cluster (no at-rest encryption; use a replication group)",
                                        lambda v, c: [Point("the cluster resource", False, MISSING, "engine")]),
    "aws:memorydb/cluster:Cluster": ("MemoryDB cluster", _flag_and_key(None, "kmsKeyArn")),
    "aws:opensearch/domain:Domain": ("OpenSearch domain", _flag_and_key("encryptAtRest.enabled", "encryptAtRest",
                                                                         "kmsKeyId")),
    "aws:elasticsearch/domain:Domain": ("Elasticsearch domain", _flag_and_key("encryptAtRest.enabled",
                                                                               "encryptAtRest", "kmsKeyId")),
    "aws:redshift/cluster:Cluster": ("Redshift cluster", _flag_and_key("encrypted", "kmsKeyId")),
    "aws:redshiftserverless/namespace:Namespace": ("Redshift Serverless namespace", _flag_and_key(None, "kmsKeyId")),
    "aws:kinesis/stream:Stream": ("Kinesis stream", _kinesis),
    "aws:kinesis/firehoseDeliveryStream:FirehoseDeliveryStream": ("Firehose delivery stream", _firehose),
    "aws:msk/cluster:Cluster": ("MSK cluster", _flag_and_key(None, "encryptionInfo", "encryptionAtRestKmsKeyArn")),
    "aws:sqs/queue:Queue": ("SQS queue", _flag_and_key(None, "kmsMasterKeyId")),
    # DMS keeps the tables in flight on the replication instance's storage, and an endpoint's connection settings,
    # under these keys; where an endpoint sends the data is the residency rules' (the egress model).
    "aws:dms/replicationInstance:ReplicationInstance": ("DMS replication instance", _flag_and_key(None, "kmsKeyArn")),
    "aws:dms/endpoint:Endpoint": ("DMS endpoint (connection settings)", _flag_and_key(None, "kmsKeyArn")),
    "aws:dms/s3Endpoint:S3Endpoint": ("DMS S3 endpoint (connection settings)", _flag_and_key(None, "kmsKeyArn")),
    "aws:ses/receiptRule:ReceiptRule": ("SES receipt rule (mail stored in S3)", _mail_s3_actions),
    "aws:opensearchingest/pipeline:Pipeline": ("OpenSearch Ingestion pipeline (persistent buffer)",
                                               _flag_and_key(None, "encryptionAtRestOptions", "kmsKeyArn")),
    "aws:sns/topic:Topic": ("SNS topic", _flag_and_key(None, "kmsMasterKeyId")),
    "aws:secretsmanager/secret:Secret": ("Secrets Manager secret", _secret),
    "aws:cloudwatch/logGroup:LogGroup": ("CloudWatch log group", _flag_and_key(None, "kmsKeyId")),
    "aws:ecr/repository:Repository": ("ECR repository", _ecr),
    "aws:ecr/repositoryCreationTemplate:RepositoryCreationTemplate": ("ECR repository creation template", _ecr),
    "aws:backup/vault:Vault": ("Backup vault", _flag_and_key(None, "kmsKeyArn")),
    "aws:glue/dataCatalogEncryptionSettings:DataCatalogEncryptionSettings": ("Glue Data Catalog", _glue_catalog),
    "aws:glue/securityConfiguration:SecurityConfiguration": ("Glue security configuration", _glue_security),
    "aws:sagemaker/notebookInstance:NotebookInstance": ("SageMaker notebook", _flag_and_key(None, "kmsKeyId")),
    "aws:sagemaker/domain:Domain": ("SageMaker domain", _flag_and_key(None, "kmsKeyId")),
    "aws:sagemaker/endpointConfiguration:EndpointConfiguration": ("SageMaker endpoint configuration",
                                                                  _flag_and_key(None, "kmsKeyArn")),
    "aws:sagemaker/featureGroup:FeatureGroup": ("SageMaker feature group",
                                                _flag_and_key(None, "offlineStoreConfig", "s3StorageConfig",
                                                              "kmsKeyId")),
    "aws:timestreamwrite/database:Database": ("Timestream database", _flag_and_key(None, "kmsKeyId")),
    "aws:ebs/volume:Volume": ("EBS volume", _flag_and_key("encrypted", "kmsKeyId")),
    "aws:ec2/amiCopy:AmiCopy": ("AMI copy", _flag_and_key("encrypted", "kmsKeyId")),
    "aws:lambda/function:Function": ("Lambda function (code and environment)", _flag_and_key(None, "kmsKeyArn")),
    "aws:sfn/stateMachine:StateMachine": ("Step Functions state machine (execution data)", _state_machine),
    "aws:cloudwatch/eventBus:EventBus": ("EventBridge event bus", _flag_and_key(None, "kmsKeyIdentifier")),
    "aws:cloudtrail/trail:Trail": ("CloudTrail trail (log files)", _flag_and_key(None, "kmsKeyId")),
    "aws:athena/workgroup:Workgroup": ("Athena workgroup (query results)", _athena),
    "aws:ec2/instance:Instance": ("EC2 instance volumes", _instance),
    "aws:ec2/launchTemplate:LaunchTemplate": ("launch template volumes", _launch_template),
    "aws:eks/nodeGroup:NodeGroup": ("EKS node group disks", _node_group),
    "aws:workspaces/workspace:Workspace": ("WorkSpace volumes", _workspace),
    "aws:backup/logicallyAirGappedVault:LogicallyAirGappedVault": ("logically air-gapped backup vault",
                                                                   _flag_and_key(None, "encryptionKeyArn")),
    # `DEFAULT`: the account's EBS default key.
    "aws:drs/replicationConfigurationTemplate:ReplicationConfigurationTemplate": (
        "DRS replicated disks", _chosen_key("ebsEncryption", "CUSTOM", "ebsEncryptionKeyArn")),
    "aws:codebuild/project:Project": ("CodeBuild project (build artifacts)", _flag_and_key(None, "encryptionKey")),
    "aws:codebuild/reportGroup:ReportGroup": ("CodeBuild report export",
                                              _keys_when_given("exportConfig.s3Destination.encryptionKey")),
    "aws:codeartifact/domain:Domain": ("CodeArtifact domain (packages)", _flag_and_key(None, "encryptionKey")),
    "aws:customerprofiles/domain:Domain": ("Customer Profiles domain", _flag_and_key(None, "defaultEncryptionKey")),
    "aws:emr/studio:Studio": ("EMR Studio (workspace and notebook backups)", _flag_and_key(None, "encryptionKeyArn")),
    "aws:emrserverless/application:Application": ("EMR Serverless application (job logs)", _EMR_SERVERLESS_LOGS),
    "aws:bedrock/agentAgent:AgentAgent": ("Bedrock agent", _flag_and_key(None, "customerEncryptionKeyArn")),
    "aws:bedrock/agentFlow:AgentFlow": ("Bedrock flow", _flag_and_key(None, "customerEncryptionKeyArn")),
    "aws:bedrock/agentPrompt:AgentPrompt": ("Bedrock prompt", _flag_and_key(None, "customerEncryptionKeyArn")),
    "aws:bedrock/agentcoreMemory:AgentcoreMemory": ("Bedrock AgentCore memory",
                                                    _flag_and_key(None, "encryptionKeyArn")),
    "aws:bedrock/agentcorePolicyEngine:AgentcorePolicyEngine": ("Bedrock AgentCore policy engine",
                                                                _flag_and_key(None, "encryptionKeyArn")),
    "aws:bedrock/agentcoreHarness:AgentcoreHarness": (
        "Bedrock AgentCore harness memory", _keys_when_given("memory.managedMemoryConfiguration.encryptionKeyArn")),
    "aws:bedrock/evaluationJob:EvaluationJob": ("Bedrock evaluation job",
                                                _flag_and_key(None, "customerEncryptionKeyId")),
    "aws:bedrockmodel/invocationJob:InvocationJob": (
        "Bedrock batch inference output", _keys_when_given("outputDataConfig.s3OutputDataConfig.s3EncryptionKeyId")),
    "aws:kinesisanalyticsv2/application:Application": ("Managed Flink application (state and snapshots)", _chosen_key(
        "applicationConfiguration.applicationEncryptionConfiguration.keyType", "CUSTOMER_MANAGED_KEY",
        "applicationConfiguration.applicationEncryptionConfiguration.keyId")),
    "aws:connect/instanceStorageConfig:InstanceStorageConfig": ("Connect recordings and transcripts", _keys_when_given(
        "storageConfig.s3Config.encryptionConfig.keyId",
        "storageConfig.kinesisVideoStreamConfig.encryptionConfig.keyId")),
    "aws:networkfirewall/firewall:Firewall": ("Network Firewall", _keys_when_given("encryptionConfiguration.keyId")),
    "aws:networkfirewall/firewallPolicy:FirewallPolicy": ("Network Firewall policy",
                                                          _keys_when_given("encryptionConfiguration.keyId")),
    "aws:networkfirewall/ruleGroup:RuleGroup": ("Network Firewall rule group",
                                                _keys_when_given("encryptionConfiguration.keyId")),
    "aws:networkfirewall/tlsInspectionConfiguration:TlsInspectionConfiguration": (
        "Network Firewall TLS inspection configuration", _keys_when_given("encryptionConfigurations.0.keyId")),
    # Keys for what a service writes into the program's bucket (judged there) or for settings that hold no one's
    # data: a given key must be held in an allowed place. An Aurora or DocumentDB instance keeps its data in its
    # cluster's storage; its own key is Performance Insights'.
    "aws:rds/clusterInstance:ClusterInstance": ("Aurora instance (Performance Insights)",
                                                _keys_when_given("performanceInsightsKmsKeyId")),
    "aws:docdb/clusterInstance:ClusterInstance": ("DocumentDB instance (Performance Insights)",
                                                  _keys_when_given("performanceInsightsKmsKeyId")),
    "aws:lambda/eventSourceMapping:EventSourceMapping": ("Lambda event source mapping (filter criteria)",
                                                         _keys_when_given("kmsKeyArn")),
    "aws:s3/inventory:Inventory": ("S3 inventory report",
                                   _keys_when_given("destination.bucket.encryption.sseKms.keyId")),
    "aws:s3control/storageLensConfiguration:StorageLensConfiguration": ("Storage Lens export", _keys_when_given(
        "storageLensConfiguration.dataExport.s3BucketDestination.encryption.sseKms.keyId")),
    "aws:dynamodb/tableExport:TableExport": ("DynamoDB export to S3", _keys_when_given("s3SseKmsKeyId")),
    "aws:emr/cluster:Cluster": ("EMR cluster logs", _keys_when_given("logEncryptionKmsKeyId")),
    "aws:sagemaker/trainingJob:TrainingJob": ("SageMaker training job", _keys_when_given(
        "outputDataConfig.kmsKeyId", "resourceConfig.volumeKmsKeyId")),
    "aws:ecs/cluster:Cluster": ("ECS cluster (exec sessions and Fargate storage)", _keys_when_given(
        "configuration.executeCommandConfiguration.kmsKeyId", "configuration.managedStorageConfiguration.kmsKeyId",
        "configuration.managedStorageConfiguration.fargateEphemeralStorageKmsKeyId")),
    "aws:ecs/service:Service": ("ECS service managed EBS volumes", _ecs_volume),
    "aws:cfg/deliveryChannel:DeliveryChannel": ("Config delivery channel", _keys_when_given("s3KmsKeyArn")),
    "aws:ssm/resourceDataSync:ResourceDataSync": ("SSM resource data sync",
                                                  _keys_when_given("s3Destination.kmsKeyArn")),
    "aws:synthetics/canary:Canary": ("Synthetics canary (artifacts)", _keys_when_given(
        "kmsKeyArn", "artifactConfig.s3Encryption.kmsKeyArn")),
    "aws:athena/database:Database": ("Athena database (query results)",
                                     _keys_when_given("encryptionConfiguration.kmsKey")),
    "aws:pipes/pipe:Pipe": ("EventBridge pipe", _keys_when_given("kmsKeyIdentifier")),
    "aws:efs/replicationConfiguration:ReplicationConfiguration": ("EFS replica",
                                                                  _keys_when_given("destination.kmsKeyId")),
    "aws:imagebuilder/component:Component": ("Image Builder component", _keys_when_given("kmsKeyId")),
    "aws:imagebuilder/workflow:Workflow": ("Image Builder workflow", _keys_when_given("kmsKeyId")),
    "aws:imagebuilder/imageRecipe:ImageRecipe": ("Image Builder recipe volumes", _launch_template),
    "aws:imagebuilder/distributionConfiguration:DistributionConfiguration": (
        "Image Builder AMI distribution", lambda v, c: [
            p for i, _ in enumerate(items(v.props, "distributions"))
            for p in _keys_when_given(f"distributions.{i}.amiDistributionConfiguration.kmsKeyId")(v, c)]),
    # Stores that keep data under an AWS key unless a customer key is given.
    "aws:rds/exportTask:ExportTask": ("RDS export to S3", _flag_and_key(None, "kmsKeyId")),
    "aws:rds/instanceAutomatedBackupsReplication:InstanceAutomatedBackupsReplication": (
        "RDS replicated automated backups", _flag_and_key(None, "kmsKeyId")),
    "aws:rds/clusterActivityStream:ClusterActivityStream": ("Aurora database activity stream",
                                                            _flag_and_key(None, "kmsKeyId")),
    "aws:ebs/snapshotImport:SnapshotImport": ("imported EBS snapshot", _flag_and_key("encrypted", "kmsKeyId")),
    "aws:dms/replicationConfig:ReplicationConfig": ("DMS Serverless replication",
                                                    _flag_and_key(None, "computeConfig", "kmsKeyId")),
    "aws:mq/broker:Broker": ("MQ broker", _mq_broker),
    "aws:cloudwatch/eventConnection:EventConnection": ("EventBridge connection (credentials)",
                                                       _flag_and_key(None, "kmsKeyIdentifier")),
    "aws:cloudwatch/eventArchive:EventArchive": ("EventBridge archive", _flag_and_key(None, "kmsKeyIdentifier")),
    "aws:scheduler/schedule:Schedule": ("EventBridge schedule (its input)", _flag_and_key(None, "kmsKeyArn")),
    "aws:amp/workspace:Workspace": ("Managed Prometheus workspace", _flag_and_key(None, "kmsKeyArn")),
    "aws:grafana/workspace:Workspace": ("Managed Grafana workspace", _flag_and_key(None, "kmsKeyId")),
    "aws:codecommit/repository:Repository": ("CodeCommit repository", _flag_and_key(None, "kmsKeyId")),
    "aws:apprunner/service:Service": ("App Runner service", _flag_and_key(None, "encryptionConfiguration", "kmsKey")),
    "aws:kinesis/videoStream:VideoStream": ("Kinesis video stream", _flag_and_key(None, "kmsKeyId")),
    "aws:cloudtrail/eventDataStore:EventDataStore": ("CloudTrail Lake event data store",
                                                     _flag_and_key(None, "kmsKeyId")),
    "aws:docdb/elasticCluster:ElasticCluster": ("DocumentDB elastic cluster", _flag_and_key(None, "kmsKeyId")),
    "aws:memorydb/snapshot:Snapshot": ("MemoryDB snapshot", _flag_and_key(None, "kmsKeyArn")),
    "aws:rds/snapshotCopy:SnapshotCopy": ("RDS snapshot copy", _flag_and_key(None, "kmsKeyId")),
    "aws:rds/clusterSnapshotCopy:ClusterSnapshotCopy": ("Aurora snapshot copy", _flag_and_key(None, "kmsKeyId")),
    "aws:neptunegraph/graph:Graph": ("Neptune Analytics graph", _flag_and_key(None, "kmsKeyIdentifier")),
    "aws:fsx/fileCache:FileCache": ("FSx file cache", _flag_and_key(None, "kmsKeyId")),
    "aws:mwaa/environment:Environment": ("MWAA environment", _flag_and_key(None, "kmsKey")),
    "aws:kendra/index:Index": ("Kendra index", _flag_and_key(None, "serverSideEncryptionConfiguration", "kmsKeyId")),
    "aws:bedrock/customModel:CustomModel": ("Bedrock custom model", _flag_and_key(None, "customModelKmsKeyId")),
    "aws:bedrock/guardrail:Guardrail": ("Bedrock guardrail", _flag_and_key(None, "kmsKeyArn")),
    "aws:sfn/activity:Activity": ("Step Functions activity (task data)", _state_machine),
    "aws:s3tables/tableBucket:TableBucket": ("S3 table bucket", _chosen_key(
        "encryptionConfiguration.sseAlgorithm", "aws:kms", "encryptionConfiguration.kmsKeyArn")),
    "aws:s3tables/table:Table": ("S3 table", _chosen_key(
        "encryptionConfiguration.sseAlgorithm", "aws:kms", "encryptionConfiguration.kmsKeyArn")),
    "aws:keyspaces/table:Table": ("Keyspaces table", _chosen_key(
        "encryptionSpecification.type", "CUSTOMER_MANAGED_KMS_KEY", "encryptionSpecification.kmsKeyIdentifier")),
}


def _des(*path: str) -> Points:
    """An Azure store that always encrypts, with the customer-managed key (a disk encryption set or a Key Vault
    key) at `path`; none there is a platform key."""
    def points(view: ResourceView, ctx: Context) -> list[Point]:
        return [Point(f"`{'.'.join(path)}`", True, lookup(view.props, *path), path[0])]

    return points


def _storage_account(view: ResourceView, ctx: Context) -> list[Point]:
    source = lookup(view.props, "encryption", "keySource")
    vault = lookup(view.props, "encryption", "keyVaultProperties", "keyVaultUri")
    key = vault if source in ("Microsoft.Keyvault", UNKNOWN) else MISSING
    if key is MISSING and source in ("Microsoft.Keyvault", UNKNOWN):
        key = lookup(view.props, "encryption", "keyVaultProperties", "keyName")
    return [Point("`encryption.keySource`/`keyVaultProperties`", True, key, "encryption")]


def _vm(view: ResourceView, ctx: Context) -> list[Point]:
    profile = lookup(view.props, "storageProfile")
    out = [Point("`storageProfile.osDisk`", True,
                 lookup(profile, "osDisk", "managedDisk", "diskEncryptionSet", "id"), "storageProfile")]
    for i, disk in enumerate(items(profile, "dataDisks")):
        out.append(Point(f"`storageProfile.dataDisks[{i}]`", True,
                         lookup(disk, "managedDisk", "diskEncryptionSet", "id"), "storageProfile"))
    return out


def _scale_set(view: ResourceView, ctx: Context) -> list[Point]:
    profile = lookup(view.props, "virtualMachineProfile", "storageProfile")
    out = [Point("`virtualMachineProfile.storageProfile.osDisk`", True,
                 lookup(profile, "osDisk", "managedDisk", "diskEncryptionSet", "id"), "virtualMachineProfile")]
    for i, disk in enumerate(items(profile, "dataDisks")):
        out.append(Point(f"`virtualMachineProfile.storageProfile.dataDisks[{i}]`", True,
                         lookup(disk, "managedDisk", "diskEncryptionSet", "id"), "virtualMachineProfile"))
    return out


def _sql_server(view: ResourceView, ctx: Context) -> list[Point]:
    key = lookup(view.props, "keyId")
    if key is MISSING:
        # A separate EncryptionProtector with a Key Vault key protects the server's TDE as well.
        for protector in ctx.referencing(view, "serverName", *SQL_PROTECTORS):
            if lookup(protector.props, "serverKeyType") in ("AzureKeyVault", UNKNOWN):
                key = lookup(protector.props, "uri")
                key = UNKNOWN if key is MISSING else key
                break
    return [Point("TDE protector (`keyId` or an EncryptionProtector)", True, key, "keyId")]


def _postgres(view: ResourceView, ctx: Context) -> list[Point]:
    kind = lookup(view.props, "dataEncryption", "type")
    key = lookup(view.props, "dataEncryption", "primaryKeyURI") if kind in ("AzureKeyVault", UNKNOWN) else MISSING
    return [Point("`dataEncryption`", True, key, "dataEncryption")]


NETAPP_ACCOUNTS = ("azure-native:netapp:Account",)


def _netapp_key(view: ResourceView, ctx: Context, source: Any) -> Any:
    """The key an Azure NetApp Files volume is encrypted with: `encryptionKeySource: Microsoft.KeyVault` takes its
    NetApp account's customer-managed key (the account's `encryption.keyVaultProperties`); `Microsoft.NetApp`, the
    default, a platform key (MISSING). The key of an account this program does not create is unknown."""
    if source is UNKNOWN:
        return UNKNOWN
    if not (isinstance(source, str) and source.lower() == "microsoft.keyvault"):
        return MISSING
    account = ctx.resolve(lookup(view.props, "accountName"), view.property_dependencies.get("accountName", ()),
                          NETAPP_ACCOUNTS)
    if account is None:
        return UNKNOWN
    vault = lookup(account.props, "encryption", "keyVaultProperties")
    key = lookup(vault, "keyVaultUri")
    return lookup(vault, "keyVaultResourceId") if key is MISSING else key


def _netapp_account(view: ResourceView, ctx: Context) -> list[Point]:
    """A NetApp account holds the key its volumes are encrypted with (`encryption.keySource: Microsoft.KeyVault` and
    its `keyVaultProperties`); `Microsoft.NetApp`, the default, is a platform key."""
    source = lookup(view.props, "encryption", "keySource")
    vault = lookup(view.props, "encryption", "keyVaultProperties")
    key = lookup(vault, "keyVaultUri")
    key = lookup(vault, "keyVaultResourceId") if key is MISSING else key
    if source is not UNKNOWN and not (isinstance(source, str) and source.lower() == "microsoft.keyvault"):
        key = MISSING
    return [Point("`encryption.keySource`/`keyVaultProperties`", True, UNKNOWN if source is UNKNOWN else key,
                  "encryption")]


def _netapp_volume(view: ResourceView, ctx: Context) -> list[Point]:
    return [Point("`encryptionKeySource` (its NetApp account's key)", True,
                  _netapp_key(view, ctx, lookup(view.props, "encryptionKeySource")), "accountName")]


def _netapp_volume_group(view: ResourceView, ctx: Context) -> list[Point]:
    return [Point(f"`volumes[{i}].encryptionKeySource` (its NetApp account's key)", True,
                  _netapp_key(view, ctx, lookup(volume, "encryptionKeySource")), "accountName")
            for i, volume in enumerate(items(view.props, "volumes"))]


def _dev_box_disks(view: ResourceView, ctx: Context) -> list[Point]:
    """A Dev Center encryption set: Dev Box disks take its key only when `devboxDisksEncryptionEnableStatus` is
    `Enabled`; otherwise a platform key."""
    status = lookup(view.props, "devboxDisksEncryptionEnableStatus")
    key = lookup(view.props, "keyEncryptionKeyUrl") if status in ("Enabled", UNKNOWN) else MISSING
    return [Point("`devboxDisksEncryptionEnableStatus`/`keyEncryptionKeyUrl`", True, key, "keyEncryptionKeyUrl")]


# Azure services that always encrypt at rest, under a platform key unless `customerManagedKeyEncryption` names one.
CMK_ENCRYPTION = ("encryption", "customerManagedKeyEncryption", "keyEncryptionKeyUrl")
SQL_PROTECTORS = ("azure-native:sql:EncryptionProtector",)
AZURE_STORES: dict[str, tuple[str, Points]] = {
    "azure-native:storage:StorageAccount": ("storage account", _storage_account),
    "azure-native:compute:Disk": ("managed disk", _des("encryption", "diskEncryptionSetId")),
    "azure-native:compute:VirtualMachine": ("virtual machine disks", _vm),
    "azure-native:compute:VirtualMachineScaleSet": ("scale set disks", _scale_set),
    "azure-native:containerservice:ManagedCluster": ("AKS node disks", _des("diskEncryptionSetID")),
    "azure-native:sql:Server": ("SQL server (TDE)", _sql_server),
    "azure-native:cosmosdb:DatabaseAccount": ("Cosmos DB account", _des("keyVaultKeyUri")),
    "azure-native:synapse:Workspace": ("Synapse workspace", _des("encryption", "cmk", "key", "keyVaultUrl")),
    "azure-native:dbforpostgresql:Server": ("PostgreSQL flexible server", _postgres),
    "azure-native:dbformysql:Server": ("MySQL flexible server", _postgres),
    "azure-native:containerinstance:ContainerGroup": ("container group",
                                                       _des("encryptionProperties", "keyVaultProperties",
                                                            "keyVaultUri")),
    "azure-native:netapp:Account": ("NetApp account", _netapp_account),
    "azure-native:netapp:CapacityPoolVolume": ("NetApp volume", _netapp_volume),
    "azure-native:netapp:VolumeGroup": ("NetApp volume group", _netapp_volume_group),
    "azure-native:healthcareapis:FhirService": ("FHIR service (health records)", _des(*CMK_ENCRYPTION)),
    "azure-native:healthcareapis:DicomService": ("DICOM service (medical images)", _des(*CMK_ENCRYPTION)),
    "azure-native:redisenterprise:RedisEnterprise": ("Redis Enterprise cluster", _des(*CMK_ENCRYPTION)),
    "azure-native:fluidrelay:FluidRelayServer": ("Fluid Relay server", _des(*CMK_ENCRYPTION)),
    "azure-native:devcenter:DevCenter": ("Dev Center", _des(*CMK_ENCRYPTION)),
    "azure-native:devcenter:EncryptionSet": ("Dev Center encryption set (Dev Box disks)", _dev_box_disks),
    "azure-native:maps:Account": ("Azure Maps account", _des("properties", *CMK_ENCRYPTION)),
    "azure-native:onlineexperimentation:OnlineExperimentationWorkspace": (
        "online experimentation workspace", _des("properties", *CMK_ENCRYPTION)),
    "azure-native:storagecache:AmlFilesystem": ("Azure Managed Lustre file system",
                                                _des("encryptionSettings", "keyEncryptionKey", "keyUrl")),
    "azure-native:storagecache:Cache": ("HPC Cache", _des("encryptionSettings", "keyEncryptionKey", "keyUrl")),
    "azure-native:recoveryservices:Vault": ("Recovery Services vault (backups)",
                                            _des("properties", "encryption", "keyVaultProperties", "keyUri")),
    "azure-native:dataprotection:BackupVault": ("Data Protection backup vault", _des("properties", "securitySettings",
                                                                     "encryptionSettings", "keyVaultProperties",
                                                                     "keyUri")),
    "azure-native:appconfiguration:ConfigurationStore": ("App Configuration store",
                                                         _des("encryption", "keyVaultProperties", "keyIdentifier")),
    "azure-native:batch:BatchAccount": ("Batch account", _chosen_key("encryption.keySource", "Microsoft.KeyVault",
                                                                     "encryption.keyVaultProperties.keyIdentifier")),
    "azure-native:storage:EncryptionScope": ("storage encryption scope", _chosen_key(
        "source", "Microsoft.KeyVault", "keyVaultProperties.keyUri")),
    "azure-native:dbforpostgresql:ServerGroupCluster": ("Cosmos DB for PostgreSQL cluster", _chosen_key(
        "dataEncryption.type", "AzureKeyVault", "dataEncryption.primaryKeyUri")),
    "azure-native:databasefleetmanager:FleetDatabase": ("fleet database (TDE)", _des(
        "properties", "transparentDataEncryption", "keyUri")),
    "azure-native:loadtestservice:LoadTest": ("Azure Load Testing resource", _des("encryption", "keyUrl")),
    "azure-native:manufacturingplatform:ManufacturingDataService": ("Manufacturing Data Service",
                                                                    _des("properties", "cmkProfile", "keyUri")),
    # Its TDE protector: `keyId`, a Key Vault key (no separate protector resource for a managed instance).
    "azure-native:sql:ManagedInstance": ("SQL managed instance (TDE)", _des("keyId")),
    # Container Apps environments keep no one's data on their disks unless a key says so; a given key is judged.
    "azure-native:app:ManagedEnvironment": ("Container Apps environment (disks)", _keys_when_given(
        "diskEncryptionConfiguration.keyVaultConfiguration.keyUrl")),
    "azure-native:machinelearningservices:Workspace": ("Azure Machine Learning workspace", _chosen_key(
        "encryption.status", "Enabled", "encryption.keyVaultProperties.keyIdentifier")),
    "azure-native:cognitiveservices:Account": ("Azure AI services account", _chosen_key(
        "properties.encryption.keySource", "Microsoft.KeyVault",
        "properties.encryption.keyVaultProperties.keyVaultUri")),
    "azure-native:kusto:Cluster": ("Data Explorer cluster", _des("keyVaultProperties", "keyVaultUri")),
    "azure-native:operationalinsights:Cluster": ("Log Analytics dedicated cluster",
                                                 _des("keyVaultProperties", "keyVaultUri")),
    "azure-native:compute:Snapshot": ("disk snapshot", _des("encryption", "diskEncryptionSetId")),
    # One instance of a scale set, with the same storage profile as a virtual machine.
    "azure-native:compute:VirtualMachineScaleSetVM": ("scale set instance disks", _vm),
}


def _key_place_problem(view: ResourceView, ctx: Context, point: Point) -> str | None:
    """Why the key is not shown to be held in an allowed place; None when it is. The key's place comes from the
    one resolver: the key, vault or disk encryption set of this program it names, else what the reference shows
    (an ARN's region, a vault's host); a bare key id or alias lives in the store's own region."""
    key = point.key
    if not isinstance(key, str):
        return f"{point.where}: the key reference is {key!r}, not an id, ARN or URI"
    deps = view.property_dependencies.get(point.key_input, ())
    place = place_of_reference(key, ctx, deps)
    if place_allowed(place, ctx):
        return None
    if isinstance(place.value, str):
        return f"{point.where}: the key is held in {place.value!r} ({place.source}), outside the allowed places"
    if any(r.type != view.type for urn in deps if (r := ctx.by_urn(urn)) is not None):
        return None  # computed from a key, vault or set of this program, whose place the residency rules judge
    if not key.startswith(("arn:", "https://", "/subscriptions/")):
        return None  # a key id or alias, resolved in the store's own region
    return f"{point.where}: the key {key} is not created by this program and its place cannot be shown " \
           f"({place.source})"


def judge(view: ResourceView, ctx: Context, what: str, points: list[Point]) -> Iterator[Finding]:
    relaxed = truthy(ctx.settings.get(RELAX_SETTING))
    for point in points:
        if point.encrypted is UNKNOWN:
            yield from ctx.still_unknown(f"{what} {view.name!r}: {point.where} (whether it is encrypted)", view.urn)
            continue
        if not truthy(point.encrypted):
            yield Finding(f"{what} {view.name!r}: {point.where} is not encrypted at rest "
                          f"(encryption is {describe(point.encrypted)})", view.urn)
            continue
        if point.key is UNKNOWN:
            if not any(ctx.by_urn(u) is not None for u in view.property_dependencies.get(point.key_input, ())):
                yield from ctx.still_unknown(f"{what} {view.name!r}: the key at {point.where}", view.urn)
            continue
        provider_managed = point.key is MISSING or point.key == "" or (
            isinstance(point.key, str) and bool(AWS_MANAGED_KEY.search(point.key)))
        if provider_managed:
            if not relaxed:
                yield Finding(f"{what} {view.name!r}: {point.where} uses a provider-managed key, not a "
                              "customer-managed key", view.urn)
            continue
        problem = _key_place_problem(view, ctx, point)
        if problem:
            yield Finding(f"{what} {view.name!r}: {problem}", view.urn)


def _judge_all(ctx: Context, stores: dict[str, tuple[str, Points]]) -> Iterator[Finding]:
    for type_, (what, points) in stores.items():
        for view in ctx.of_type(type_):
            yield from judge(view, ctx, what, points(view, ctx))


RELAX_SCHEMA = {RELAX_SETTING: {"type": "boolean", "default": False,
                                "description": "Accept provider-managed keys (dev and smb stacks only); data "
                                               "stores must still be encrypted."}}


@rule(id="SAHAB-AWS-030", name="aws-storage-datastore-encrypted-cmk",
      title="Every AWS data store is encrypted with a customer-managed key held in the UAE",
      description="Every AWS data store the pack knows is encrypted at rest with a customer-managed KMS key whose "
                  "region is allowed: RDS/Aurora, DynamoDB, EFS, FSx, ElastiCache, MemoryDB, OpenSearch, Redshift, "
                  "Kinesis, MSK, SQS, SNS, Secrets Manager, CloudWatch Logs, ECR, Backup, Glue, SageMaker, EBS and "
                  "instance volumes, WorkSpaces, Bedrock, MQ and the rest of AWS_STORES in "
                  "policies/rules/data_stores.py. A service that only writes into the program's own bucket or log "
                  "group (an inventory, an export, a Config delivery channel) keeps that store's key; a key it is "
                  "given must be held in an allowed place.",
      remediation="Create an `aws.kms.Key` (rotation on, single-Region) in me-central-1 and pass its ARN as the "
                  "store's KMS key (`kms_key_id`, `kms_master_key_id`, `kms_key_arn`, ...), with encryption on.",
      severity=Severity.HIGH, frameworks=ENCRYPTION, enforcement=Enforcement.MANDATORY, residency=False,
      unknown=Unknown.FAILS_AFTER_UPDATE, scope="stack", settings=RELAX_SCHEMA, covers=tuple(AWS_STORES))
def aws_datastore_cmk(ctx: Context):
    yield from _judge_all(ctx, AWS_STORES)


@rule(id="SAHAB-AZ-030", name="azure-storage-datastore-encrypted-cmk",
      title="Every Azure data store is encrypted with a customer-managed key held in the UAE",
      description="Every Azure data store the pack knows uses a customer-managed key (Key Vault key or disk "
                  "encryption set) that this program creates in an allowed location: storage accounts, disks and VM "
                  "disks, AKS node disks, SQL servers and managed instances, Cosmos DB, PostgreSQL/MySQL, NetApp "
                  "Files, Managed Lustre, FHIR and DICOM, Azure Machine Learning, Azure AI services, backup vaults "
                  "and the rest of AZURE_STORES in policies/rules/data_stores.py.",
      remediation="Create a Key Vault (purge protection on) and key in uaenorth, a disk encryption set for disks, "
                  "and point the store's encryption at them (`encryption.key_source=\"Microsoft.Keyvault\"`, "
                  "`disk_encryption_set_id`, `key_vault_key_uri`, `key_id`).",
      severity=Severity.HIGH, frameworks=ENCRYPTION, enforcement=Enforcement.MANDATORY, residency=False,
      unknown=Unknown.FAILS_AFTER_UPDATE, scope="stack", settings=RELAX_SCHEMA, covers=tuple(AZURE_STORES))
def azure_datastore_cmk(ctx: Context):
    yield from _judge_all(ctx, AZURE_STORES)
