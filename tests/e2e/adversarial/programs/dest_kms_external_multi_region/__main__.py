"""Leak: an imported (external) KMS key made multi-Region."""
# expect: aws-kms-key-single-region imported

import pulumi_aws as aws

aws.kms.ExternalKey("imported", multi_region=True, deletion_window_in_days=30)
