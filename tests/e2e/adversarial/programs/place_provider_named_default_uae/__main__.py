"""Look-alike: the program's own provider named `default`, pinned to me-central-1, beside resources on the engine's
default provider, which the stack's `aws:region` configures."""

import pulumi
import pulumi_aws as aws

own = aws.Provider("default", region="me-central-1")
aws.ec2.Vpc("vpc", cidr_block="10.0.0.0/16", opts=pulumi.ResourceOptions(provider=own))
aws.ec2.Vpc("stack-vpc", cidr_block="10.1.0.0/16")
