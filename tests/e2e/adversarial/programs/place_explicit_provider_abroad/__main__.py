"""Leak: an explicit provider pinned to Frankfurt."""
# expect: aws-all-resource-region-allowed sg
# expect: aws-pulumi-provider-region-allowed frankfurt

import pulumi
import pulumi_aws as aws

frankfurt = aws.Provider("frankfurt", region="eu-central-1")
aws.ec2.SecurityGroup("sg", description="x", opts=pulumi.ResourceOptions(provider=frankfurt))
