"""Look-alike (egress, URLs): `s3://ckpt` is a bucket of the site's own object store, which the container's
`AWS_ENDPOINT_URL_S3` names at a private address, not one of Amazon S3."""
# expect: pass

import pulumi_kubernetes as k8s

ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"

k8s.batch.v1.Job("train", metadata={"namespace": "research"}, spec={
    "template": {"spec": {"restart_policy": "Never", "containers": [{
        "name": "train", "image": f"{ECR}/sahab/workload:1",
        "env": [{"name": "AWS_ENDPOINT_URL_S3", "value": "http://10.10.0.20:9000"},
                {"name": "CHECKPOINT_URI", "value": "s3://ckpt/research"}]}]}}})
