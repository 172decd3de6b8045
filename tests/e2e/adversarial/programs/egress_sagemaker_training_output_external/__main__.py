"""Leak: a SageMaker training job whose model artifacts (trained on the UAE data) are written to a bucket this
program does not create, named in an s3:// path built with a format string."""
# expect: cloud-all-resource-references-in-country train

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
PARTNER = "partner-ml-artifacts"
aws.sagemaker.TrainingJob("train", training_job_name="scorer", role_arn="arn:aws:iam::111122223333:role/sm",
                          algorithm_specification={
                              "training_image": "111122223333.dkr.ecr.me-central-1.amazonaws.com/train:1",
                              "training_input_mode": "File"},
                          resource_config={"instance_type": "ml.m5.large", "instance_count": 1,
                                           "volume_size_in_gb": 30},
                          stopping_condition={"max_runtime_in_seconds": 3600},
                          output_data_config={"s3_output_path": f"s3://{PARTNER}/scorer", "kms_key_id": key.arn})
