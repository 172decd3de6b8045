"""Leak: an S3 Multi-Region Access Point over buckets this program does not create (bucket names are global and
carry no region)."""
# expect: cloud-all-resource-references-in-country mrap

import pulumi_aws as aws

aws.s3control.MultiRegionAccessPoint("mrap", details={"name": "orders", "regions": [
    {"bucket": "orders-primary-uae"}, {"bucket": "orders-dr-copy"}]})
