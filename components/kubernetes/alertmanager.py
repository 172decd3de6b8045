"""Alertmanager's configuration from the fleet's `monitoring.alerting`: receivers, the default route, grouping
and inhibition, as kube-prometheus-stack's `alertmanager.config` value.

Credentials never enter the config (nor the Helm values, nor the plan): each one is a file Alertmanager reads
from a Kubernetes Secret that the operator mounts under `/etc/alertmanager/secrets/<secret>/` (the chart's
`alertmanagerSpec.secrets`). `secret_files` says which file holds which secret stack setting.
Every receiver gets the alerts of its severities (all when it names none) through a child route with `continue`,
so several receivers can hear the same alert; the root route's receiver (the default receiver, else `null`)
hears what no child route took. The dead-man's switch `Watchdog` and the chart's `InfoInhibitor` go to `null`.
"""

from __future__ import annotations

from dataclasses import dataclass

from sahab.components.fleet_config import Alerting, AlertReceiver

SECRET_NAME = "alertmanager-receivers"
MOUNT_DIR = f"/etc/alertmanager/secrets/{SECRET_NAME}"
NULL = "null"
# Alerts meaning a node is gone; its GPU alerts are noise while it is.
NODE_DOWN_ALERTS = ("NodeNotReady", "KubeNodeNotReady", "KubeNodeUnreachable")
GPU_ALERTS = "Gpu.+"


@dataclass(frozen=True)
class SecretFile:
    file: str  # key in the Secret, file name under MOUNT_DIR
    setting: str  # the secret stack setting, `sahab:<setting>`
    path: str  # where in the fleet config it is named, for errors


def secret_files(alerting: Alerting, where: str = "sahab:fleet.monitoring.alerting") -> list[SecretFile]:
    files = []
    for i, r in enumerate(alerting.receivers):
        for field_name, suffix in (("url_secret", "url"), ("password_secret", "password"),
                                   ("bearer_token_secret", "token")):
            setting = getattr(r, field_name)
            if setting:
                files.append(SecretFile(f"{r.name}-{suffix}", setting, f"{where}.receivers[{i}].{field_name}"))
    return files


def _file(receiver: AlertReceiver, suffix: str) -> str:
    return f"{MOUNT_DIR}/{receiver.name}-{suffix}"


def receiver_config(r: AlertReceiver) -> dict:
    """One Alertmanager receiver; secrets only as `*_file` paths."""
    if r.type == "email":
        email = {"to": ", ".join(r.to), "from": r.from_address, "smarthost": r.smarthost, "require_tls": True,
                 "send_resolved": True}
        if r.username:
            email["auth_username"] = r.username
        if r.password_secret:
            email["auth_password_file"] = _file(r, "password")
        return {"name": r.name, "email_configs": [email]}
    if r.type == "slack":
        slack = {"api_url_file": _file(r, "url"), "send_resolved": True}
        if r.channel:
            slack["channel"] = r.channel
        return {"name": r.name, "slack_configs": [slack]}
    if r.type == "msteams":
        return {"name": r.name, "msteams_configs": [{"webhook_url_file": _file(r, "url"), "send_resolved": True}]}
    hook: dict = {"send_resolved": True}
    if r.url:
        hook["url"] = r.url
    else:
        hook["url_file"] = _file(r, "url")
    if r.bearer_token_secret:
        hook["http_config"] = {"authorization": {"type": "Bearer", "credentials_file": _file(r, "token")}}
    return {"name": r.name, "webhook_configs": [hook]}


def inhibit_rules() -> list[dict]:
    return [
        # A critical alert silences the warning of the same alert on the same cluster.
        {"source_matchers": ['severity="critical"'], "target_matchers": ['severity="warning"'],
         "equal": ["alertname", "cluster"]},
        # A node that is down silences its GPU alerts (they carry the node's name, see dcgm_service_monitor_spec).
        {"source_matchers": [f'alertname=~"{"|".join(NODE_DOWN_ALERTS)}"'],
         "target_matchers": [f'alertname=~"{GPU_ALERTS}"'], "equal": ["cluster", "node"]},
    ]


def alertmanager_config(alerting: Alerting) -> dict:
    routes: list[dict] = [{"receiver": NULL, "matchers": ['alertname=~"Watchdog|InfoInhibitor"']}]
    for r in alerting.receivers:
        route: dict = {"receiver": r.name, "continue": True}
        if r.severities:
            route["matchers"] = [f'severity=~"{"|".join(r.severities)}"']
        routes.append(route)
    return {
        "global": {"resolve_timeout": "5m"},
        "route": {"receiver": alerting.default() or NULL, "group_by": list(alerting.group_by),
                  "group_wait": alerting.group_wait, "group_interval": alerting.group_interval,
                  "repeat_interval": alerting.repeat_interval, "routes": routes},
        "receivers": [{"name": NULL}] + [receiver_config(r) for r in alerting.receivers],
        "inhibit_rules": inhibit_rules(),
        "templates": ["/etc/alertmanager/config/*.tmpl"],
    }
