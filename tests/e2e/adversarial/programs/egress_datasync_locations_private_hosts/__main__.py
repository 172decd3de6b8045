"""Look-alike: DataSync object-storage and NFS locations on private addresses (an on-prem site in the country,
reached over the VPN), as task destinations."""
# expect: pass

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
AGENT = "arn:aws:datasync:me-central-1:111122223333:agent/agent-0a"
store = aws.datasync.LocationObjectStorage("onprem-objects", server_hostname="10.40.1.20", bucket_name="archive",
                                           server_protocol="HTTPS", server_port=443,
                                           agent_arns=[AGENT])
share = aws.datasync.NfsLocation("onprem-nfs", server_hostname="192.168.10.5", subdirectory="/exports",
                                 on_prem_config={"agent_arns": [AGENT]})
for name, loc in (("to-objects", store), ("to-nfs", share)):
    aws.datasync.Task(name, source_location_arn="arn:aws:datasync:me-central-1:111122223333:location/loc-0a",
                      destination_location_arn=loc.arn)
