"""Leak (egress, webhook): EventBridge forwards events to an HTTPS endpoint whose place cannot be shown."""
# expect: cloud-all-resource-references-in-country partner-hook


import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)

connection = aws.cloudwatch.EventConnection("partner", authorization_type="API_KEY", auth_parameters={
    "api_key": {"key": "x-api-key", "value": "not-a-real-key"}})
aws.cloudwatch.EventApiDestination("partner-hook", connection_arn=connection.arn, http_method="POST",
                                   invocation_endpoint="https://events.partner-analytics.io/ingest")
