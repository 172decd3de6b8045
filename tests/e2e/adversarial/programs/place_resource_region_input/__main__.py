"""Leak: a per-resource `region` input overrides the UAE provider."""
# expect: aws-all-resource-region-allowed vpc

import pulumi_aws as aws

aws.ec2.Vpc("vpc", cidr_block="10.0.0.0/16", region="eu-west-1")
