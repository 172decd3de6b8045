"""Leak (egress, URLs): a training config map points checkpoints at `s3://` of a bucket the program does not
create; with no other S3 endpoint named, that is a bucket on Amazon S3 in whichever region it was made."""
# expect: cloud-all-resource-references-in-country train-config

import pulumi_kubernetes as k8s

k8s.core.v1.ConfigMap("train-config", metadata={"namespace": "research"},
                      data={"CHECKPOINT_URI": "s3://partner-ckpt-archive/run-7", "STEPS": "2000"})
