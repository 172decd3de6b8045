"""Leak (egress, URLs): an export job's config names its destination by a bucket ARN, which carries no region, of a
bucket the program does not create."""
# expect: cloud-all-resource-references-in-country export-config

import pulumi_kubernetes as k8s

k8s.core.v1.ConfigMap("export-config", metadata={"namespace": "research"},
                      data={"EXPORT_BUCKET_ARN": "arn:aws:s3:::partner-model-drop", "FORMAT": "safetensors"})
