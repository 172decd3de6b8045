"""Leak: Global Accelerator routes traffic through edge locations abroad."""
# expect: cloud-all-resource-edge-service-forbidden ga

import pulumi_aws as aws

aws.globalaccelerator.Accelerator("ga", name="ga", ip_address_type="IPV4", enabled=True)
