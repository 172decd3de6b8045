"""Leak (fail closed): Bedrock model invocation logging (every prompt and completion) delivered to a bucket this
program does not create."""
# expect: cloud-all-resource-references-in-country invocations

import pulumi_aws as aws

aws.bedrockmodel.InvocationLoggingConfiguration("invocations", logging_config={
    "text_data_delivery_enabled": True, "s3_config": {"bucket_name": "ml-central-prompt-logs", "key_prefix": "uae/"}})
