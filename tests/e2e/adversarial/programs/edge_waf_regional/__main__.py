"""Look-alike: a regional WAF web ACL in me-central-1."""
# expect: pass

import pulumi_aws as aws

aws.wafv2.WebAcl("acl", scope="REGIONAL", default_action={"allow": {}},
                 visibility_config={"cloudwatch_metrics_enabled": False, "metric_name": "acl",
                                    "sampled_requests_enabled": False})
