"""Leak (fail closed): an unknown data-holding package that names no place."""
# expect: cloud-all-resource-region-allowed cluster

import json  # noqa: F401

import pulumi  # noqa: F401

pulumi.CustomResource("mongodbatlas:index/cluster:Cluster", "cluster", {"name": "c", "projectId": "p"})
