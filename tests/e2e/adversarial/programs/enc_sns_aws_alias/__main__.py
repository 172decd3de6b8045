"""Leak: an SNS topic under the AWS-managed alias/aws/sns key."""
# expect: aws-storage-datastore-encrypted-cmk events

import pulumi_aws as aws

aws.sns.Topic("events", kms_master_key_id="alias/aws/sns")
