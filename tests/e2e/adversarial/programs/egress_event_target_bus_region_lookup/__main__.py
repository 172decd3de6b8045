"""Leak: an EventBridge rule targeting an event bus whose ARN is built from a region lookup pinned to eu-west-1:
every matching event (its detail carries the record) is sent there."""
# expect: cloud-all-resource-references-in-country forward

import pulumi
import pulumi_aws as aws

abroad = aws.get_region_output(region="eu-west-1")
rule = aws.cloudwatch.EventRule("orders", event_pattern='{"source": ["app.orders"]}')
aws.cloudwatch.EventTarget("forward", rule=rule.name, role_arn="arn:aws:iam::111122223333:role/events",
                           arn=pulumi.Output.concat("arn:aws:events:", abroad.region,
                                                    ":111122223333:event-bus/central"))
