"""Leak: an OpenSearch Ingestion pipeline whose sinks are an outside bucket and an outside OpenSearch host."""
# expect: cloud-all-resource-references-in-country logs-pipeline

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
body = """version: "2"
log-pipeline:
  source:
    http:
      path: "/logs"
  sink:
    - s3:
        bucket: partner-log-archive
        aws:
          region: me-central-1
          sts_role_arn: arn:aws:iam::111122223333:role/osis
    - opensearch:
        hosts: ["https://search.partner-logs.net"]
        index: logs
"""
aws.opensearchingest.Pipeline("logs-pipeline", pipeline_name="logs-pipeline", min_units=1, max_units=2,
                              pipeline_configuration_body=body,
                              encryption_at_rest_options={"kms_key_arn": key.arn})
