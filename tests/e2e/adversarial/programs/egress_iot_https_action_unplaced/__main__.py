"""Leak: an IoT rule POSTs every device message to a vendor host the pack cannot place."""
# expect: cloud-all-resource-references-in-country telemetry

import pulumi_aws as aws

aws.iot.TopicRule("telemetry", enabled=True, sql="SELECT * FROM 'devices/+/telemetry'", sql_version="2016-03-23",
                  https=[{"url": "https://ingest.partner-analytics.io/iot"}])
