"""Leak: the program's own providers, named as the engine names its default ones, with no region, in a stack whose
`aws:region` is me-central-1. The engine configures only its own default providers from the stack (it hands them
the stack's settings as inputs); these take their region from AWS_REGION or the profile."""
# expect: aws-all-resource-region-allowed vpc
# expect: aws-all-resource-region-allowed versioned-vpc
# expect: aws-pulumi-provider-region-allowed default
# expect: aws-pulumi-provider-region-allowed default_6_0_0

import pulumi
import pulumi_aws as aws

own = aws.Provider("default")
versioned = aws.Provider("default_6_0_0", profile="partner-account")
aws.ec2.Vpc("vpc", cidr_block="10.0.0.0/16", opts=pulumi.ResourceOptions(provider=own))
aws.ec2.Vpc("versioned-vpc", cidr_block="10.1.0.0/16", opts=pulumi.ResourceOptions(provider=versioned))
