"""Leak: CloudFront caches the bucket's objects at edge locations worldwide."""
# expect: cloud-all-resource-edge-service-forbidden cdn

import pulumi_aws as aws

aws.cloudfront.Distribution("cdn", enabled=True, origins=[{"domain_name": "origin.example.ae", "origin_id": "o",
    "custom_origin_config": {"http_port": 80, "https_port": 443, "origin_protocol_policy": "https-only",
                             "origin_ssl_protocols": ["TLSv1.2"]}}],
    default_cache_behavior={"allowed_methods": ["GET", "HEAD"], "cached_methods": ["GET", "HEAD"],
                            "target_origin_id": "o", "viewer_protocol_policy": "https-only",
                            "cache_policy_id": "658327ea-f89d-4fab-a63d-7e88639e58f6"},
    restrictions={"geo_restriction": {"restriction_type": "whitelist", "locations": ["AE"]}},
    viewer_certificate={"cloudfront_default_certificate": True})
