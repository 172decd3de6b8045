"""Leak: a DataSync NFS location on a server this program does not create, named by host, as a task's
destination."""
# expect: cloud-all-resource-references-in-country partner-nfs

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
AGENT = "arn:aws:datasync:me-central-1:111122223333:agent/agent-0a"
share = aws.datasync.NfsLocation("partner-nfs", server_hostname="nfs.partner-hosting.com", subdirectory="/exports",
                                 on_prem_config={"agent_arns": [AGENT]})
aws.datasync.Task("copy-out", source_location_arn="arn:aws:datasync:me-central-1:111122223333:location/loc-0a",
                  destination_location_arn=share.arn)
