"""Leak: a replica of a multi-Region key, created in Ireland."""
# expect: aws-kms-key-single-region replica
# expect: aws-all-resource-region-allowed replica

import pulumi_aws as aws

aws.kms.ReplicaKey("replica", primary_key_arn="arn:aws:kms:me-central-1:111122223333:key/mrk-1234",
                   region="eu-west-1", deletion_window_in_days=30)
