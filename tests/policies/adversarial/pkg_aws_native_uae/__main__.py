"""Look-alike: an aws-native VPC in me-central-1."""
# expect: pass

import json  # noqa: F401

import pulumi  # noqa: F401

pulumi.CustomResource("aws-native:ec2:Vpc", "vpc", {"cidrBlock": "10.0.0.0/16"})
