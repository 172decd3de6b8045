"""S3 Express One Zone directory buckets (where training data is staged next to the GPUs) take SSE-KMS under a
customer-managed key like every other bucket; they once passed the pack under S3's own key."""

from __future__ import annotations

from tests.policies.policy_harness import Res, Stack, run

ME = {"region": "me-central-1"}
KEY_ARN = "arn:aws:kms:me-central-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab"
SSE = "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration"
NAME = "shards--mec1-az1--x-s3"


def directory_bucket():
    return Res("aws:s3/directoryBucket:DirectoryBucket", {"bucket": NAME, "location": {"name": "mec1-az1"}},
               name="shards", provider=ME)


def sse(algorithm, key=None, by_dependency=False):
    default = {"sseAlgorithm": algorithm, **({"kmsMasterKeyId": key} if key else {})}
    props = {"bucket": "unknown-yet" if by_dependency else NAME,
             "rules": [{"applyServerSideEncryptionByDefault": default, "bucketKeyEnabled": True}]}
    return Res(SSE, props, name="shards-sse", provider=ME, deps={"bucket": ["shards"]} if by_dependency else {})


def test_a_directory_bucket_without_default_encryption_is_refused():
    found = run("aws-s3-bucket-sse-kms-cmk", Stack([directory_bucket()]))
    assert found and "'shards'" in found[0][0] and "no server-side encryption configuration" in found[0][0]


def test_s3s_own_key_is_not_a_customer_managed_key():
    found = run("aws-s3-bucket-sse-kms-cmk", Stack([directory_bucket(), sse("AES256")]))
    assert found and "not SSE-KMS" in found[0][0]


def test_sse_kms_under_the_programs_key_passes_named_by_value_or_by_dependency():
    assert run("aws-s3-bucket-sse-kms-cmk", Stack([directory_bucket(), sse("aws:kms", KEY_ARN)])) == []
    assert run("aws-s3-bucket-sse-kms-cmk",
               Stack([directory_bucket(), sse("aws:kms", KEY_ARN, by_dependency=True)])) == []
