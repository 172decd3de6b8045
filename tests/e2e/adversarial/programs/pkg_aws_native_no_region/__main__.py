"""Leak (fail closed): aws-native with no region anywhere."""
# expect: aws-all-resource-region-allowed vpc

import pulumi

pulumi.CustomResource("aws-native:ec2:Vpc", "vpc", {"cidrBlock": "10.0.0.0/16"})
