"""Leak: Global Accelerator routes traffic through edge locations abroad."""
# expect: cloud-all-resource-edge-service-forbidden ga

import json  # noqa: F401

import pulumi  # noqa: F401
import pulumi_aws as aws

aws.globalaccelerator.Accelerator("ga", name="ga", ip_address_type="IPV4", enabled=True)
