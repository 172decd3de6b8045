"""Look-alike: services that write their output into buckets this program creates in me-central-1, named by plain
name, by s3:// URL and by output: build and pipeline artifacts, Backup reports, SMS usage reports, an MLflow
artifact store, cost and usage reports."""
# expect: pass

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
artifacts = private_bucket("artifacts")
reports = private_bucket("reports")
aws.codebuild.Project("build", service_role=ROLE, encryption_key=key.arn,
                      source={"type": "NO_SOURCE", "buildspec": "version: 0.2"},
                      environment={"compute_type": "BUILD_GENERAL1_SMALL", "image": "aws/codebuild/standard:7.0",
                                   "type": "LINUX_CONTAINER"},
                      artifacts={"type": "S3", "location": artifacts.bucket, "encryption_disabled": False})
aws.codepipeline.Pipeline("release", role_arn=ROLE,
                          artifact_stores=[{"location": artifacts.bucket, "type": "S3",
                                            "encryption_key": {"id": key.arn, "type": "KMS"}}],
                          stages=[{"name": "Source", "actions": [{
                              "name": "Source", "category": "Source", "owner": "AWS", "provider": "S3",
                              "version": "1", "output_artifacts": ["src"],
                              "configuration": {"S3Bucket": artifacts.bucket, "S3ObjectKey": "src.zip"}}]},
                                  {"name": "Build", "actions": [{
                                      "name": "Build", "category": "Build", "owner": "AWS",
                                      "provider": "CodeBuild", "version": "1", "input_artifacts": ["src"],
                                      "configuration": {"ProjectName": "build"}}]}])
aws.backup.ReportPlan("backup-report", name="backup_report",
                      report_delivery_channel={"s3_bucket_name": reports.bucket, "formats": ["CSV"]},
                      report_setting={"report_template": "BACKUP_JOB_REPORT"})
aws.sns.SmsPreferences("sms", usage_report_s3_bucket=reports.bucket)
aws.sagemaker.MlflowTrackingServer("mlflow", tracking_server_name="mlflow", role_arn=ROLE,
                                   artifact_store_uri=artifacts.bucket.apply(lambda b: f"s3://{b}/mlflow/"))
