"""Look-alike: an explicit provider pinned to me-central-1, no stack region."""
# expect: pass

import pulumi
import pulumi_aws as aws

uae = aws.Provider("uae", region="me-central-1")
aws.ec2.Vpc("vpc", cidr_block="10.0.0.0/16", opts=pulumi.ResourceOptions(provider=uae))
