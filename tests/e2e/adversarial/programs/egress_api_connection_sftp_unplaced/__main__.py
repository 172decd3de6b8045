"""Leak (egress): a Logic Apps managed API connection to an SFTP server on an outside host: every workflow using it
writes files there."""
# expect: cloud-all-resource-references-in-country sftp

import pulumi
import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
client = azure_native.authorization.get_client_config_output()
azure_native.web.Connection(
    "sftp", resource_group_name=rg.name, location="uaenorth",
    properties={"display_name": "partner sftp",
                "api": {"id": pulumi.Output.concat("/subscriptions/", client.subscription_id,
                                                   "/providers/Microsoft.Web/locations/uaenorth/managedApis/sftpwithssh")},
                "parameter_values": {"hostName": "sftp.partner-files.example.com", "userName": "drop",
                                     "portNumber": "22"}})
