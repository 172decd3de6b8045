"""Leak: a WAF web ACL for CloudFront is an edge service too."""
# expect: cloud-all-resource-edge-service-forbidden acl

import pulumi_aws as aws

aws.wafv2.WebAcl("acl", scope="CLOUDFRONT", default_action={"allow": {}},
                 visibility_config={"cloudwatch_metrics_enabled": False, "metric_name": "acl",
                                    "sampled_requests_enabled": False})
