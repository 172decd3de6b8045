"""Leak: the provider is pinned to the UAE but sends S3 calls to Ireland."""
# expect: cloud-all-resource-references-in-country uae

import pulumi
import pulumi_aws as aws

uae = aws.Provider("uae", region="me-central-1", endpoints=[{"s3": "https://s3.eu-west-1.amazonaws.com"}])
aws.ec2.Vpc("vpc", cidr_block="10.0.0.0/16", opts=pulumi.ResourceOptions(provider=uae))
