"""Leak: a Step Functions state machine whose HTTP task posts each execution's input to an endpoint outside AWS, and
whose SDK task writes it into a bucket this program does not create."""
# expect: cloud-all-resource-references-in-country forward-orders

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

definition = json.dumps({"StartAt": "Post", "States": {
    "Post": {"Type": "Task", "Resource": "arn:aws:states:::http:invoke", "Next": "Store",
             "Parameters": {"ApiEndpoint": "https://ingest.partner-analytics.com/orders", "Method": "POST",
                            "Authentication": {
                                "ConnectionArn": "arn:aws:events:me-central-1:111122223333:connection/p/1"},
                            "RequestBody.$": "$"}},
    "Store": {"Type": "Task", "Resource": "arn:aws:states:::aws-sdk:s3:putObject", "End": True,
              "Parameters": {"Bucket": "partner-order-drop", "Key": "orders.json", "Body.$": "$"}}}})
aws.sfn.StateMachine("forward-orders", role_arn="arn:aws:iam::111122223333:role/sfn", definition=definition,
                     encryption_configuration={"type": "CUSTOMER_MANAGED_KMS_KEY", "kms_key_id": key.arn,
                                               "kms_data_key_reuse_period_seconds": 300})
