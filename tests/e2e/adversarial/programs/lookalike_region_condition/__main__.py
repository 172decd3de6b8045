"""Look-alike: an IAM policy that *denies* requests to other regions names them only in its Condition."""
# expect: pass

import json

import pulumi_aws as aws

role = aws.iam.Role("role", assume_role_policy=json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}]}))
aws.iam.RolePolicy("deny-abroad", role=role.id, policy=json.dumps({"Version": "2012-10-17", "Statement": [{
    "Effect": "Deny", "Action": "*", "Resource": "*",
    "Condition": {"StringEquals": {"aws:RequestedRegion": ["eu-west-1", "us-east-1"]}}}]}))
