"""Look-alike: a me-central-1 bucket whose name spells eu-west-1; its ARN (no region), its virtual-hosted
endpoint (`<name>.s3.me-central-1.amazonaws.com`) and the policy naming its ARN are all in the country."""
# expect: pass

import json

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
bucket = aws.s3.BucketV2("data", bucket="acme-eu-west-1-migrated-logs")
aws.s3.BucketServerSideEncryptionConfiguration("data-sse", bucket=bucket.id, rules=[{
    "apply_server_side_encryption_by_default": {"sse_algorithm": "aws:kms", "kms_master_key_id": key.arn}}])
aws.s3.BucketPolicy("data-tls", bucket=bucket.id, policy=bucket.arn.apply(lambda arn: json.dumps({
    "Version": "2012-10-17", "Statement": [{"Effect": "Deny", "Principal": "*", "Action": "s3:*",
    "Resource": [arn, f"{arn}/*"], "Condition": {"Bool": {"aws:SecureTransport": "false"}}}]})))
aws.ssm.Parameter("endpoint", type="String", value=bucket.bucket_regional_domain_name)
