"""Leak: an analyst's WorkSpace in the UAE whose root and user volumes are left unencrypted (both switches default
to off)."""
# expect: aws-storage-datastore-encrypted-cmk analyst

import pulumi_aws as aws

aws.workspaces.Workspace("analyst", directory_id="d-9067a3b1c2", bundle_id="wsb-bh8rsxt14", user_name="analyst",
                         workspace_properties={"running_mode": "AUTO_STOP",
                                               "running_mode_auto_stop_timeout_in_minutes": 60})
