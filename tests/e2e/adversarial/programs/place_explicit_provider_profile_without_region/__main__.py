"""Leak: an explicit provider with only a profile, in a stack whose `aws:region` is me-central-1. The stack's
config configures default providers only; this one takes its region from AWS_REGION or the profile."""
# expect: aws-all-resource-region-allowed vpc

import pulumi
import pulumi_aws as aws

partner = aws.Provider("partner", profile="partner-account")
aws.ec2.Vpc("vpc", cidr_block="10.0.0.0/16", opts=pulumi.ResourceOptions(provider=partner))
