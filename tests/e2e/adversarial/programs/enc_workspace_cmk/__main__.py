"""Look-alike: an analyst's WorkSpace with both volumes encrypted under a key this program creates in the UAE."""
# expect: pass

import pulumi_aws as aws

key = aws.kms.Key("workspaces", enable_key_rotation=True, deletion_window_in_days=30)

aws.workspaces.Workspace("analyst", directory_id="d-9067a3b1c2", bundle_id="wsb-bh8rsxt14", user_name="analyst",
                         root_volume_encryption_enabled=True, user_volume_encryption_enabled=True,
                         volume_encryption_key=key.arn)
