"""Look-alike: a log search alert rule notifying an action group this program creates (its receiver an e-mail
address)."""
# expect: pass

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
ws = azure_native.operationalinsights.Workspace("ws", resource_group_name=rg.name, location="uaenorth",
                                                sku={"name": "PerGB2018"}, retention_in_days=30)
group = azure_native.monitor.ActionGroup("soc", resource_group_name=rg.name, location="global",
                                         group_short_name="soc", enabled=True,
                                         email_receivers=[{"name": "oncall", "email_address": "soc@example.ae"}])
azure_native.monitor.ScheduledQueryRule(
    "failed-logins", resource_group_name=rg.name, location="uaenorth", enabled=True, severity=2,
    scopes=[ws.id], evaluation_frequency="PT5M", window_size="PT5M",
    criteria={"all_of": [{"query": "SigninLogs | where ResultType != 0", "time_aggregation": "Count",
                          "operator": "GreaterThan", "threshold": 10}]},
    actions={"action_groups": [group.id]})
