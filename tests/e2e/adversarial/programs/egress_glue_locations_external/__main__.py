"""Leak: Glue catalog tables and a database whose data location is a bucket this program does not create (every
INSERT, CTAS and job writing the table writes there), and a Glue job whose temporary and output directories are
outside buckets."""
# expect: cloud-all-resource-references-in-country crm-db
# expect: cloud-all-resource-references-in-country customers
# expect: cloud-all-resource-references-in-country orders-2026
# expect: cloud-all-resource-references-in-country nightly-etl

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

code = private_bucket("etl-code")
db = aws.glue.CatalogDatabase("crm-db", name="crm", location_uri="s3://partner-lake/crm/")
table = aws.glue.CatalogTable("customers", name="customers", database_name=db.name, table_type="EXTERNAL_TABLE",
                              storage_descriptor={"location": "s3://partner-lake/crm/customers/",
                                                  "input_format": "org.apache.hadoop.mapred.TextInputFormat",
                                                  "columns": [{"name": "id", "type": "string"}]})
orders = aws.glue.CatalogTable("orders", name="orders", database_name=db.name, table_type="EXTERNAL_TABLE",
                               partition_keys=[{"name": "year", "type": "string"}],
                               storage_descriptor={"location": code.bucket.apply(lambda b: f"s3://{b}/orders/")})
aws.glue.Partition("orders-2026", database_name=db.name, table_name=orders.name, partition_values=["2026"],
                   storage_descriptor={"location": "s3://partner-lake/crm/orders/year=2026/"})
aws.glue.Job("nightly-etl", role_arn="arn:aws:iam::111122223333:role/glue", glue_version="4.0",
             command={"script_location": code.bucket.apply(lambda b: f"s3://{b}/etl.py")},
             default_arguments={"--TempDir": "s3://partner-scratch/tmp/",
                                "--output_path": "s3://partner-lake/exports/", "--job-language": "python"})
