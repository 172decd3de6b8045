"""Leak (edge endpoint on by default): a REST API without an endpoint type is edge-optimized, fronted by CloudFront."""
# expect: cloud-all-resource-edge-service-forbidden api


import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

aws.apigateway.RestApi("api", description="patient portal")
