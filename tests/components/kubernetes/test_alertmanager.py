"""Alertmanager receivers from `sahab:fleet`: planned for prod, credentials only as Pulumi secrets mounted as files,
a default route, grouping and the inhibit rules; bad receivers refused with their config path."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from sahab.components.errors import ConfigError
from sahab.components.fleet_config import Alerting, parse_fleet
from sahab.components.kubernetes.alertmanager import MOUNT_DIR, SECRET_NAME, alertmanager_config

from sahab.cli import main
from tests.components.kubernetes.manifests import validate
from tests.fleets import ROOT, prod_with_only, stack_fleet
from tests.plans import stack_command

RELEASE = "kubernetes:helm.sh/v3:Release"
SECRET = "kubernetes:core/v1:Secret"
# Ciphertexts as `pulumi config set --secret` leaves them in a stack file; they must never reach a plan.
SECURE = {"alertsSlackUrl": "v1:SLACKCIPHERTEXT0001", "alertsTeamsUrl": "v1:TEAMSCIPHERTEXT0002",
          "alertsHookToken": "v1:HOOKCIPHERTEXT0003", "alertsSmtpPassword": "v1:SMTPCIPHERTEXT0004"}
RECEIVERS = [
    {"name": "oncall-mail", "type": "email", "to": ["gpu-oncall@example.ae", "sre@example.ae"],
     "from_address": "alertmanager@example.ae", "smarthost": "smtp.example.ae:587", "username": "alertmanager",
     "password_secret": "alertsSmtpPassword"},
    {"name": "gpu-chat", "type": "slack", "url_secret": "alertsSlackUrl", "channel": "#gpu-alerts"},
    {"name": "gpu-pager", "type": "msteams", "url_secret": "alertsTeamsUrl", "severities": ["critical"]},
    {"name": "ticketing", "type": "webhook", "url": "https://tickets.example.ae/alertmanager",
     "bearer_token_secret": "alertsHookToken", "severities": ["critical", "warning"]},
]


def plan_json(capsys, program: Path, stack: str = "prod") -> tuple[int, str, str]:
    argv = ["plan", "--stack", stack, "--format", "json", "--program", str(program)]
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# Two of prod's clusters, of two kinds: every cluster's monitoring gets the receivers whatever its kind.
CLUSTERS = ("auh-onprem", "eks-main")


def prod_program(tmp_path: Path, receivers: list[dict], secrets: dict[str, str]) -> Path:
    """A copy of the project's program whose prod stack (cut to CLUSTERS) has these receivers and secret settings."""
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    (tmp_path / "stacks").mkdir()
    shutil.copy(ROOT / "stacks" / "__main__.py", tmp_path / "stacks" / "__main__.py")
    doc = yaml.safe_load((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())
    doc["config"]["sahab:fleet"] = prod_with_only(*CLUSTERS)
    doc["config"]["sahab:fleet"]["monitoring"]["alerting"] = {"receivers": receivers}
    doc["config"].update({f"sahab:{k}": {"secure": v} for k, v in secrets.items()})
    (tmp_path / "stacks" / "Pulumi.prod.yaml").write_text(yaml.safe_dump(doc))
    return tmp_path


def releases(plan: dict) -> list[dict]:
    return [r for r in plan["resources"]
            if r["type"] == RELEASE and r["inputs"]["chart"].endswith("/kube-prometheus-stack")]


def test_the_prod_stack_sends_alerts_to_its_receiver_on_every_cluster():
    planned = stack_command("plan", "prod")  # `sahab plan --stack prod --format json`, once per run
    assert planned.code == 0
    plan = json.loads(planned.out)
    found = releases(plan)
    assert len(found) == 4
    for release in found:
        config = release["inputs"]["values"]["alertmanager"]["config"]
        assert config["route"]["receiver"] == "platform-oncall"
        assert {r["name"] for r in config["receivers"]} == {"null", "platform-oncall"}
        (mail,) = next(r for r in config["receivers"] if r["name"] == "platform-oncall")["email_configs"]
        assert (mail["to"], mail["smarthost"], mail["require_tls"]) == ("gpu-oncall@example.ae",
                                                                        "smtp.example.ae:587", True)
        assert len(config["inhibit_rules"]) == 2
        # Alerts say which cluster they come from: the inhibit rules and the grouping rely on it.
        cluster = release["name"].removeprefix("sahab-").removesuffix("-platform-monitoring-release")
        assert release["inputs"]["values"]["prometheus"]["prometheusSpec"]["externalLabels"] == {"cluster": cluster}


def test_receiver_credentials_are_pulumi_secrets_mounted_as_files_never_in_the_plan(capsys, tmp_path):
    code, out, err = plan_json(capsys, prod_program(tmp_path, RECEIVERS, SECURE))
    assert code == 0, err
    for ciphertext in SECURE.values():
        assert ciphertext not in out
    plan = json.loads(out)
    secrets = [r for r in plan["resources"] if r["type"] == SECRET and r["inputs"]["metadata"]["name"] == SECRET_NAME]
    assert sorted(s["provider"].rsplit("::sahab-", 1)[1] for s in secrets) == [
        f"{cluster}-k8s" for cluster in CLUSTERS]  # one per cluster, in the monitoring namespace
    for secret in secrets:
        assert secret["inputs"]["metadata"]["namespace"] == "monitoring"
        assert secret["inputs"]["stringData"] == "[secret]" or set(secret["inputs"]["stringData"].values()) == {
            "[secret]"}
    assert len(releases(plan)) == len(CLUSTERS)
    for release in releases(plan):
        values = release["inputs"]["values"]["alertmanager"]
        assert values["alertmanagerSpec"]["secrets"] == [SECRET_NAME]
        by_name = {r["name"]: r for r in values["config"]["receivers"]}
        assert by_name["gpu-chat"]["slack_configs"][0]["api_url_file"] == f"{MOUNT_DIR}/gpu-chat-url"
        assert by_name["gpu-chat"]["slack_configs"][0]["channel"] == "#gpu-alerts"
        assert by_name["gpu-pager"]["msteams_configs"][0]["webhook_url_file"] == f"{MOUNT_DIR}/gpu-pager-url"
        hook = by_name["ticketing"]["webhook_configs"][0]
        assert hook["url"] == "https://tickets.example.ae/alertmanager"
        assert hook["http_config"]["authorization"]["credentials_file"] == f"{MOUNT_DIR}/ticketing-token"
        mail = by_name["oncall-mail"]["email_configs"][0]
        assert mail["auth_password_file"] == f"{MOUNT_DIR}/oncall-mail-password"
        assert mail["to"] == "gpu-oncall@example.ae, sre@example.ae"
        routes = {r["receiver"]: r for r in values["config"]["route"]["routes"]}
        assert routes["gpu-pager"]["matchers"] == ['severity=~"critical"'] and routes["gpu-pager"]["continue"]
        assert "matchers" not in routes["gpu-chat"]


def test_the_receivers_secret_is_a_valid_kubernetes_secret():
    secret = {"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
              "metadata": {"name": SECRET_NAME, "namespace": "monitoring"},
              "stringData": {"gpu-chat-url": "x", "gpu-pager-url": "y"}}
    assert validate(secret) == []


def test_a_receiver_whose_secret_setting_is_not_set_stops_the_plan(capsys, tmp_path):
    secrets = {k: v for k, v in SECURE.items() if k != "alertsTeamsUrl"}
    code, out, err = plan_json(capsys, prod_program(tmp_path, RECEIVERS, secrets))
    assert code == 2 and out == ""
    (line,) = err.strip().splitlines()
    assert line.startswith("error: sahab:fleet.monitoring.alerting.receivers[2].url_secret")
    assert "alertsTeamsUrl" in line and "Traceback" not in err


def test_default_route_grouping_and_inhibition():
    config = alertmanager_config(Alerting(receivers=RECEIVERS, default_receiver="gpu-chat", group_wait="1m"))
    route = config["route"]
    assert route["receiver"] == "gpu-chat"
    assert (route["group_by"], route["group_wait"], route["group_interval"], route["repeat_interval"]) == (
        ["alertname", "cluster", "namespace"], "1m", "5m", "4h")
    assert route["routes"][0] == {"receiver": "null", "matchers": ['alertname=~"Watchdog|InfoInhibitor"']}
    critical_over_warning, node_over_gpu = config["inhibit_rules"]
    assert critical_over_warning == {"source_matchers": ['severity="critical"'],
                                     "target_matchers": ['severity="warning"'], "equal": ["alertname", "cluster"]}
    assert "NodeNotReady" in node_over_gpu["source_matchers"][0]
    assert node_over_gpu["target_matchers"] == ['alertname=~"Gpu.+"'] and node_over_gpu["equal"] == ["cluster", "node"]
    # No receivers: everything goes to `null`, nothing else is invented.
    empty = alertmanager_config(Alerting())
    assert empty["route"]["receiver"] == "null" and empty["receivers"] == [{"name": "null"}]


def test_gpu_alerts_carry_the_node_label_the_inhibit_rule_joins_on():
    from sahab.components.kubernetes.alerts import rule_groups
    from sahab.components.kubernetes.monitoring import dcgm_service_monitor_spec

    relabel = dcgm_service_monitor_spec()["endpoints"][0]["relabelings"][0]
    assert relabel["targetLabel"] == "node"
    names = {r["alert"] for g in rule_groups(20, True) for r in g["rules"]}
    assert "NodeNotReady" in names and any(n.startswith("Gpu") for n in names)


@pytest.mark.parametrize(("receiver", "path", "says"), [
    ({"name": "hook", "type": "webhook", "url": "http://tickets.example.ae/x"}, "receivers[0].url", "https"),
    ({"name": "mail", "type": "email", "to": ["not-an-address"], "from_address": "a@example.ae",
      "smarthost": "smtp.example.ae:587"}, "receivers[0].to[0]", ""),
    ({"name": "mail", "type": "email", "to": ["a@example.ae"], "smarthost": "smtp.example.ae:587"},
     "receivers[0]", "from_address"),
    ({"name": "chat", "type": "slack", "url": "https://hooks.slack.com/services/T/B/X"}, "receivers[0]",
     "url_secret"),
    ({"name": "chat", "type": "slack", "url_secret": "has-dash"}, "receivers[0].url_secret", ""),
    ({"name": "hook", "type": "webhook", "url": "https://a.example.ae", "url_secret": "x"}, "receivers[0]",
     "exactly one"),
    ({"name": "pager", "type": "msteams", "url_secret": "x", "severities": ["page"]}, "receivers[0].severities[0]",
     ""),
])
def test_bad_receivers_are_refused_with_their_config_path(receiver, path, says):
    fleet = stack_fleet("prod")
    fleet["monitoring"]["alerting"] = {"receivers": [receiver]}
    with pytest.raises(ConfigError) as err:
        parse_fleet(fleet)
    assert err.value.path == f"sahab:fleet.monitoring.alerting.{path}", str(err.value)
    assert says in str(err.value)


def test_default_receiver_must_exist():
    fleet = stack_fleet("prod")
    fleet["monitoring"]["alerting"] = {"receivers": RECEIVERS, "default_receiver": "nobody"}
    with pytest.raises(ConfigError) as err:
        parse_fleet(fleet)
    assert err.value.path == "sahab:fleet.monitoring.alerting" and "nobody" in str(err.value)
