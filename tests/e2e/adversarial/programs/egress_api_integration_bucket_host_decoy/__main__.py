"""Leak (fail closed): an API Gateway integration sends requests to a bucket's S3 host; the bucket is not this
program's, though an in-country topic of the program carries its name."""
# expect: cloud-all-resource-references-in-country proxy

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
aws.sns.Topic("decoy", name="partner-uploads", kms_master_key_id=key.arn)
api = aws.apigateway.RestApi("api", endpoint_configuration={"types": "PRIVATE"})
aws.apigateway.Integration("proxy", rest_api=api.id, resource_id=api.root_resource_id, http_method="PUT",
                           type="HTTP_PROXY", integration_http_method="PUT",
                           uri="https://partner-uploads.s3.amazonaws.com/incoming")
