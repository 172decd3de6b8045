"""Leak: a DataSync task copying into an object-storage location whose server is a host outside this program;
the location resource itself is in me-central-1, but the objects are written to that host."""
# expect: cloud-all-resource-references-in-country offsite

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
offsite = aws.datasync.LocationObjectStorage("offsite", server_hostname="objects.partner-storage.net",
                                             bucket_name="uae-offsite", server_protocol="HTTPS", server_port=443,
                                             agent_arns=["arn:aws:datasync:me-central-1:111122223333:agent/agent-0a"])
aws.datasync.Task("copy-out", source_location_arn="arn:aws:datasync:me-central-1:111122223333:location/loc-0a",
                  destination_location_arn=offsite.arn)
