"""Leak: events forwarded to an event bus in Ireland."""
# expect: cloud-all-resource-references-in-country forward

import json

import pulumi_aws as aws

rule = aws.cloudwatch.EventRule("rule", event_pattern=json.dumps({"source": ["sahab.training"]}))
aws.cloudwatch.EventTarget("forward", rule=rule.name,
                           arn="arn:aws:events:eu-west-1:111122223333:event-bus/default",
                           role_arn="arn:aws:iam::111122223333:role/events")
