"""SAHAB-CLOUD-002 on the buckets a Kubernetes workload's own text names (`s3://`, S3's global host, `gs://`):
the program's own bucket, another S3 endpoint, another stack's export and an allowed destination pass; any other
bucket fails closed, naming the input."""

from __future__ import annotations

import pytest
from sahab.policies.residency import BucketName, names_s3_endpoint, object_store_buckets

from tests.policies.policy_harness import Res, Stack, run

REFERENCES = "cloud-all-resource-references-in-country"
BUCKET = "aws:s3/bucketV2:BucketV2"
CONFIG_MAP = "kubernetes:core/v1:ConfigMap"
JOB = "kubernetes:batch/v1:Job"
STACK_REFERENCE = "pulumi:pulumi:StackReference"
ME = {"aws:region": "me-central-1"}


@pytest.mark.parametrize(("text", "found"), [
    ("s3://partner-ckpt/run-7", [BucketName("s3", "partner-ckpt")]),
    ("spark: s3a://lake.raw/events and s3n://old-lake", [BucketName("s3", "lake.raw"), BucketName("s3", "old-lake")]),
    ("https://Partner-Exports.s3.amazonaws.com/models/", [BucketName("s3", "partner-exports")]),
    ("https://s3.amazonaws.com/partner-exports/models", [BucketName("s3", "partner-exports")]),
    ("gsutil rsync /data gs://archive/research", [BucketName("gs", "archive")]),
    ("arn:aws:s3:::partner-ckpt/run-7", [BucketName("s3", "partner-ckpt")]),
    # a regional host names its region, which the scan of places judges; a word ending in s3 is no scheme
    ("https://ckpt.s3.eu-west-1.amazonaws.com/x", []),
    ("mys3://not-a-bucket", []),
    ("no url at all", []),
])
def test_the_buckets_a_text_names(text, found):
    assert object_store_buckets(text) == found


def test_another_s3_endpoint_is_an_environment_variable_a_key_or_the_cli_flag():
    assert names_s3_endpoint({"env": [{"name": "AWS_ENDPOINT_URL_S3", "value": "http://10.0.0.9:9000"}]})
    assert names_s3_endpoint({"data": {"MLFLOW_S3_ENDPOINT_URL": "http://minio:9000"}})
    assert names_s3_endpoint({"args": ["s3", "cp", "a", "s3://b", "--endpoint-url=http://10.0.0.9:9000"]})
    # a rendezvous or telemetry endpoint says nothing of where `s3://` goes
    assert not names_s3_endpoint({"env": [{"name": "RDZV_ENDPOINT", "value": "job-0.svc:29400"},
                                          {"name": "OTEL_EXPORTER_OTLP_ENDPOINT", "value": "http://otel:4317"}]})


def _config_map(uri: str, **kwargs) -> Res:
    return Res(CONFIG_MAP, {"metadata": {"name": "train"}, "data": {"CHECKPOINT_URI": uri}}, name="train", **kwargs)


def test_a_bucket_the_program_does_not_create_fails_closed_naming_the_input():
    found = run(REFERENCES, Stack([_config_map("s3://partner-ckpt/run-7")], ME), phase="update")
    assert len(found) == 1
    message, where = found[0]
    assert where.endswith("::train") and "`data.CHECKPOINT_URI`" in message and "'partner-ckpt'" in message
    gs = run(REFERENCES, Stack([_config_map("gs://archive/run-7")], ME), phase="update")
    assert len(gs) == 1 and "Google Cloud Storage bucket 'archive'" in gs[0][0]


def test_the_programs_own_bucket_passes():
    own = Res(BUCKET, {"bucket": "ckpt-4f2a"}, name="ckpt", provider={"region": "me-central-1"})
    assert run(REFERENCES, Stack([own, _config_map("s3://ckpt-4f2a/run-7")], ME), phase="update") == []


def test_a_bucket_of_another_s3_endpoint_passes():
    job = Res(JOB, {"spec": {"template": {"spec": {"containers": [{"name": "train", "env": [
        {"name": "AWS_ENDPOINT_URL_S3", "value": "http://10.10.0.20:9000"},
        {"name": "CHECKPOINT_URI", "value": "s3://ckpt/research"}]}]}}}}, name="train")
    assert run(REFERENCES, Stack([job], ME), phase="update") == []


def test_another_stacks_export_is_that_stacks_to_judge():
    owner = Res(STACK_REFERENCE, {"name": "organization/sahab/prod"}, name="prod-stack")
    reading = _config_map("s3://prod-checkpoints-9e1d/team", deps={"data": ["prod-stack"]})
    assert run(REFERENCES, Stack([owner, reading], ME), phase="update") == []
    # the same value written into the program by hand is judged
    assert len(run(REFERENCES, Stack([owner, _config_map("s3://prod-checkpoints-9e1d/team")], ME),
                   phase="update")) == 1


def test_allowed_destinations_name_a_bucket_by_url_or_arn():
    for allowed in ("s3://partner-ckpt", "arn:aws:s3:::partner-ckpt", "s3://partner-ckpt/run-7"):
        found = run(REFERENCES, Stack([_config_map("s3://partner-ckpt/run-7")], ME),
                    config={"allowedDestinations": [allowed]}, phase="update")
        assert found == [], allowed
