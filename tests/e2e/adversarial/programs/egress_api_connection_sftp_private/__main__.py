"""Look-alike: a Logic Apps managed API connection to an SFTP server on a private address of the company network."""
# expect: pass

import pulumi
import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
client = azure_native.authorization.get_client_config_output()
azure_native.web.Connection(
    "sftp", resource_group_name=rg.name, location="uaenorth",
    properties={"display_name": "onprem sftp",
                "api": {"id": pulumi.Output.concat("/subscriptions/", client.subscription_id,
                                                   "/providers/Microsoft.Web/locations/uaenorth/managedApis/sftpwithssh")},
                "parameter_values": {"hostName": "10.50.0.9", "userName": "etl", "portNumber": "22"}})
