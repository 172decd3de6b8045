"""Leak: an explicit provider without a region and no stack `aws:region`: the SDK falls back to whoever runs it."""
# expect: aws-pulumi-provider-region-allowed bare
# expect: aws-all-resource-region-allowed vpc

import pulumi
import pulumi_aws as aws

bare = aws.Provider("bare")
aws.ec2.Vpc("vpc", cidr_block="10.0.0.0/16", opts=pulumi.ResourceOptions(provider=bare))
