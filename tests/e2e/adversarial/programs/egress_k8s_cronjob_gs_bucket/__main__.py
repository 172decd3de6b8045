"""Leak (egress, URLs): a nightly job copies the data volume to a Google Cloud Storage bucket, which no resource of
the program places."""
# expect: cloud-all-resource-references-in-country nightly-copy

import pulumi_kubernetes as k8s

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"

k8s.batch.v1.CronJob("nightly-copy", metadata={"namespace": "research"}, spec={
    "schedule": "0 2 * * *",
    "job_template": {"spec": {"template": {"spec": {"restart_policy": "Never", "containers": [{
        "name": "copy", "image": f"{ECR}/tools/gsutil:5",
        "args": ["-m", "rsync", "-r", "/data", "gs://partner-archive/research"]}]}}}}})
