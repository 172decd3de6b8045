"""Leak: a workload is configured to write checkpoints to an endpoint in Frankfurt."""
# expect: cloud-all-resource-references-in-country train-config

import pulumi_kubernetes as k8s

k8s.core.v1.ConfigMap("train-config", data={"CHECKPOINT_URL": "https://s3.eu-central-1.amazonaws.com/ckpt",
                                            "EPOCHS": "3"})
