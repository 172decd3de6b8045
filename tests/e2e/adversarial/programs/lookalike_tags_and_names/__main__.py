"""Look-alike: places only in tags and in a resource's name."""
# expect: pass

import pulumi_aws as aws

aws.ec2.Vpc("vpc", cidr_block="10.0.0.0/16", tags={"migrated-from": "eu-west-1", "Name": "westeurope-legacy"})
