"""Leak (fail closed): a Firehose delivery stream whose S3 destination (`extended_s3_configuration.bucket_arn`) and
a DataSync S3 location (the bucket a task copies into) are buckets this program does not create: a bucket ARN
carries no region, so their place cannot be shown."""
# expect: cloud-all-resource-references-in-country stream
# expect: cloud-all-resource-references-in-country archive-location

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
aws.kinesis.FirehoseDeliveryStream(
    "stream", destination="extended_s3",
    server_side_encryption={"enabled": True, "key_type": "CUSTOMER_MANAGED_CMK", "key_arn": key.arn},
    extended_s3_configuration={"role_arn": "arn:aws:iam::111122223333:role/firehose",
                               "bucket_arn": "arn:aws:s3:::partner-clickstream-archive", "kms_key_arn": key.arn})
aws.datasync.S3Location("archive-location", s3_bucket_arn="arn:aws:s3:::partner-research-archive",
                        subdirectory="/datasets",
                        s3_config={"bucket_access_role_arn": "arn:aws:iam::111122223333:role/datasync"})
