"""Leak: the stack's default `aws:region` is Ireland."""
# expect: aws-all-resource-region-allowed role

import json

import pulumi_aws as aws

aws.iam.Role("role", assume_role_policy=json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}]}))
