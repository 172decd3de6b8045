"""Leak (egress, URLs): a trainer's environment sends its outputs to a bucket by S3's global host, which shows
no region, and the bucket is not the program's."""
# expect: cloud-all-resource-references-in-country trainer

import pulumi_kubernetes as k8s

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"

k8s.apps.v1.Deployment("trainer", metadata={"namespace": "research"}, spec={
    "selector": {"match_labels": {"app": "trainer"}},
    "template": {"metadata": {"labels": {"app": "trainer"}}, "spec": {"containers": [{
        "name": "train", "image": f"{ECR}/sahab/workload:1",
        "env": [{"name": "EXPORT_URL", "value": "https://partner-exports.s3.amazonaws.com/models/"}]}]}}})
