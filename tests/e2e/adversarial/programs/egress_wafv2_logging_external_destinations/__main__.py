"""Leak: WAF request logs (headers, client addresses, URIs) delivered to a bucket this program does not create, and
to a Firehose stream found by lookup."""
# expect: cloud-all-resource-references-in-country waf-logs-bucket
# expect: cloud-all-resource-references-in-country waf-logs-firehose

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
acl = aws.wafv2.WebAcl("api-acl", scope="REGIONAL", default_action={"allow": {}},
                       visibility_config={"cloudwatch_metrics_enabled": True, "metric_name": "api-acl",
                                          "sampled_requests_enabled": True})

aws.wafv2.WebAclLoggingConfiguration("waf-logs-bucket", resource_arn=acl.arn,
                                     log_destination_configs=["arn:aws:s3:::aws-waf-logs-partner"])
acl2 = aws.wafv2.WebAcl("web-acl", scope="REGIONAL", default_action={"allow": {}},
                        visibility_config={"cloudwatch_metrics_enabled": True, "metric_name": "web-acl",
                                           "sampled_requests_enabled": True})
hose = aws.kinesis.get_firehose_delivery_stream_output(name="aws-waf-logs-partner")
aws.wafv2.WebAclLoggingConfiguration("waf-logs-firehose", resource_arn=acl2.arn,
                                     log_destination_configs=[hose.arn])
