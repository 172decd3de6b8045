"""Leak: a SageMaker notebook whose volume uses the AWS-managed key."""
# expect: aws-storage-datastore-encrypted-cmk lab

import pulumi_aws as aws

aws.sagemaker.NotebookInstance("lab", instance_type="ml.t3.medium",
                               role_arn="arn:aws:iam::111122223333:role/sagemaker")
