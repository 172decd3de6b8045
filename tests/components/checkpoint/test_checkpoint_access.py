"""Checkpoints that outlive their nodes on every kind of cluster, as planned: AKS pods with workload identity to
their team's own container; on-prem pods to the site's in-country S3-compatible store with credentials that are
Pulumi secrets end to end."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from sahab.components.errors import ConfigError
from sahab.components.fleet_config import parse_fleet

from sahab.cli import main
from tests.components.kubernetes.manifests import validate
from tests.fleets import ROOT, prod_with_only, stack_fleet
from tests.plans import stack_plan

# Its programs fork from warm hosts (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("warm_program_hosts")

JOB = "kubernetes:batch/v1:Job"
SECRET = "kubernetes:core/v1:Secret"
# Each team has its own key, which the store limits to <bucket>/<team>/.
STORE = {"endpoint": "https://s3.auh.example.ae:9443", "bucket": "sahab-checkpoints", "addresses": ["10.10.5.0/28"],
         "team_credentials": {"research": {"access_key_id_secret": "auhResearchKeyId",
                                           "secret_access_key_secret": "auhResearchSecretKey"}}}
# Ciphertexts as `pulumi config set --secret` leaves them in a stack file: never in a plan.
SECURE = {"auhResearchKeyId": "v1:ACCESSKEYCIPHERTEXT01", "auhResearchSecretKey": "v1:SECRETKEYCIPHERTEXT02"}


@pytest.fixture(scope="module")
def prod():
    return stack_plan("prod")


def _job(plan_resources, name: str) -> dict:
    (job,) = [r.inputs if hasattr(r, "inputs") else r["inputs"] for r in plan_resources
              if (r.type if hasattr(r, "type") else r["type"]) == JOB
              and (r.inputs if hasattr(r, "inputs") else r["inputs"])["metadata"]["name"] == name]
    return job


def _env(job: dict) -> dict:
    (container,) = job["spec"]["template"]["spec"]["containers"]
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container["env"]}


def test_aks_training_writes_to_its_teams_container_with_workload_identity_only(prod):
    by_name = {r.name: r for r in prod.resources}
    base = "sahab-aks-main-research-checkpoints"
    job = _job(prod.resources, "train-aks-h100")
    pod = job["spec"]["template"]
    # The pods: the workload identity webhook's label, the account the identity trusts, where to write.
    assert pod["metadata"]["labels"]["azure.workload.identity/use"] == "true"
    assert pod["spec"]["serviceAccountName"] == "checkpoint-writer"
    env = _env(job)
    container = by_name[f"{base}-container"]
    assert env["SAHAB_CHECKPOINT_DIR"] == f"az://{container.inputs['containerName']}/train-aks-h100"
    account = by_name["sahab-azcheckpoints-account"]
    assert env["AZURE_STORAGE_ACCOUNT"] == account.inputs["accountName"]
    assert not any(k in env for k in ("AZURE_STORAGE_CONNECTION_STRING", "AZURE_STORAGE_KEY", "AZURE_CLIENT_SECRET"))
    assert account.inputs["allowSharedKeyAccess"] is False  # an Entra token is the only way in

    # The account names the identity; the identity trusts exactly that account on this cluster's issuer.
    sa = by_name[f"{base}-sa"].inputs
    assert (sa["metadata"]["namespace"], sa["metadata"]["name"]) == (job["metadata"]["namespace"], "checkpoint-writer")
    identity = by_name[f"{base}-identity"]
    assert sa["metadata"]["annotations"]["azure.workload.identity/client-id"] == identity.outputs["clientId"]
    federation = by_name[f"{base}-federation"].inputs
    assert federation["subject"] == "system:serviceaccount:research:checkpoint-writer"
    assert federation["audiences"] == ["api://AzureADTokenExchange"]
    aks = next(r for r in prod.resources if r.type == "azure-native:containerservice:ManagedCluster")
    assert aks.inputs["securityProfile"]["workloadIdentity"]["enabled"] is True
    assert federation["issuer"] == aks.outputs["oidcIssuerProfile"]["issuerURL"]
    assert federation["resourceName"] == identity.outputs["name"]

    # One role, Storage Blob Data Contributor, on the team's container only: not the account, not the group.
    grants = [r.inputs for r in prod.resources if r.type == "azure-native:authorization:RoleAssignment"
              and r.inputs["principalId"] == identity.outputs["principalId"]]
    assert len(grants) == 1
    assert grants[0]["roleDefinitionId"].endswith("/roleDefinitions/ba92f5b4-2d11-453d-a403-e96b0029c9fe")
    assert grants[0]["scope"] == container.id
    assert grants[0]["scope"].endswith("/blobServices/default/containers/research-checkpoints")
    assert container.inputs["publicAccess"] == "None"
    assert validate({"apiVersion": "v1", "kind": "ServiceAccount", **{k: v for k, v in sa.items()
                                                                      if k not in ("apiVersion", "kind")}}) == []


def test_aks_workload_identity_pods_may_reach_entra_id_and_nothing_else_outside(prod):
    """The token exchange goes to Entra ID, which has no private endpoint: the team's default-deny namespace lets
    the workload-identity pods (and only them) reach that one name on 443, as an FQDN rule the cluster enforces."""
    job = next(r for r in prod.resources if r.type == "kubernetes:batch/v1:Job"
               and r.inputs["metadata"]["name"] == "train-aks-h100")
    pod_labels = job.inputs["spec"]["template"]["metadata"]["labels"]
    (policy,) = [r for r in prod.resources if r.type == "kubernetes:cilium.io/v2:CiliumNetworkPolicy"
                 and r.provider == job.provider]
    body = policy.inputs
    assert body["metadata"]["namespace"] == job.inputs["metadata"]["namespace"]
    selector = body["spec"]["endpointSelector"]["matchLabels"]
    assert selector.items() <= pod_labels.items() and selector == {"azure.workload.identity/use": "true"}
    fqdn_rules = [rule for rule in body["spec"]["egress"] if "toFQDNs" in rule]
    assert fqdn_rules == [{"toFQDNs": [{"matchName": "login.microsoftonline.com"}],
                           "toPorts": [{"ports": [{"port": "443", "protocol": "TCP"}]}]}]
    assert all(set(rule) <= {"toFQDNs", "toEndpoints", "toPorts"} for rule in body["spec"]["egress"])
    # FQDN rules are enforced only with ACNS security on the Cilium dataplane.
    aks = next(r for r in prod.resources if r.type == "azure-native:containerservice:ManagedCluster")
    network = aks.inputs["networkProfile"]
    assert network["networkDataplane"] == "cilium"
    assert network["advancedNetworking"]["security"] == {"enabled": True, "advancedNetworkPolicies": "FQDN"}
    # No pod without the label gets it: the EKS and on-prem clusters have no such policy.
    assert not [r for r in prod.resources if r.type == "kubernetes:cilium.io/v2:CiliumNetworkPolicy"
                and r.provider != job.provider]


def _prod_program(tmp_path: Path, store: dict | None, secrets: dict[str, str]) -> Path:
    """A copy of the project's program whose prod stack gives the Abu Dhabi site an object store: prod's two on-prem
    clusters only (Abu Dhabi with the store, Dubai without), the clouds' clusters have no part in it."""
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    (tmp_path / "stacks").mkdir()
    shutil.copy(ROOT / "stacks" / "__main__.py", tmp_path / "stacks" / "__main__.py")
    doc = yaml.safe_load((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())
    doc["config"]["sahab:fleet"] = prod_with_only("auh-onprem", "dxb-onprem")
    if store:
        doc["config"]["sahab:fleet"]["sites"][0]["object_store"] = store
    doc["config"].update({f"sahab:{k}": {"secure": v} for k, v in secrets.items()})
    (tmp_path / "stacks" / "Pulumi.prod.yaml").write_text(yaml.safe_dump(doc))
    return tmp_path


def _plan_json(capsys, program: Path) -> tuple[int, str, str]:
    code = main(["plan", "--stack", "prod", "--format", "json", "--program", str(program)])
    out, err = capsys.readouterr()
    return code, out, err


def test_on_prem_training_checkpoints_to_the_sites_store_with_secret_credentials(capsys, tmp_path):
    program = _prod_program(tmp_path, STORE, SECURE)
    code, out, err = _plan_json(capsys, program)
    assert code == 0, err
    assert not any(v in out for v in SECURE.values())
    doc = json.loads(out)
    assert doc["readiness"]["ok"], doc["readiness"]["problems"]
    resources = doc["resources"]

    # Abu Dhabi has the store: its pods write there, keep nothing they need on the node, and read the
    # credentials from the team's Secret.
    job = _job(resources, "train-auh-h100")
    env = _env(job)
    assert env["SAHAB_CHECKPOINT_DIR"] == "s3://sahab-checkpoints/research/train-auh-h100"
    assert env["AWS_ENDPOINT_URL_S3"] == "https://s3.auh.example.ae:9443"
    for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        assert env[key] == {"secretKeyRef": {"name": "checkpoint-store", "key": key}}
    volumes = {v["name"]: v for v in job["spec"]["template"]["spec"]["volumes"]}
    assert "emptyDir" in volumes["checkpoints"] and "ephemeral" not in volumes["checkpoints"]
    (init,) = job["spec"]["template"]["spec"]["initContainers"]
    assert not any(e["name"].startswith("AWS_") for e in init["env"])  # the validator never sees the keys

    secrets = [r for r in resources if r["type"] == SECRET and r["inputs"]["metadata"]["name"] == "checkpoint-store"]
    assert len(secrets) == 1 and secrets[0]["provider"].endswith("::sahab-auh-onprem-k8s")
    secret = secrets[0]["inputs"]
    assert secret["metadata"]["namespace"] == job["metadata"]["namespace"] == "research"
    assert secret["stringData"] == "[secret]"

    # The team's pods may reach the store (its private block, its port) and still no other address outside.
    egress = {r["inputs"]["metadata"]["name"]: r["inputs"]["spec"] for r in resources
              if r["type"] == "kubernetes:networking.k8s.io/v1:NetworkPolicy"
              and r["inputs"]["metadata"]["namespace"] == "research"
              and r["provider"].endswith("::sahab-auh-onprem-k8s")}
    assert egress["allow-object-storage"]["egress"] == [{"to": [{"ipBlock": {"cidr": "10.10.5.0/28"}}],
                                                         "ports": [{"protocol": "TCP", "port": 9443}]}]

    # The policy pack passes it (no residency or plaintext-secret finding).
    assert main(["check", "--stack", "prod", "--program", str(program), "--format", "json"]) == 0
    check = json.loads(capsys.readouterr().out)
    assert check["summary"]["mandatory"] == 0

    # Dubai has none: its pods keep a per-pod volume of the encrypted class, as before, and reach nothing outside.
    assert not [r for r in resources if r["type"] == "kubernetes:networking.k8s.io/v1:NetworkPolicy"
                and r["provider"].endswith("::sahab-dxb-onprem-k8s")
                and r["inputs"]["metadata"]["name"] == "allow-object-storage"]
    dubai = _job(resources, "train-dxb-cpu")
    assert _env(dubai)["SAHAB_CHECKPOINT_DIR"] == "/checkpoints"
    assert "ephemeral" in {v["name"]: v for v in dubai["spec"]["template"]["spec"]["volumes"]}["checkpoints"]


def test_an_object_store_whose_secret_setting_is_not_set_stops_the_plan(capsys, tmp_path):
    secrets = {k: v for k, v in SECURE.items() if k != "auhResearchSecretKey"}
    code, out, err = _plan_json(capsys, _prod_program(tmp_path, STORE, secrets))
    assert code == 2 and out == ""
    (line,) = [line for line in err.splitlines() if line.startswith("error:")]
    assert line.startswith("error: sahab:fleet.sites[0].object_store.team_credentials.research."
                           "secret_access_key_secret")
    assert "auhResearchSecretKey" in line and "Traceback" not in err


def test_a_team_without_its_own_key_for_the_sites_store_stops_the_plan(capsys, tmp_path):
    store = {**STORE, "team_credentials": {"ml-training": STORE["team_credentials"]["research"]}}
    code, out, err = _plan_json(capsys, _prod_program(tmp_path, store, SECURE))
    assert code == 2 and out == ""
    (line,) = err.strip().splitlines()
    assert line.startswith("error: sahab:fleet.sites[0].object_store.team_credentials: team research trains on "
                           "cluster auh-onprem")
    assert "sahab-checkpoints/research/" in line


@pytest.mark.parametrize(("store", "field"), [
    ({**STORE, "endpoint": "http://s3.auh.example.ae"}, "endpoint"),  # checkpoints travel over https
    ({**STORE, "bucket": "Checkpoints_1"}, "bucket"),
    ({**STORE, "addresses": ["52.95.0.0/24"]}, "addresses"),  # a public block would open the namespace to it
    ({k: v for k, v in STORE.items() if k != "addresses"}, "addresses"),
    ({**STORE, "team_credentials": {"research": {"access_key_id_secret": "has-dash",
                                                   "secret_access_key_secret": "ok"}}},
     r"team_credentials\.research\.access_key_id_secret"),
    ({**STORE, "team_credentials": {"Research": STORE["team_credentials"]["research"]}}, "team_credentials"),
    ({**STORE, "team_credentials": {"nobody": STORE["team_credentials"]["research"]}}, r"team_credentials\.nobody"),
])
def test_the_schema_refuses_an_unusable_object_store(store, field):
    fleet = stack_fleet("prod")
    fleet["sites"][0]["object_store"] = store
    with pytest.raises(ConfigError, match=rf"sites\[0\]\.object_store\.{field}"):
        parse_fleet(fleet)


@pytest.mark.parametrize("shared", [
    {"access_key_id_secret": "onpremS3AccessKeyId"},
    {"secret_access_key_secret": "onpremS3SecretAccessKey"},
    {"access_key_id_secret": "onpremS3AccessKeyId", "secret_access_key_secret": "onpremS3SecretAccessKey"},
])
def test_one_bucket_wide_key_for_every_team_is_refused_saying_why(shared):
    fleet = stack_fleet("prod")
    fleet["sites"][0]["object_store"] = {**{k: v for k, v in STORE.items() if k != "team_credentials"}, **shared}
    with pytest.raises(ConfigError) as refused:
        parse_fleet(fleet)
    assert refused.value.path == f"sahab:fleet.sites[0].object_store.{next(iter(shared))}"
    assert "would let each team read and overwrite the others' checkpoints" in refused.value.message
    assert "team_credentials.<team>" in refused.value.message


def test_two_teams_naming_one_key_is_the_shared_key_again():
    fleet = stack_fleet("prod")
    key = STORE["team_credentials"]["research"]
    fleet["sites"][0]["object_store"] = {**STORE, "team_credentials": {"research": key, "ml-training": key}}
    with pytest.raises(ConfigError, match=r"object_store\.team_credentials: teams research and ml-training both "
                                          r"name the secret setting auhResearchKeyId"):
        parse_fleet(fleet)
