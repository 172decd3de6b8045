"""The egress model and the endpoint table: data the rules read, generated from the SDKs or read from vendors'
documentation, kept in step with what is installed and what the world says.

When a provider SDK is upgraded, `test_the_model_is_generated_from_the_installed_sdks` fails: run
`python tools/gen_egress_model.py` and review the diff of policies/data/egress_model.json. When the endpoint
table is more than 400 days old, re-read each entry's source and update `read`."""

from __future__ import annotations

import datetime as dt
import importlib
import importlib.metadata
import importlib.util
import inspect
import json
import re
from pathlib import Path

import pytest
from sahab.policies.core import Context, ProviderView, ResourceView
from sahab.policies.egress import MODEL, destination_paths, entry, is_filtered, is_source, model
from sahab.policies.places import MAX_TABLE_AGE_DAYS, endpoint_table, place_of_host
from sahab.policies.residency import Place, destinations, place_allowed, place_of_reference, reference_findings


def test_the_model_is_generated_from_the_installed_sdks():
    for dist, version in model()["sources"].items():
        assert importlib.metadata.version(dist) == version, \
            f"{dist} is {importlib.metadata.version(dist)}, the model was read from {version}: run " \
            "`python tools/gen_egress_model.py`"


@pytest.mark.parametrize(("type_", "path", "kind"), [
    ("aws:cloudwatch/logSubscriptionFilter:LogSubscriptionFilter", "destinationArn", "delivery"),
    ("aws:s3/bucketReplicationConfig:BucketReplicationConfig", "rules[].destination.bucket", "delivery"),
    ("aws:s3/bucketLoggingV2:BucketLoggingV2", "targetBucket", "delivery"),
    ("aws:cloudtrail/trail:Trail", "s3BucketName", "logging"),
    ("aws:kinesis/firehoseDeliveryStream:FirehoseDeliveryStream", "httpEndpointConfiguration.url", "delivery"),
    ("aws:sns/topicSubscription:TopicSubscription", "endpoint", "delivery"),
    ("aws:cloudwatch/eventApiDestination:EventApiDestination", "invocationEndpoint", "webhook"),
    ("aws:dynamodb/table:Table", "replicas[].regionName", "replication"),
    ("aws:backup/plan:Plan", "rules[].copyActions[].destinationVaultArn", "delivery"),
    ("aws:athena/workgroup:Workgroup", "configuration.resultConfiguration.outputLocation", "export"),
    ("azure-native:monitor:DiagnosticSetting", "workspaceId", "delivery"),
    ("azure-native:monitor:DiagnosticSetting", "eventHubAuthorizationRuleId", "logging"),
    ("azure-native:storage:ObjectReplicationPolicy", "destinationAccount", "delivery"),
    ("kubernetes:core/v1:PersistentVolume", "spec.nfs.server", "volume"),
    # Types whose constructor takes `<Name>InitArgs` (`<Name>Args` is a nested block of another type).
    ("aws:dynamodb/tableReplica:TableReplica", "globalTableArn", "global"),
    ("aws:s3/bucketLogging:BucketLogging", "targetBucket", "delivery"),
    ("azure-native:dataprotection:BackupVault", "properties.replicatedRegions[]", "backup"),
    ("azure-native:monitor:ActionGroup", "webhookReceivers[].serviceUri", "webhook"),
    ("azure-native:monitor:ActionGroup", "azureFunctionReceivers[].httpTriggerUrl", "delivery"),
    # Azure geo-replication pairs, modelled as the SQL failover group's partner is.
    ("azure-native:sql:FailoverGroup", "partnerServers[].id", "replication"),
    ("azure-native:redis:LinkedServer", "linkedRedisCacheId", "replication"),
    ("azure-native:redis:LinkedServer", "linkedRedisCacheLocation", "replication"),
    ("azure-native:redis:RedisLinkedServer", "linkedRedisCacheId", "replication"),
    ("azure-native:eventhub:DisasterRecoveryConfig", "partnerNamespace", "replication"),
    ("azure-native:servicebus:DisasterRecoveryConfig", "partnerNamespace", "replication"),
    ("azure-native:netapp:CapacityPoolVolume", "dataProtection.replication.remoteVolumeResourceId", "replication"),
    ("azure-native:netapp:CapacityPoolVolume", "dataProtection.replication.remoteVolumeRegion", "replication"),
    # Nested blocks named bare (`DestinationArgs`), read from the resource's own module.
    ("azure-native:eventhub:EventHub", "captureDescription.destination.storageAccountResourceId", "delivery"),
    ("azure-native:devtestlab:GlobalSchedule", "notificationSettings.webhookUrl", "webhook"),
    # Alert receivers: an action group's Event Hub receiver streams every alert into the namespace it names.
    ("azure-native:monitor:ActionGroup", "eventHubReceivers[].eventHubNameSpace", "delivery"),
    # A Firehose stream's destination configuration (its doc: "options for the s3 destination", "when
    # `destination` is ..."), and the bucket a DataSync S3 location stands for: bucket ARNs carry no region.
    ("aws:kinesis/firehoseDeliveryStream:FirehoseDeliveryStream", "extendedS3Configuration.bucketArn", "delivery"),
    ("aws:kinesis/firehoseDeliveryStream:FirehoseDeliveryStream", "redshiftConfiguration.s3Configuration.bucketArn",
     "delivery"),
    ("aws:datasync/s3Location:S3Location", "s3BucketArn", "delivery"),
    # A Stream Analytics output names the store it writes to as a whole (`accountId`: a Cosmos DB account), also
    # inline in a job; Defender workflow automation's Logic App; the action group an alert notifies; an ML datastore.
    ("azure-native:streamanalytics:Output", "datasource.accountId", "export"),
    ("azure-native:streamanalytics:Output", "datasource.functionAppName", "export"),
    ("azure-native:streamanalytics:StreamingJob", "outputs[].datasource.accountId", "export"),
    ("azure-native:security:Automation", "actions[].logicAppResourceId", "webhook"),
    ("azure-native:security:Automation", "actions[].uri", "webhook"),
    ("azure-native:monitor:ScheduledQueryRule", "actions.actionGroups[]", "delivery"),
    ("azure-native:monitor:MetricAlert", "actions[].actionGroupId", "delivery"),
    ("azure-native:machinelearningservices:Datastore", "properties.accountName", "delivery"),
    # An API Management backend receives every request forwarded to it; a mounted file share keeps what is written.
    ("azure-native:apimanagement:Backend", "url", "delivery"),
    ("azure-native:apimanagement:Api", "serviceUrl", "delivery"),
    ("azure-native:containerinstance:ContainerGroup", "volumes[].azureFile.storageAccountName", "volume"),
    ("azure-native:web:WebApp", "siteConfig.azureStorageAccounts{}.accountName", "volume"),
    ("azure-native:app:ManagedEnvironmentsStorage", "properties.azureFile.accountName", "volume"),
    # A Data Share invitation's recipient, by email as by object id: whoever accepts copies the data anywhere.
    ("azure-native:datashare:Invitation", "targetEmail", "delivery"),
    ("azure-native:datashare:Invitation", "targetObjectId", "delivery"),
])
def test_destinations_read_from_the_sdks(type_, path, kind):
    assert destination_paths(type_).get(path) == kind


@pytest.mark.parametrize(("type_", "path"), [
    ("azure-native:dataprotection:BackupVault", "vaultName"),  # its own name
    ("azure-native:monitor:ActionGroup", "webhookReceivers[].objectId"),  # who the webhook authenticates as
    ("azure-native:machinelearningservices:CapacityReservationGroup",
     "capacityReservationGroupProperties.sharingProfile.subscriptionIds[].id"),
    ("azure-native:hybridcompute:Machine", "licenseProfile.esuProfile.assignedLicense.licenseDetails.target"),
])
def test_reviewed_look_alikes_are_not_destinations(type_, path):
    assert path not in destination_paths(type_)


@pytest.mark.parametrize(("type_", "path"), [
    # Path parameters of the resource's own ARM id (its getter's parameters): its own name or a parent's.
    ("azure-native:netapp:BackupVault", "backupVaultName"),
    ("azure-native:netapp:Backup", "backupVaultName"),
    ("azure-native:netapp:ElasticBackup", "backupVaultName"),
    ("azure-native:dataprotection:BackupInstance", "vaultName"),
    ("azure-native:dataprotection:DppResourceGuardProxy", "vaultName"),
    ("azure-native:eventgrid:PartnerNamespace", "partnerNamespaceName"),
    ("azure-native:eventgrid:Channel", "partnerNamespaceName"),
    ("azure-native:eventgrid:PartnerTopicEventSubscription", "partnerTopicName"),
    ("azure-native:notificationhubs:NotificationHub", "notificationHubName"),
    ("azure-native:notificationhubs:NotificationHubAuthorizationRule", "notificationHubName"),
    ("azure-native:recoveryservices:ReplicationProtectionCluster", "replicationProtectionClusterName"),
    # The resource's own identifier (its class name and an identifier word).
    ("aws:dms/replicationTask:ReplicationTask", "replicationTaskId"),
    ("aws:dms/replicationInstance:ReplicationInstance", "replicationInstanceId"),
    ("aws:elasticache/replicationGroup:ReplicationGroup", "replicationGroupId"),
    # The AWS Backup vault a vault's policy, lock or notification settings belong to.
    ("aws:backup/vaultPolicy:VaultPolicy", "backupVaultName"),
    ("aws:backup/vaultLockConfiguration:VaultLockConfiguration", "backupVaultName"),
    ("aws:backup/vaultNotifications:VaultNotifications", "backupVaultName"),
    ("aws:cloudwatch/logTransformer:LogTransformer", "logGroupArn"),
    ("aws:elasticache/cluster:Cluster", "replicationGroupId"),
])
def test_own_and_parent_names_are_not_destinations(type_, path):
    assert path not in destination_paths(type_)


def test_the_real_destinations_of_child_resources_stay():
    assert destination_paths("aws:backup/vaultNotifications:VaultNotifications")["snsTopicArn"]
    assert destination_paths("azure-native:storage:ObjectReplicationPolicy")["destinationAccount"] == "delivery"


def test_an_azure_resource_is_named_by_its_own_path_parameter():
    """The input an Azure resource names itself by (its own ARM id's last name, which its provider fills in when
    the program leaves it out), not a parent's: a destination given that plain name is that resource."""
    assert entry("azure-native:storage:StorageAccount")["name"] == "accountName"
    assert entry("azure-native:eventhub:Namespace")["name"] == "namespaceName"
    assert entry("azure-native:storage:BlobContainer")["name"] == "containerName"
    assert entry("azure-native:netapp:CapacityPoolVolume")["name"] == "volumeName"
    assert entry("aws:rds/globalCluster:GlobalCluster")["name"] == "globalClusterIdentifier"


def test_a_directed_block_says_which_end_the_resource_is():
    volume = entry("azure-native:netapp:CapacityPoolVolume")
    assert volume["directed"] == {"dataProtection.replication": "endpointType"}
    assert entry("azure-native:netapp:VolumeGroup")["directed"] == {
        "volumes[].dataProtection.replication": "endpointType"}


_REMOTE_VOLUME = ("/subscriptions/0/resourceGroups/g/providers/Microsoft.NetApp/netAppAccounts/a/capacityPools/p/"
                  "volumes/v")


def _volume(replication: dict) -> ResourceView:
    return ResourceView("azure-native:netapp:CapacityPoolVolume", "vol", "urn:pulumi:dev::p::vol",
                        {"location": "uaenorth", "dataProtection": {"replication": replication}})


@pytest.mark.parametrize(("end", "region", "leaks"), [
    ("dst", "westeurope", False),  # this volume is the destination: a copy into the country
    ("dst", "uaenorth", False),  # in-country replication from a volume this program does not create
    ("src", "westeurope", True),  # this volume is the source: its data goes to West Europe
    ("src", "uaecentral", True),  # the destination end is a volume whose id carries no place: fails closed
    (None, "westeurope", True),  # direction not said: fails closed
])
def test_netapp_replication_is_judged_by_its_direction(end, region, leaks):
    replication = {"remoteVolumeResourceId": _REMOTE_VOLUME, "remoteVolumeRegion": region,
                   **({"endpointType": end} if end else {})}
    findings = list(reference_findings(_volume(replication), Context()))
    assert bool(findings) is leaks, findings
    if end == "dst":
        assert not list(destinations(_volume(replication), Context()))


def test_a_plain_name_of_a_resource_of_the_program_is_placed_where_it_is():
    """A destination given the plain name of a data store the program declares (an S3 bucket's name, a storage
    account's name where an id is expected) is that store, placed where it is declared."""
    from sahab.policies.pack import identities_of

    def res(type_, name, props):
        package = type_.split(":")[0]
        provider = ProviderView(f"pulumi:providers:{package}", "default", f"urn:pulumi:dev::p::{package}", {})
        return ResourceView(type_, name, f"urn:pulumi:dev::p::{type_}::{name}", props, provider=provider,
                            identities=identities_of(props, type_))

    for where in ("westeurope", "uaenorth"):
        account = res("azure-native:storage:StorageAccount", "replica", {"accountName": "sahabreplica",
                                                                          "location": where})
        policy = res("azure-native:storage:ObjectReplicationPolicy", "orp", {
            "accountName": "sahabsource", "sourceAccount": "sahabsource", "destinationAccount": "sahabreplica"})
        (dest,) = [d for d in destinations(policy, Context(resources=(account, policy)))
                   if d.path == "destinationAccount"]
        assert (dest.place.value, dest.place.resource) == (where, account.urn)
    bucket = res("aws:s3/bucketV2:BucketV2", "logs", {"bucket": "sahab-logs", "region": "eu-west-1"})
    logging = res("aws:s3/bucketLoggingV2:BucketLoggingV2", "logging", {"bucket": "data",
                                                                        "targetBucket": "sahab-logs"})
    (dest,) = destinations(logging, Context(resources=(bucket, logging)))
    assert (dest.place.value, dest.place.resource) == ("eu-west-1", bucket.urn)


def test_a_nested_block_named_bare_is_read_from_its_own_module():
    """An SDK names a nested input block by its bare class name, which many modules define, each its own
    (azure-native has `SkuArgs` in 52; pulumi-aws `ListenerDefaultActionArgs` in lb and vpclattice). Read from
    another module's class, a VPC Lattice listener was modelled with an ALB listener's target group fields."""
    import pulumi_aws

    assert hasattr(pulumi_aws.lb.ListenerDefaultActionArgs, "target_group_arn")
    assert not hasattr(pulumi_aws.vpclattice.ListenerDefaultActionArgs, "target_group_arn")
    lattice = entry("aws:vpclattice/listener:Listener")
    assert not [path for paths in lattice.values() for path in paths if "targetGroupArn" in path], lattice


_INIT_ARGS = re.compile(r"get_resource_args_opts\((\w+InitArgs),")
_TOKEN = re.compile(r"super\((\w+), __self__\).__init__\(\s*'([^']+)'")


def _init_args_resources():
    """(type token, resource class) of every resource whose constructor takes `<Name>InitArgs`, found in the SDK
    sources (the generator's own reading is what is under test)."""
    for package in ("pulumi_aws", "pulumi_azure_native", "pulumi_kubernetes"):
        root = Path(importlib.util.find_spec(package).origin).parent
        for file in sorted(root.rglob("*.py")):
            text = file.read_text(encoding="utf-8")
            if "InitArgs," in text and _INIT_ARGS.search(text):
                module = ".".join((package, *file.relative_to(root).with_suffix("").parts))
                for cls, token in _TOKEN.findall(text):
                    yield token, module, cls


def test_every_init_args_type_is_modelled_from_its_own_inputs():
    """Where `<Name>Args` names a nested block of another type, the model once read that block for the resource
    (`s3.BucketServerSideEncryptionConfiguration` keyed on the bucket block's `rule`, not its own `rules`). Every
    path of such a type starts at an input its constructor takes, as the imported SDK says."""
    found, wrong = 0, []
    for token, module, cls in _init_args_resources():
        found += 1
        init = getattr(importlib.import_module(module), cls)._internal_init
        inputs = {name.rstrip("_").replace("_", "") for name in inspect.signature(init).parameters}
        item = entry(token)
        for category in ("destinations", "sources", "filters", "keys", "transit", "public"):
            for path in item.get(category, ()):
                if re.split(r"[.\[{]", path)[0].lower() not in inputs:
                    wrong.append(f"{token}: {category} {path}")
    assert found >= 250, found  # 257 in pulumi-aws 7.51.1, azure-native 3.29.0, kubernetes 4.34.2
    assert not wrong, wrong


@pytest.mark.parametrize(("type_", "path"), [
    ("aws:rds/instance:Instance", "replicateSourceDb"),
    ("aws:ec2/amiCopy:AmiCopy", "sourceAmiRegion"),
    ("aws:ebs/snapshotCopy:SnapshotCopy", "sourceRegion"),
    ("aws:s3/objectCopy:ObjectCopy", "source"),
    ("aws:datasync/task:Task", "sourceLocationArn"),
    ("azure-native:storage:ObjectReplicationPolicy", "sourceAccount"),
    ("azure-native:compute:Snapshot", "creationData.sourceResourceId"),
])
def test_sources_are_not_destinations(type_, path):
    assert is_source(type_, path) and path not in destination_paths(type_)


def test_filters_and_their_children_are_conditions():
    assert is_filtered("aws:cloudwatch/eventRule:EventRule", "eventPattern")
    assert is_source("aws:rds/instance:Instance", "restoreToPointInTime.sourceDbInstanceIdentifier")
    assert not is_source("aws:rds/instance:Instance", "kmsKeyId")


def test_public_switches_and_keys_read_from_the_sdks():
    assert entry("aws:rds/instance:Instance")["public"]["publiclyAccessible"] is True
    assert entry("aws:rds/snapshot:Snapshot")["public"]["sharedAccounts[]"] == "all"
    assert entry("aws:ec2/amiLaunchPermission:AmiLaunchPermission")["public"]["group"] == "all"
    assert entry("azure-native:sql:Server")["public"]["publicNetworkAccess"] == "Enabled"
    assert "kmsKeyId" in entry("aws:rds/instance:Instance")["keys"]
    assert "keys" not in entry("aws:iam/role:Role")  # a role holds no data


def test_the_endpoint_table_is_fresh_and_sourced():
    doc = json.loads((MODEL.parent / "endpoints.json").read_text())
    read = dt.date.fromisoformat(doc["read"])
    assert (dt.date.today() - read).days <= MAX_TABLE_AGE_DAYS, \
        "policies/data/endpoints.json is stale: re-read each entry's source and update `read`"
    for host, item in endpoint_table().items():
        assert item["source"].startswith("https://") and item["vendor"], host


@pytest.mark.parametrize(("host", "outside"), [
    ("http-intake.logs.datadoghq.eu", True),
    ("otlp.eu01.nr-data.net", True),
    ("o123.ingest.de.sentry.io", True),
    ("s3.eu-central-2.wasabisys.com", True),
    ("acct.r2.cloudflarestorage.com", True),
    ("fra1.digitaloceanspaces.com", True),
    ("d111111abcdef8.cloudfront.net", True),
    ("prometheus-prod-01-prod-eu-west-0.grafana.net", True),
    ("api.wandb.ai", True),
    ("s3.me-central-1.amazonaws.com", False),
    ("ns.compat.objectstorage.me-dubai-1.oraclecloud.com", False),
])
def test_hosts_are_placed_by_the_table(host, outside):
    place = place_of_reference(f"https://{host}/x", Context())
    assert place_allowed(place, Context()) is not outside, place


def test_a_host_nobody_can_place_fails_closed_and_a_private_one_is_inside():
    assert place_of_host("logs.partner.example.com") is None
    unplaced = place_of_reference("https://logs.partner.example.com/ingest", Context())
    assert not place_allowed(unplaced, Context()) and "cannot be shown" in unplaced.source
    assert place_allowed(place_of_reference("http://10.1.2.3:9000", Context()), Context())
    assert place_allowed(Place("AE", "a vendor site", "country"), Context())


def test_no_public_egress_knows_the_site_networks_that_never_leave_it():
    """SAHAB-K8S-020's private ranges: RFC 1918, shared space, IPv6 ULA (an on-prem site on fd00::/8) and loopback
    are private; anything else, or a block reaching past them, is public."""
    from sahab.policies.rules.egress import public_block

    for private in ("10.1.0.0/16", "100.64.3.0/24", "fd12:3456::/64", "127.0.0.41/32", "::1/128"):
        assert not public_block(private), private
    for public in ("8.8.8.8/32", "0.0.0.0/0", "2001:db8::/32", "126.0.0.0/7", "not-a-block"):
        assert public_block(public), public


def _azure(type_: str, name: str, props: dict, **kw) -> ResourceView:
    return ResourceView(type_, name, f"urn:pulumi:dev::p::{type_}::{name}", props, **kw)


@pytest.mark.parametrize(("properties", "leaks"), [
    ({"type": "Sftp", "host": "sftp.partner.example.com"}, True),
    ({"type": "HttpServer", "url": "https://files.partner.example.com/x"}, True),
    ({"type": "Odbc", "connectionString": "Driver={x};Server=db.partner.example.com;Port=5432"}, True),
    ({"type": "FtpServer", "host": "45.33.32.156"}, True),
    ({"type": "AmazonS3", "accessKeyId": "AKIA0"}, True),  # another cloud's default endpoint: no place shown
    ({"type": "GoogleBigQuery", "project": "p"}, True),
    ({"type": "Sftp", "host": "10.2.0.4"}, False),  # a private address: the factory's own network
    ({"type": "SqlServer", "connectionString": "Server=10.2.0.5;Database=d"}, False),
    ({"type": "AzureBlobStorage", "connectionString": {"type": "AzureKeyVaultSecret", "secretName": "s"}}, False),
])
def test_a_linked_service_is_a_store_its_hosts_place(properties, leaks):
    """A Data Factory linked service is a store the factory copies to and from: an outside host fails closed, as
    does a kind outside Azure that names none."""
    service = _azure("azure-native:datafactory:LinkedService", "ls", {"properties": properties})
    findings = list(reference_findings(service, Context(resources=(service,))))
    assert bool(findings) is leaks, findings


@pytest.mark.parametrize(("host", "leaks"), [("sftp.partner.example.com", True), ("10.5.0.9", False)])
def test_a_logic_apps_api_connection_names_its_store(host, leaks):
    connection = _azure("azure-native:web:Connection", "sftp", {"location": "uaenorth", "properties": {
        "api": {"id": "/subscriptions/0/providers/Microsoft.Web/locations/uaenorth/managedApis/sftpwithssh"},
        "parameterValues": {"hostName": host, "userName": "etl"}}})
    findings = list(reference_findings(connection, Context(resources=(connection,))))
    assert bool(findings) is leaks, findings


@pytest.mark.parametrize(("value", "leaks"), [
    ("mongodb+srv://u:p@cluster0.ab12c.mongodb.net/db", True),
    ("Host=pg.partner.example.com;Port=5432;Database=d", True),
    ("mongodb://u:p@10.1.0.5:27017/db", False),
    ("Host=10.1.0.4;Port=5432;Database=d", False),
    ("https://api.partner.example.com/v1", False),  # a URL, not a store's connection: the app calls an API
    ("https://partner-drop.s3.amazonaws.com/in/", True),  # a bucket by S3's global endpoint: no region shown
    ("https://sahab-drop.s3.me-central-1.amazonaws.com/in/", False),
    ("1.2.3", False),
])
def test_a_connection_string_of_an_azure_resource_names_its_store(value, leaks):
    app = _azure("azure-native:web:WebApp", "app", {"location": "uaenorth", "siteConfig": {
        "appSettings": [{"name": "DB", "value": value}]}})
    findings = list(reference_findings(app, Context(resources=(app,))))
    assert bool(findings) is leaks, findings


@pytest.mark.parametrize(("step", "leaks"), [
    ({"type": "Http", "inputs": {"uri": "https://ingest.partner.example.com/e"}}, True),
    ({"type": "If", "actions": {"s": {"type": "Http", "inputs": {"uri": "@parameters('sink')"}}}}, True),
    ({"type": "Http", "inputs": {"uri": "https://10.3.0.8/e"}}, False),
    ({"type": "Compose", "inputs": {"uri": "https://ingest.partner.example.com/e"}}, False),  # no request sent
])
def test_a_workflow_request_step_sends_to_its_url(step, leaks):
    workflow = _azure("azure-native:logic:Workflow", "wf", {
        "location": "uaenorth", "parameters": {"sink": {"value": "https://collector.partner.example.com"}},
        "definition": {"triggers": {"poll": {"type": "Http", "inputs": {"uri": "https://feed.example.com"}}},
                       "actions": {"a": step}}})
    findings = list(reference_findings(workflow, Context(resources=(workflow,))))
    assert bool(findings) is leaks, findings


def test_a_workflow_url_still_unknown_after_the_update_is_said_to_come_from_outside():
    from sahab.policies.core import UNKNOWN

    workflow = _azure("azure-native:logic:Workflow", "wf", {
        "location": "uaenorth", "definition": {"actions": {"a": {"type": "Http", "inputs": {"uri": UNKNOWN}}}}})
    assert not list(reference_findings(workflow, Context(resources=(workflow,), phase="preview")))
    (finding,) = [str(f) for f in reference_findings(workflow, Context(resources=(workflow,), phase="update"))]
    assert "comes from outside this program" in finding and "no resource of this program" not in finding


@pytest.mark.parametrize(("sku", "leaks"), [("GlobalStandard", True), ("DataZoneProvisionedManaged", True),
                                            ("Standard", False), ("ProvisionedManaged", False)])
def test_a_model_deployment_served_anywhere_is_out_of_place(sku, leaks):
    deployment = _azure("azure-native:cognitiveservices:Deployment", "chat", {"accountName": "a", "sku": {"name": sku}})
    findings = list(reference_findings(deployment, Context(resources=(deployment,))))
    assert bool(findings) is leaks, findings


def test_after_the_update_an_unknown_destination_is_not_vouched_for_by_what_it_depends_on():
    """`Output.all(own.id, other_stack_output).apply(...)`: in the preview the program's own workspace may still
    produce the value; after the update it has given its value, and one still unknown comes from outside."""
    from sahab.policies.core import UNKNOWN

    provider = ProviderView("pulumi:providers:azure-native", "default", "urn:pulumi:dev::p::azure-native", {})
    workspace = _azure("azure-native:operationalinsights:Workspace", "ws", {"location": "uaenorth"}, provider=provider)
    setting = _azure("azure-native:monitor:DiagnosticSetting", "diag", {"workspaceId": UNKNOWN},
                     property_dependencies={"workspaceId": (workspace.urn,)})
    resources = (workspace, setting)
    assert not list(reference_findings(setting, Context(resources=resources, phase="preview")))
    (finding,) = [str(f) for f in reference_findings(setting, Context(resources=resources, phase="update"))]
    # the message says where such a value comes from, not that no resource of the program produces it
    assert "comes from outside this program" in finding and "no resource of this program" not in finding


def test_an_azure_host_named_after_a_resource_of_the_program_is_that_resource():
    """`<name>.azurewebsites.net`, `<server>.postgres.database.azure.com`: the program's own function app or server
    (auto-named: known by the name its provider gave it), judged where it is."""
    provider = ProviderView("pulumi:providers:azure-native", "default", "urn:pulumi:dev::p::azure-native", {})
    server = _azure("azure-native:dbforpostgresql:Server", "pg", {"location": "uaenorth"}, provider=provider,
                    identities=frozenset({"pg1a2b3c"}))
    app = _azure("azure-native:web:WebApp", "app", {"location": "uaenorth", "siteConfig": {"appSettings": [
        {"name": "DB", "value": "Host=pg1a2b3c.postgres.database.azure.com;Port=5432;Database=d"}]}})
    assert not list(reference_findings(app, Context(resources=(server, app))))
    assert list(reference_findings(app, Context(resources=(app,))))
