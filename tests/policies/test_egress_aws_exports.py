"""AWS exports the word rules of tools/gen_egress_model.py miss, reviewed by hand: DMS target endpoints (judged by
their `endpointType`), mail stored in S3, WAF logging, Glue data locations and job arguments, and services that
write their output to a bucket or a server named by URL."""

from __future__ import annotations

import pytest
from sahab.policies.core import UNKNOWN, Context, ProviderView, ResourceView
from sahab.policies.egress import bucket_name_paths, destination_paths, entry
from sahab.policies.pack import identities_of
from sahab.policies.residency import destinations, reference_findings
from sahab.policies.rules.data_stores import AWS_STORES
from sahab.policies.rules.stores import judged_types


@pytest.mark.parametrize(("type_", "path", "kind"), [
    ("aws:dms/endpoint:Endpoint", "serverName", "delivery"),
    ("aws:dms/endpoint:Endpoint", "kafkaSettings.broker", "delivery"),
    ("aws:dms/endpoint:Endpoint", "kinesisSettings.streamArn", "delivery"),
    ("aws:dms/endpoint:Endpoint", "elasticsearchSettings.endpointUri", "delivery"),
    ("aws:dms/endpoint:Endpoint", "redshiftSettings.bucketName", "delivery"),
    ("aws:dms/s3Endpoint:S3Endpoint", "bucketName", "delivery"),
    ("aws:ses/receiptRule:ReceiptRule", "s3Actions[].bucketName", "delivery"),
    ("aws:mailmanager/ruleSet:RuleSet", "rules[].actions[].writeToS3.s3Bucket", "delivery"),
    ("aws:wafv2/webAclLoggingConfiguration:WebAclLoggingConfiguration", "logDestinationConfigs[]", "logging"),
    ("aws:glue/catalogTable:CatalogTable", "storageDescriptor.location", "export"),
    ("aws:glue/partition:Partition", "storageDescriptor.location", "export"),
    ("aws:glue/catalogDatabase:CatalogDatabase", "locationUri", "export"),
    ("aws:glue/job:Job", "defaultArguments{}", "argument"),
    ("aws:glue/trigger:Trigger", "actions[].arguments{}", "argument"),
    ("aws:codebuild/project:Project", "artifacts.location", "export"),
    ("aws:synthetics/canary:Canary", "artifactS3Location", "export"),
    ("aws:sagemaker/featureGroup:FeatureGroup", "offlineStoreConfig.s3StorageConfig.s3Uri", "export"),
    ("aws:transfer/connector:Connector", "url", "delivery"),
    ("aws:codepipeline/pipeline:Pipeline", "artifactStores[].location", "export"),
    ("aws:elastictranscoder/pipeline:Pipeline", "contentConfig.bucket", "export"),
    ("aws:cur/reportDefinition:ReportDefinition", "s3Bucket", "export"),
])
def test_reviewed_aws_exports_are_destinations(type_, path, kind):
    assert destination_paths(type_).get(path) == kind


def test_a_crawler_reads_its_targets():
    paths = destination_paths("aws:glue/crawler:Crawler")
    assert not any(p.startswith(("s3Targets[].path", "jdbcTargets")) for p in paths)


def test_an_endpoint_is_named_by_its_own_arn_output_and_not_by_the_arns_it_names():
    props = {"arn": "arn:aws:dms:me-central-1:1:endpoint/a", "endpointArn": "arn:aws:dms:me-central-1:1:endpoint/b",
             "certificateArn": "arn:aws:dms:me-central-1:1:certificate/c",
             "kmsKeyArn": "arn:aws:kms:me-central-1:1:key/d"}
    assert identities_of(props, "aws:dms/endpoint:Endpoint") == {props["arn"], props["endpointArn"]}
    task = {"replicationTaskArn": "arn:aws:dms:me-central-1:1:task/t", "sourceEndpointArn": props["endpointArn"]}
    assert identities_of(task, "aws:dms/replicationTask:ReplicationTask") == {task["replicationTaskArn"]}


def test_a_dms_endpoint_is_directed_by_its_endpoint_type():
    assert entry("aws:dms/endpoint:Endpoint")["inbound"] == {"": ["endpointType", ["source"]]}
    assert entry("aws:dms/s3Endpoint:S3Endpoint")["inbound"] == {"": ["endpointType", ["source"]]}


def _res(type_, name, props, region="me-central-1"):
    provider = ProviderView("pulumi:providers:aws", "default", "urn:pulumi:dev::p::aws", {"region": region})
    return ResourceView(type_, name, f"urn:pulumi:dev::p::{type_}::{name}", props, provider=provider,
                        identities=identities_of(props, type_))


@pytest.mark.parametrize(("end", "leaks"), [
    ("target", True),
    ("TARGET", True),
    ("source", False),  # the server is read from: data comes in
    ("Source", False),
    (None, True),  # direction not said: fails closed
    (UNKNOWN, True),  # unknown until the update runs: fails closed
])
@pytest.mark.parametrize(("type_", "props"), [
    ("aws:dms/endpoint:Endpoint", {"engineName": "postgres", "serverName": "db.partner-hosting.com"}),
    ("aws:dms/endpoint:Endpoint", {"engineName": "postgres",
                                   "serverName": "reports.c9akciq32.eu-west-1.rds.amazonaws.com"}),
    ("aws:dms/endpoint:Endpoint", {"engineName": "kafka", "kafkaSettings": {"broker": "k1.partner.io:9092"}}),
    ("aws:dms/endpoint:Endpoint", {"engineName": "redshift", "serverName": "10.0.0.5",
                                   "redshiftSettings": {"bucketName": "partner-staging"}}),
    ("aws:dms/s3Endpoint:S3Endpoint", {"bucketName": "partner-landing"}),
])
def test_dms_endpoints_export_only_as_targets(type_, props, end, leaks):
    view = _res(type_, "ep", {**props, **({"endpointType": end} if end is not None else {})})
    findings = list(reference_findings(view, Context(resources=(view,))))
    assert bool(findings) is leaks, findings


def test_a_dms_target_into_the_programs_own_bucket_stays():
    bucket = _res("aws:s3/bucketV2:BucketV2", "lake", {"bucket": "sahab-lake"})
    for end in ("target", "source"):
        view = _res("aws:dms/s3Endpoint:S3Endpoint", "ep", {"endpointType": end, "bucketName": "sahab-lake"})
        assert not list(reference_findings(view, Context(resources=(bucket, view))))


@pytest.mark.parametrize(("brokers", "leaks"), [
    ("b-1.crm.abc.c2.kafka.me-central-1.amazonaws.com:9092,b-2.crm.abc.c2.kafka.me-central-1.amazonaws.com:9092",
     False),
    ("b-1.crm.abc.c2.kafka.me-central-1.amazonaws.com:9092,kafka.partner.io:9092", True),
    ("b-1.crm.abc.c2.kafka.eu-west-1.amazonaws.com:9092", True),
])
def test_each_broker_of_a_list_is_judged(brokers, leaks):
    view = _res("aws:dms/endpoint:Endpoint", "ep", {"endpointType": "target", "engineName": "kafka",
                                                     "kafkaSettings": {"broker": brokers}})
    assert bool(list(reference_findings(view, Context(resources=(view,))))) is leaks


def test_glue_job_arguments_are_judged_where_they_name_a_place():
    bucket = _res("aws:s3/bucketV2:BucketV2", "lake", {"bucket": "sahab-lake"})
    args = {"--job-language": "python", "--enable-metrics": "true", "--conf": "spark.sql.shuffle.partitions=64",
            "--additional-python-modules": "pyarrow==14.0.1,awswrangler==3.4.0",
            "--TempDir": "s3://sahab-lake/tmp/"}
    job = _res("aws:glue/job:Job", "etl", {"defaultArguments": args})
    assert not list(reference_findings(job, Context(resources=(bucket, job))))
    for value in ("s3://partner-scratch/tmp/", "https://files.partner.io/drop",
                  "jdbc:postgresql://warehouse.partner.io:5432/sales", UNKNOWN):
        job = _res("aws:glue/job:Job", "etl", {"defaultArguments": {**args, "--out": value}})
        (finding,) = list(reference_findings(job, Context(resources=(bucket, job))))
        assert "defaultArguments.--out" in finding


def test_a_bucket_named_by_a_plain_location_is_a_global_name():
    """A CodeBuild artifact `location` is a bucket name: not a name resolved in the project's own region."""
    assert "artifacts.location" in bucket_name_paths("aws:codebuild/project:Project")
    bucket = _res("aws:s3/bucketV2:BucketV2", "artifacts", {"bucket": "sahab-artifacts"})
    project = _res("aws:codebuild/project:Project", "build", {"artifacts": {"type": "S3",
                                                                             "location": "sahab-artifacts"}})
    (dest,) = destinations(project, Context(resources=(bucket, project)))
    assert dest.place.resource == bucket.urn
    project = _res("aws:codebuild/project:Project", "build", {"artifacts": {"type": "S3",
                                                                             "location": "partner-artifacts"}})
    assert list(reference_findings(project, Context(resources=(project,))))


def test_dms_and_mail_stores_are_judged():
    for type_ in ("aws:dms/replicationInstance:ReplicationInstance", "aws:dms/endpoint:Endpoint",
                  "aws:dms/s3Endpoint:S3Endpoint", "aws:ses/receiptRule:ReceiptRule"):
        assert type_ in AWS_STORES and type_ in judged_types()


def _machine(states: dict) -> ResourceView:
    import json

    return _res("aws:sfn/stateMachine:StateMachine", "sm", {"definition": json.dumps({"StartAt": "A",
                                                                                       "States": states})})


@pytest.mark.parametrize(("state", "leaks"), [
    ({"Type": "Task", "Resource": "arn:aws:states:::http:invoke",
      "Parameters": {"ApiEndpoint": "https://hooks.partner.io/in", "Method": "POST"}}, True),
    ({"Type": "Task", "Resource": "arn:aws:states:::http:invoke",
      "Parameters": {"ApiEndpoint": "https://abc.execute-api.me-central-1.amazonaws.com/p", "Method": "POST"}}, False),
    ({"Type": "Task", "Resource": "arn:aws:states:::http:invoke",  # chosen at run time: fails closed
      "Parameters": {"ApiEndpoint.$": "$.target", "Method": "POST"}}, True),
    ({"Type": "Task", "Resource": "arn:aws:states:::http:invoke", "QueryLanguage": "JSONata",
      "Arguments": {"ApiEndpoint": "{% $states.input.url %}", "Method": "POST"}}, True),
    ({"Type": "Task", "Resource": "arn:aws:states:::aws-sdk:s3:putObject",
      "Parameters": {"Bucket": "partner-drop", "Key": "k", "Body.$": "$"}}, True),
    ({"Type": "Task", "Resource": "arn:aws:states:::aws-sdk:s3:copyObject",
      "Parameters": {"Bucket": "sahab-drop", "CopySource": "partner-src/k", "Key": "k"}}, False),
    ({"Type": "Task", "Resource": "arn:aws:states:::aws-sdk:s3:getObject",  # a read
      "Parameters": {"Bucket": "partner-src", "Key": "k"}}, False),
    ({"Type": "Map", "ItemProcessor": {"StartAt": "B", "States": {"B": {"Type": "Pass", "End": True}}},
      "ResultWriter": {"Resource": "arn:aws:states:::s3:putObject",
                       "Parameters": {"Bucket": "partner-results", "Prefix": "out"}}}, True),
])
def test_state_machine_tasks_are_destinations(state, leaks):
    bucket = _res("aws:s3/bucketV2:BucketV2", "drop", {"bucket": "sahab-drop"})
    view = _machine({"A": {**state, "End": True}})
    assert bool(list(reference_findings(view, Context(resources=(bucket, view))))) is leaks


@pytest.mark.parametrize(("sink", "leaks"), [
    ({"s3": {"bucket": "partner-archive"}}, True),
    ({"s3": {"bucket": "sahab-archive"}}, False),
    ({"opensearch": {"hosts": ["https://search.partner.net"], "index": "x"}}, True),
    ({"opensearch": {"hosts": ["https://vpc-x-abc.me-central-1.es.amazonaws.com"], "index": "x",
                     "dlq": {"s3": {"bucket": "partner-dlq"}}}}, True),
    ({"pipeline": {"name": "other-sub-pipeline"}}, False),
])
def test_ingestion_pipeline_sinks_are_destinations(sink, leaks):
    import yaml

    bucket = _res("aws:s3/bucketV2:BucketV2", "archive", {"bucket": "sahab-archive"})
    body = yaml.safe_dump({"version": "2", "p": {"source": {"http": {"path": "/x"}}, "sink": [sink]}})
    view = _res("aws:opensearchingest/pipeline:Pipeline", "pl", {"pipelineConfigurationBody": body})
    assert bool(list(reference_findings(view, Context(resources=(bucket, view))))) is leaks


_BROKERS = "b-1.c.abc.c2.kafka.me-central-1.amazonaws.com:9098,b-2.c.abc.c2.kafka.me-central-1.amazonaws.com:9098"


@pytest.mark.parametrize(("cls", "config", "brokers", "leaks"), [
    ("io.confluent.connect.s3.S3SinkConnector", {"s3.bucket.name": "partner-archive"}, _BROKERS, True),
    ("io.confluent.connect.s3.S3SinkConnector", {"s3.bucket.name": "sahab-archive"}, _BROKERS, False),
    ("com.example.JdbcSinkConnector", {"connection.url": "jdbc:postgresql://db.partner.io:5432/x"}, _BROKERS, True),
    ("io.debezium.connector.postgresql.PostgresConnector",  # neither word: both ends judged
     {"database.hostname": "db.partner.io"}, "kafka.partner.io:9092", True),
    ("io.debezium.connector.postgresql.PostgresConnector", {"database.hostname": "db.partner.io"}, _BROKERS, False),
    ("com.example.JdbcSourceConnector",  # a source reads what it names
     {"connection.url": "jdbc:postgresql://db.partner.io:5432/x"}, _BROKERS, False),
    ("com.example.JdbcSourceConnector", {}, "kafka.partner.io:9092", True),
])
def test_msk_connectors_are_judged_by_their_direction(cls, config, brokers, leaks):
    bucket = _res("aws:s3/bucketV2:BucketV2", "archive", {"bucket": "sahab-archive"})
    view = _res("aws:mskconnect/connector:Connector", "c", {
        "connectorConfiguration": {"connector.class": cls, "tasks.max": "1", **config},
        "kafkaCluster": {"apacheKafkaCluster": {"bootstrapServers": brokers}}})
    assert bool(list(reference_findings(view, Context(resources=(bucket, view))))) is leaks


@pytest.mark.parametrize(("type_", "path"), [
    ("aws:dms/replicationTask:ReplicationTask", "targetEndpointArn"),
    ("aws:dms/replicationConfig:ReplicationConfig", "targetEndpointArn"),
    ("aws:datasync/task:Task", "destinationLocationArn"),
])
def test_a_relay_this_program_does_not_create_fails_closed_in_any_region(type_, path):
    """A target endpoint or location stands for where the data goes: its own region does not show that."""
    assert destination_paths(type_)[path] == "relay"
    service = type_.split(":")[1].split("/")[0]
    arn = f"arn:aws:{service}:me-central-1:111122223333:endpoint:ABC"
    view = _res(type_, "t", {path: arn})
    (finding,) = list(reference_findings(view, Context(resources=(view,))))
    assert "which this program does not create" in finding
    own = {"aws:datasync/task:Task": "aws:datasync/nfsLocation:NfsLocation"}.get(type_, "aws:dms/endpoint:Endpoint")
    target = _res(own, "target", {"arn": arn, "endpointArn": arn})
    assert not list(reference_findings(view, Context(resources=(target, view))))


def test_a_relay_is_known_by_the_resource_its_value_came_from():
    endpoint = _res("aws:dms/endpoint:Endpoint", "target", {"endpointType": "target", "serverName": "10.0.0.9"})
    instance = _res("aws:dms/replicationInstance:ReplicationInstance", "ri", {})
    arn = "arn:aws:dms:me-central-1:111122223333:endpoint:OUTPUT"
    for deps, leaks in (((endpoint.urn,), False), ((instance.urn,), True), ((), True)):
        view = ResourceView("aws:dms/replicationTask:ReplicationTask", "t", "urn:pulumi:dev::p::task::t",
                            {"targetEndpointArn": arn}, provider=endpoint.provider,
                            property_dependencies={"targetEndpointArn": deps})
        ctx = Context(resources=(endpoint, instance, view))
        assert bool(list(reference_findings(view, ctx))) is leaks, deps


@pytest.mark.parametrize(("end", "attributes", "leaks"), [
    ("target", "bucketName=partner-landing;bucketFolder=crm", True),
    ("target", "bucketName=sahab-lake;dataFormat=parquet", False),
    ("source", "bucketName=partner-exports;bucketFolder=crm", False),
    ("target", "dataFormat=parquet;compressionType=GZIP", False),
])
def test_dms_extra_connection_attributes_name_the_target(end, attributes, leaks):
    bucket = _res("aws:s3/bucketV2:BucketV2", "lake", {"bucket": "sahab-lake"})
    view = _res("aws:dms/endpoint:Endpoint", "ep", {"endpointType": end, "engineName": "s3",
                                                     "extraConnectionAttributes": attributes})
    assert bool(list(reference_findings(view, Context(resources=(bucket, view))))) is leaks
