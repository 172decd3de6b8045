"""Leak: a SageMaker endpoint configuration whose asynchronous inference responses (the model's output on the
request payloads) are uploaded to a bucket this program does not create."""
# expect: cloud-all-resource-references-in-country async

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
aws.sagemaker.EndpointConfiguration("async", kms_key_arn=key.arn, production_variants=[{
    "variant_name": "main", "model_name": "scorer", "initial_instance_count": 1, "instance_type": "ml.m5.large"}],
    async_inference_config={"output_config": {"s3_output_path": "s3://partner-inference-results/out",
                                              "s3_failure_path": "s3://partner-inference-results/failed",
                                              "kms_key_id": key.arn}})
