"""Leak (egress): a log search alert rule whose notifications, carrying the query's results, go to an action group
this program does not create, by its id."""
# expect: cloud-all-resource-references-in-country failed-logins

import pulumi_azure_native as azure_native

SOC = ("/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/soc/providers/microsoft.insights/"
       "actionGroups/global-soc")
rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
ws = azure_native.operationalinsights.Workspace("ws", resource_group_name=rg.name, location="uaenorth",
                                                sku={"name": "PerGB2018"}, retention_in_days=30)
azure_native.monitor.ScheduledQueryRule(
    "failed-logins", resource_group_name=rg.name, location="uaenorth", enabled=True, severity=2,
    scopes=[ws.id], evaluation_frequency="PT5M", window_size="PT5M",
    criteria={"all_of": [{"query": "SigninLogs | where ResultType != 0", "time_aggregation": "Count",
                          "operator": "GreaterThan", "threshold": 10}]},
    actions={"action_groups": [SOC]})
