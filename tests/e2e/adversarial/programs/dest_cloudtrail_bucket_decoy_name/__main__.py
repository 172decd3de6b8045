"""Leak (fail closed): a trail delivers to a bucket of another account; the program gives a queue of its own, in
the UAE, the bucket's name. A bucket name names a bucket only, so the queue does not place the bucket."""
# expect: cloud-all-resource-references-in-country trail

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
aws.sqs.Queue("decoy", name="partner-trail-archive", kms_master_key_id=key.arn)
aws.cloudtrail.Trail("trail", s3_bucket_name="partner-trail-archive", kms_key_id=key.arn,
                     enable_log_file_validation=True)
