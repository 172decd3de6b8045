"""Look-alike: an aws-native VPC in me-central-1."""
# expect: pass

import pulumi

pulumi.CustomResource("aws-native:ec2:Vpc", "vpc", {"cidrBlock": "10.0.0.0/16"})
