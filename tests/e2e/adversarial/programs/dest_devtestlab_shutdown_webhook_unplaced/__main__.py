"""Leak (egress): a UAE North VM auto-shutdown schedule whose notices (the VM, its lab, its owner) go to a webhook
at a host nobody can place offline."""
# expect: cloud-all-resource-references-in-country shutdown

import pulumi_azure_native as azure_native

rg = azure_native.resources.ResourceGroup("rg", location="uaenorth")
azure_native.devtestlab.GlobalSchedule(
    "shutdown", resource_group_name=rg.name, location="uaenorth", task_type="ComputeVmShutdownTask",
    daily_recurrence={"time": "1900"}, time_zone_id="Arabian Standard Time", status="Enabled",
    notification_settings={"status": "Enabled", "time_in_minutes": 30,
                           "webhook_url": "https://hooks.example.com/shutdown"})
