"""Where an existing resource lives is known offline only when the stack declares it (`sahab:existing`); who the
program runs as, and the zones of its own region, are always answered."""

import pulumi
import pulumi_aws as aws
import pulumi_azure_native as azure

# Storage in an existing resource group's location: one group is declared, the other is not.
for name, group_name in (("acctundeclared", "shared-undeclared"), ("acctdeclared", "shared-network")):
    group = azure.resources.get_resource_group(resource_group_name=group_name)
    azure.storage.StorageAccount(name, resource_group_name=group.name, location=group.location, kind="StorageV2",
                                 sku={"name": "Standard_ZRS"}, minimum_tls_version="TLS1_2",
                                 enable_https_traffic_only=True, allow_blob_public_access=False)

# A bucket encrypted under an existing key found by its alias: its ARN carries the key's region.
for name, alias in (("data-undeclared", "alias/undeclared"), ("data-declared", "alias/corp-data")):
    key = aws.kms.get_alias(name=alias)
    bucket = aws.s3.Bucket(name)
    aws.s3.BucketServerSideEncryptionConfiguration(f"{name}-sse", bucket=bucket.id, rules=[{
        "apply_server_side_encryption_by_default": {"sse_algorithm": "aws:kms",
                                                    "kms_master_key_id": key.target_key_arn}}])

# A queue beside an existing bucket read by its name (`Resource.get`): its region is the bucket's.
for name, bucket_name in (("queue-undeclared", "corp-undeclared"), ("queue-declared", "corp-logs")):
    existing = aws.s3.Bucket.get(f"{name}-bucket", bucket_name)
    aws.sqs.Queue(name, region=existing.region, sqs_managed_sse_enabled=True)

me = aws.get_caller_identity()
zones = aws.get_availability_zones()
client = azure.authorization.get_client_config()
pulumi.export("account", me.account_id)
pulumi.export("zones", zones.names)
pulumi.export("tenant", client.tenant_id)
