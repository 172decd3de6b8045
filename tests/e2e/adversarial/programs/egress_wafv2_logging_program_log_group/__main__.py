"""Look-alike: WAF request logs delivered to a log group this program creates in me-central-1."""
# expect: pass

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
acl = aws.wafv2.WebAcl("api-acl", scope="REGIONAL", default_action={"allow": {}},
                       visibility_config={"cloudwatch_metrics_enabled": True, "metric_name": "api-acl",
                                          "sampled_requests_enabled": True})

group = aws.cloudwatch.LogGroup("aws-waf-logs-api", name="aws-waf-logs-api", retention_in_days=365,
                                kms_key_id=key.arn)
aws.wafv2.WebAclLoggingConfiguration("waf-logs", resource_arn=acl.arn, log_destination_configs=[group.arn])
