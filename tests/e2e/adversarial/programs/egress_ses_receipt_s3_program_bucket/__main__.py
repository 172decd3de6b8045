"""Look-alike: an SES receipt rule storing inbound mail in a bucket this program creates in me-central-1."""
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

mailbox = private_bucket("mailbox")
rules = aws.ses.ReceiptRuleSet("inbound", rule_set_name="inbound")
aws.ses.ReceiptRule("store-mail", name="store-mail", rule_set_name=rules.rule_set_name,
                    recipients=["support@example.ae"], enabled=True, scan_enabled=True,
                    s3_actions=[{"bucket_name": mailbox.bucket, "position": 1, "kms_key_arn": key.arn,
                                 "object_key_prefix": "inbound/"}])
