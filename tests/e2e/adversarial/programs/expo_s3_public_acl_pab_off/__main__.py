"""Leak (public exposure): patient exports in a bucket whose public access block is switched off and whose ACL is
public-read (the issue's case, once only an advisory)."""
# expect: aws-s3-bucket-acl-not-public exports-acl


import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

exports = aws.s3.BucketV2("exports")
aws.s3.BucketServerSideEncryptionConfiguration("exports-sse", bucket=exports.id, rules=[{
    "apply_server_side_encryption_by_default": {"sse_algorithm": "aws:kms", "kms_master_key_id": key.arn}}])
aws.s3.BucketPublicAccessBlock("exports-pab", bucket=exports.id, block_public_acls=False, block_public_policy=False,
                               ignore_public_acls=False, restrict_public_buckets=False)
aws.s3.BucketOwnershipControls("exports-owner", bucket=exports.id, rule={"object_ownership": "ObjectWriter"})
aws.s3.BucketAclV2("exports-acl", bucket=exports.id, acl="public-read")
