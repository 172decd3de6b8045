"""Leak (egress): a CloudTrail trail publishing log files to another organisation's bucket, by name."""
# expect: cloud-all-resource-references-in-country trail


import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

aws.cloudtrail.Trail("trail", s3_bucket_name="central-audit-trail", kms_key_id=key.arn, enable_log_file_validation=True)
