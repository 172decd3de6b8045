"""Leak (fail closed): an unknown data-holding package that names no place."""
# expect: cloud-all-resource-region-allowed cluster

import pulumi

pulumi.CustomResource("mongodbatlas:index/cluster:Cluster", "cluster", {"name": "c", "projectId": "p"})
