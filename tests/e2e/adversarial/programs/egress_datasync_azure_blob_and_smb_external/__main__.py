"""Leak: DataSync locations on an Azure Blob container outside the UAE (by URL) and on an SMB server named by
host, both task destinations."""
# expect: cloud-all-resource-references-in-country blob-abroad
# expect: cloud-all-resource-references-in-country partner-smb

import pulumi_aws as aws

AGENT = "arn:aws:datasync:me-central-1:111122223333:agent/agent-0a"
blob = aws.datasync.LocationAzureBlob("blob-abroad", agent_arns=[AGENT], authentication_type="SAS",
                                      container_url="https://partnerdrop.blob.core.windows.net/incoming",
                                      sas_configuration={"token": "sp=w&sig=not-a-secret"})
smb = aws.datasync.LocationSmb("partner-smb", agent_arns=[AGENT], server_hostname="files.partner-office.com",
                               subdirectory="/drop", user="sync", password="not-a-secret")
for name, loc in (("to-blob", blob), ("to-smb", smb)):
    aws.datasync.Task(name, source_location_arn="arn:aws:datasync:me-central-1:111122223333:location/loc-0a",
                      destination_location_arn=loc.arn)
