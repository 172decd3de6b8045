"""Leak: a Security Lake data lake in me-central-1 whose replication configuration rolls its security data (flow
logs, DNS queries, CloudTrail events) up into a contributing Region abroad."""
# expect: cloud-all-resource-references-in-country lake

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
aws.securitylake.DataLake("lake", meta_store_manager_role_arn="arn:aws:iam::111122223333:role/lake-meta",
                          configuration={"region": "me-central-1",
                                         "encryption_configurations": [{"kms_key_id": key.arn}],
                                         "replication_configuration": {
                                             "regions": ["eu-west-1"],
                                             "role_arn": "arn:aws:iam::111122223333:role/lake-repl"}})
