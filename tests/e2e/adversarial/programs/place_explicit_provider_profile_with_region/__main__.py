"""Look-alike: an explicit provider with a profile and its region pinned to me-central-1."""
# expect: pass

import pulumi
import pulumi_aws as aws

partner = aws.Provider("partner", profile="partner-account", region="me-central-1")
aws.ec2.Vpc("vpc", cidr_block="10.0.0.0/16", opts=pulumi.ResourceOptions(provider=partner))
