"""Leak: pipelines that write what they produce into buckets this program does not create: CodePipeline artifacts
(the source and build outputs), Elastic Transcoder outputs and thumbnails, tuning-job checkpoints, cost and usage
reports."""
# expect: cloud-all-resource-references-in-country release
# expect: cloud-all-resource-references-in-country transcode
# expect: cloud-all-resource-references-in-country tuning
# expect: cloud-all-resource-references-in-country billing-report

import json

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)


def private_bucket(name):
    """A bucket every bucket rule accepts: SSE-KMS under this program's key, TLS only, public access blocked."""
    bucket = aws.s3.BucketV2(name)
    aws.s3.BucketServerSideEncryptionConfiguration(f"{name}-sse", bucket=bucket.id, rules=[{
        "apply_server_side_encryption_by_default": {"sse_algorithm": "aws:kms", "kms_master_key_id": key.arn}}])
    aws.s3.BucketPolicy(f"{name}-tls", bucket=bucket.id, policy=bucket.arn.apply(lambda arn: json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Deny", "Principal": "*", "Action": "s3:*",
        "Resource": [arn, f"{arn}/*"], "Condition": {"Bool": {"aws:SecureTransport": "false"}}}]})))
    aws.s3.BucketPublicAccessBlock(f"{name}-pab", bucket=bucket.id, block_public_acls=True, block_public_policy=True,
                                   ignore_public_acls=True, restrict_public_buckets=True)
    return bucket

ROLE = "arn:aws:iam::111122223333:role/service"
media = private_bucket("media-in")
aws.codepipeline.Pipeline("release", role_arn=ROLE,
                          artifact_stores=[{"location": "partner-pipeline-artifacts", "type": "S3",
                                            "encryption_key": {"id": key.arn, "type": "KMS"}}],
                          stages=[{"name": "Source", "actions": [{
                              "name": "Source", "category": "Source", "owner": "AWS", "provider": "S3",
                              "version": "1", "output_artifacts": ["src"],
                              "configuration": {"S3Bucket": media.bucket, "S3ObjectKey": "src.zip"}}]},
                                  {"name": "Build", "actions": [{
                                      "name": "Build", "category": "Build", "owner": "AWS",
                                      "provider": "CodeBuild", "version": "1", "input_artifacts": ["src"],
                                      "configuration": {"ProjectName": "build"}}]}])
aws.elastictranscoder.Pipeline("transcode", input_bucket=media.bucket, role=ROLE, aws_kms_key_arn=key.arn,
                               content_config={"bucket": "partner-transcoded", "storage_class": "Standard"},
                               thumbnail_config={"bucket": "partner-thumbnails", "storage_class": "Standard"})
aws.sagemaker.HyperParameterTuningJob("tuning", name="tuning",
    config={"strategy": "Bayesian",
            "resource_limits": {"max_number_of_training_jobs": 2,
                                "max_parallel_training_jobs": 1}},
    training_job_definition={"role_arn": ROLE,
                             "algorithm_specification": {"training_image": "111122223333.dkr.ecr.me-central-1"
                                                                           ".amazonaws.com/train:1",
                                                         "training_input_mode": "File"},
                             "output_data_config": {"s3_output_path": media.bucket.apply(
                                 lambda b: f"s3://{b}/out/"), "kms_key_id": key.arn},
                             "resource_config": {"instance_type": "ml.m5.large", "instance_count": 1,
                                                 "volume_size_in_gb": 10, "volume_kms_key_id": key.arn},
                             "stopping_condition": {"max_runtime_in_seconds": 3600},
                             "checkpoint_config": {"s3_uri": "s3://partner-checkpoints/tuning/"}})
aws.cur.ReportDefinition("billing-report", report_name="billing", time_unit="DAILY", format="Parquet",
                         compression="Parquet", additional_schema_elements=["RESOURCES"],
                         s3_bucket="partner-billing-reports", s3_prefix="cur", s3_region="me-central-1")
