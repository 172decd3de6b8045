"""Leak (open world): an Aurora DSQL cluster holds relational data; no rule of the pack judges the type (its SDK
gives it a KMS key input, so the pack knows it holds data)."""
# expect: cloud-all-datastore-judged orders

import pulumi_aws as aws

aws.dsql.Cluster("orders", deletion_protection_enabled=True)
