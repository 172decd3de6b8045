"""Look-alike: Glue tables and a job that keep their data in a bucket this program creates in me-central-1; a crawler
reads a partner's export bucket (a read: it writes only table definitions into this catalog)."""
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

lake = private_bucket("crm-lake")
db = aws.glue.CatalogDatabase("crm-db", name="crm", location_uri=lake.bucket.apply(lambda b: f"s3://{b}/crm/"))
aws.glue.CatalogTable("customers", name="customers", database_name=db.name, table_type="EXTERNAL_TABLE",
                      storage_descriptor={"location": lake.bucket.apply(lambda b: f"s3://{b}/crm/customers/"),
                                          "columns": [{"name": "id", "type": "string"}]})
aws.glue.Job("nightly-etl", role_arn="arn:aws:iam::111122223333:role/glue", glue_version="4.0",
             command={"script_location": lake.bucket.apply(lambda b: f"s3://{b}/code/etl.py")},
             default_arguments={"--TempDir": lake.bucket.apply(lambda b: f"s3://{b}/tmp/"),
                                "--job-language": "python", "--enable-metrics": "true",
                                "--additional-python-modules": "pyarrow==14.0.1,awswrangler==3.4.0",
                                "--conf": "spark.sql.shuffle.partitions=64",
                                "--enable-continuous-cloudwatch-log": "true"})
aws.glue.Crawler("partner-exports", database_name=db.name, role="arn:aws:iam::111122223333:role/glue",
                 s3_targets=[{"path": "s3://partner-exports-bucket/crm/"}])
