"""Leak (fail closed): the region comes from another resource's output, unknown until the update runs."""
# expect: aws-all-resource-region-allowed vpc
# xfail: engine gap: the offline engine resolves provider-computed outputs (RandomShuffle.results) to mock values instead of unknowns, so the region is known during `sahab check`

import json  # noqa: F401

import pulumi  # noqa: F401
import pulumi_aws as aws

import pulumi_random as random
pick = random.RandomShuffle("pick", inputs=["me-central-1", "eu-west-1"], result_count=1)
aws.ec2.Vpc("vpc", cidr_block="10.0.0.0/16", region=pick.results[0])
