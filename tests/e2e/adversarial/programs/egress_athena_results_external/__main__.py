"""Leak (egress, export): Athena query results written to an s3:// location in a bucket outside the program."""
# expect: cloud-all-resource-references-in-country analysts


import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

aws.athena.Workgroup("analysts", configuration={"result_configuration": {
    "output_location": "s3://shared-query-results-archive/analysts/",
    "encryption_configuration": {"encryption_option": "SSE_KMS", "kms_key_arn": key.arn}}})
