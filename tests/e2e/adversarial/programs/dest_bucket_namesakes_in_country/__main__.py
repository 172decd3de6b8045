"""Look-alike: a trail and an API Gateway integration deliver to a bucket this program creates in me-central-1,
named by its plain name and by its S3 host, beside a topic and a queue of the same name: the bucket is found among
the buckets, whatever else carries its name."""
# expect: pass

import json

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
NAME = "sahab-trail-archive-mec1"

bucket = aws.s3.BucketV2("archive", bucket=NAME)
aws.s3.BucketServerSideEncryptionConfiguration("archive-sse", bucket=bucket.id, rules=[{
    "apply_server_side_encryption_by_default": {"sse_algorithm": "aws:kms", "kms_master_key_id": key.arn}}])
aws.s3.BucketPolicy("archive-tls", bucket=bucket.id, policy=bucket.arn.apply(lambda arn: json.dumps({
    "Version": "2012-10-17", "Statement": [{"Effect": "Deny", "Principal": "*", "Action": "s3:*",
    "Resource": [arn, f"{arn}/*"], "Condition": {"Bool": {"aws:SecureTransport": "false"}}}]})))
aws.s3.BucketPublicAccessBlock("archive-pab", bucket=bucket.id, block_public_acls=True, block_public_policy=True,
                               ignore_public_acls=True, restrict_public_buckets=True)
aws.sns.Topic("namesake-topic", name=NAME, kms_master_key_id=key.arn)
aws.sqs.Queue("namesake-queue", name=NAME, kms_master_key_id=key.arn)

aws.cloudtrail.Trail("trail", s3_bucket_name=NAME, kms_key_id=key.arn, enable_log_file_validation=True)
api = aws.apigateway.RestApi("api", endpoint_configuration={"types": "PRIVATE"})
aws.apigateway.Integration("proxy", rest_api=api.id, resource_id=api.root_resource_id, http_method="PUT",
                           type="HTTP_PROXY", integration_http_method="PUT",
                           uri=f"https://{NAME}.s3.me-central-1.amazonaws.com/incoming")
