"""Leak (open world): a Keyspaces (Cassandra) table encrypted under an AWS-owned key. The open-world rule once
caught it as an unjudged type; SAHAB-AWS-030 now judges Keyspaces tables and refuses the AWS-owned key."""
# expect: aws-storage-datastore-encrypted-cmk patients


import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

aws.keyspaces.Table("patients", keyspace_name="clinic", table_name="patients", schema_definition={
    "columns": [{"name": "id", "type": "text"}], "partition_keys": [{"name": "id"}]},
    encryption_specification={"type": "AWS_OWNED_KMS_KEY"})
