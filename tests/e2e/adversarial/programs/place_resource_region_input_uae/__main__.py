"""Look-alike: the per-resource `region` input names me-central-1."""
# expect: pass

import pulumi_aws as aws

aws.ec2.Vpc("vpc", cidr_block="10.0.0.0/16", region="me-central-1")
