"""Look-alike (direction): a Deny on the EU archive's ARNs and an event pattern matching eu-west-1: a deny list and a
filter name places, nothing goes there."""
# expect: pass

import json

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

role = aws.iam.Role("role", assume_role_policy=json.dumps({"Version": "2012-10-17", "Statement": [{
    "Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}]}))
aws.iam.RolePolicy("no-eu-archive", role=role.id, policy=json.dumps({"Version": "2012-10-17", "Statement": [{
    "Effect": "Deny", "Action": "s3:*",
    "Resource": ["arn:aws:s3:::archive-eu-west-1", "arn:aws:s3:::archive-eu-west-1/*",
                 "arn:aws:sqs:eu-west-1:111122223333:legacy"]}]}))
aws.cloudwatch.EventRule("eu-activity", event_pattern=json.dumps({"source": ["aws.s3"], "region": ["eu-west-1"]}))
