"""Leak: a CloudFormation StackSet instance deployed to Virginia."""
# expect: cloud-all-resource-references-in-country instance

import pulumi_aws as aws

aws.cloudformation.StackSetInstance("instance", stack_set_name="baseline", stack_set_instance_region="us-east-1")
