"""Leak (egress): a state machine whose definition is built with apply() from a bucket this program creates and a
bucket another stack exports, and writes into the other stack's: the definition is unknown offline in both runs,
and its dependency on the program's own bucket must not vouch for it."""
# expect: cloud-all-resource-references-in-country forward-orders

import json

import pulumi
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


def store_into(names):
    own, theirs = names
    return json.dumps({"StartAt": "Store", "States": {"Store": {
        "Type": "Task", "Resource": "arn:aws:states:::aws-sdk:s3:putObject", "End": True,
        "Parameters": {"Bucket": theirs or own, "Key": "orders.json", "Body.$": "$"}}}})


lake = private_bucket("lake")
partner = pulumi.StackReference("acme/partner-exchange/prod")
aws.sfn.StateMachine("forward-orders", role_arn="arn:aws:iam::111122223333:role/sfn",
                     definition=pulumi.Output.all(lake.bucket, partner.get_output("dropBucket")).apply(store_into),
                     encryption_configuration={"type": "CUSTOMER_MANAGED_KMS_KEY", "kms_key_id": key.arn,
                                               "kms_data_key_reuse_period_seconds": 300})
