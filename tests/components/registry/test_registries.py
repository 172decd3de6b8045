"""`sahab:fleet.registries`: grammar and residency of each registry; the ECR pull-through cache and the ACR cache
rules the prod plan builds, in the right places; upstream logins only as secrets; the mapping and digests."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from sahab.components.artifacts import CATALOG, Images, read_digest_lock
from sahab.components.errors import ConfigError
from sahab.components.fleet_config import parse_fleet
from sahab.components.registry_plan import seed_list

from sahab.cli import main
from sahab.engine import plan
from tests.fleets import prod_with_only, stack_fleet
from tests.plans import stack_plan

# Its programs fork from warm hosts (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("warm_program_hosts")

ROOT = Path(__file__).resolve().parents[3]
ECR = "111122223333.dkr.ecr.me-central-1.amazonaws.com"
DIGEST = "sha256:" + "ab" * 32


def prod_fleet() -> dict:
    return stack_fleet("prod")


def with_registries(**registries) -> dict:
    fleet = copy.deepcopy(prod_fleet())
    fleet["registries"] = registries
    return fleet


@pytest.mark.parametrize(("registries", "path", "says"), [
    ({"eks": {"host": "111122223333.dkr.ecr.eu-west-1.amazonaws.com"}}, "registries.eks.host", "eu-west-1"),
    ({"eks": {"host": "registry.example.ae"}}, "registries.eks.host", "not an ECR registry"),
    ({"eks": {"host": "111122223333.dkr.ecr.uaenorth.amazonaws.com"}}, "registries.eks.host", "allowed: me-central-1"),
    ({"eks": {"host": "bad host"}}, "registries.eks.host", "host[:port]"),
    ({"aks": {"host": "sahabprod.azurecr.io", "location": "westeurope"}}, "registries.aks.location", "westeurope"),
    ({"aks": {"host": "Not_Acr.azurecr.io"}}, "registries.aks.host", "host[:port]"),
    ({"aks": {"host": "sahab.example.ae"}}, "registries.aks.host", "not an Azure Container Registry"),
    ({"onprem": {"host": "quay.io"}}, "registries.onprem.host", "not an on-prem mirror"),
    ({"onprem": {"host": "mirror.gcr.io"}}, "registries.onprem.host", "not an on-prem mirror"),
    ({"onprem": {"host": "us-docker.pkg.dev"}}, "registries.onprem.host", "not an on-prem mirror"),
    ({"onprem": {"host": "registry.hub.docker.com"}}, "registries.onprem.host", "not an on-prem mirror"),
    ({"onprem": {"host": "mirror.example.ae:70000"}}, "registries.onprem.host", "host[:port]"),
    ({"onprem": {"host": "x.dkr.ecr.us-east-1.amazonaws.com"}}, "registries.onprem.host", "not an on-prem mirror"),
    ({"eks": {"host": ECR, "upstream_credentials": {"quay.io": "quayLogin"}}}, "registries.eks.upstream_credentials",
     "takes no credentials"),
    ({"eks": {"host": ECR, "insecure": True}}, "registries.eks.insecure", "unknown key"),
])
def test_a_registry_outside_the_country_or_of_the_wrong_shape_is_refused_naming_the_field(registries, path, says):
    with pytest.raises(ConfigError) as err:
        parse_fleet(with_registries(**registries))
    assert err.value.path == f"sahab:fleet.{path}"
    assert says in err.value.message


def two_bad_registries() -> dict:
    """prod's fleet with an ECR outside the residency list and an ACR host that is no <name>.azurecr.io."""
    return with_registries(eks={"host": "111122223333.dkr.ecr.eu-west-1.amazonaws.com"},
                           aks={"host": "sahab.example.ae", "location": "uaenorth"})


BOTH = [("sahab:fleet.registries.eks.host", "outside the residency list"),
        ("sahab:fleet.registries.aks.host", "not an Azure Container Registry")]


def test_every_bad_registry_is_refused_at_its_own_field_in_one_error():
    with pytest.raises(ConfigError) as err:
        parse_fleet(two_bad_registries())
    problems = getattr(err.value, "problems", (err.value,))
    assert len(problems) == 2
    for problem, (path, says) in zip(problems, BOTH, strict=True):
        assert problem.path == path and says in problem.message


def test_the_cli_names_every_bad_registry_on_one_error_line(tmp_path, capsys):
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "stacks").mkdir()
    doc = yaml.safe_load((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())
    doc["config"]["sahab:fleet"] = two_bad_registries()
    (tmp_path / "stacks" / "Pulumi.prod.yaml").write_text(yaml.safe_dump(doc))
    code = main(["registry", "list", "--stack", "prod", "--program", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error:") and err.count("\n") == 1 and "Traceback" not in err
    for path, says in BOTH:
        assert f"{path}: " in err and says in err.split(f"{path}: ", 1)[1].split(" (problem ")[0]


def test_an_ecr_host_of_another_account_than_the_fleets_is_refused():
    fleet = with_registries(eks={"host": ECR})
    fleet["clouds"]["aws"]["account_id"] = "999999999999"
    with pytest.raises(ConfigError, match="not the fleet's account 999999999999") as err:
        parse_fleet(fleet)
    assert err.value.path == "sahab:fleet.registries.eks.host"


def test_the_aks_registry_defaults_to_the_fleets_azure_location_and_must_be_in_the_uae():
    fleet = with_registries(aks={"host": "sahabprod.azurecr.io"})
    assert parse_fleet(fleet).registries.aks.location is None  # uaenorth, the fleet's
    fleet["residency"] = {"allowed_regions": ["me-central-1", "uaenorth"]}
    fleet["registries"]["aks"]["location"] = "uaecentral"
    with pytest.raises(ConfigError, match="allowed: uaenorth"):
        parse_fleet(fleet)


def test_every_artifact_maps_into_one_layout_and_a_recorded_digest_pins_it():
    """Digests are recorded by the in-country reference the cluster pulls (stacks/digests.lock, sahab registry pin)."""
    pulled = "registry.example.ae:5000/quay/prometheus/prometheus:v3.14.0-distroless"
    images = Images(host="registry.example.ae:5000", digests={pulled: DIGEST})
    assert images.reference("prometheus") == f"{pulled}@{DIGEST}"
    assert images.reference("busybox") == "registry.example.ae:5000/docker-hub/library/busybox:1.38.0"
    assert images.reference("gpu-operator") == "registry.example.ae:5000/nvcr/nvidia/gpu-operator:v26.7.0"
    assert images.chart("monitoring") == ("oci://registry.example.ae:5000/charts/kube-prometheus-stack", "88.5.3", None)
    assert images.values("kueue") == {"repository": "registry.example.ae:5000/k8s/kueue/kueue", "tag": "v0.19.2"}
    # An upstream reference is not what the cluster pulls: a digest recorded under it pins nothing.
    upstream = {"quay.io/prometheus/prometheus:v3.14.0-distroless": DIGEST}
    assert "@" not in Images(host="registry.example.ae:5000", digests=upstream).reference("prometheus")
    # Without a registry everything stays upstream (components used alone, in their own tests).
    assert Images().reference("prometheus") == "quay.io/prometheus/prometheus:v3.14.0-distroless"
    assert Images().chart("cilium") == ("cilium", "1.19.4", {"repo": "https://helm.cilium.io/"})


def test_sahabs_own_image_moves_into_the_clusters_registry_unless_it_is_already_there():
    images = Images(host=ECR)
    assert images.own_image("sahab/workload:0.1.0") == f"{ECR}/sahab/workload:0.1.0"
    assert images.own_image(f"{ECR}/ml/train:2") == f"{ECR}/ml/train:2"
    assert images.own_image(f"x.io/a:1@{DIGEST}") == f"{ECR}/a:1@{DIGEST}"
    # In another fleet registry is not enough: an EKS node cannot pull from the ACR, nor AKS from ECR.
    assert images.own_image("sahabprod.azurecr.io/ml/train:2") == f"{ECR}/ml/train:2"
    assert Images(host="sahabprod.azurecr.io").own_image(f"{ECR}/sahab/workload:0.1.0") == \
        "sahabprod.azurecr.io/sahab/workload:0.1.0"


def test_the_digest_lock_is_read_line_by_line_and_a_bad_line_is_named(tmp_path):
    lock = tmp_path / "digests.lock"
    pulled = "registry.example.ae:5000/quay/prometheus/prometheus:v3.14.0-distroless"
    lock.write_text(f"# written by sahab registry pin\n{pulled} {DIGEST}\n\n")
    assert read_digest_lock(lock) == {pulled: DIGEST}
    for bad in (f"{pulled} sha256:abc\n", f"{pulled}@{DIGEST} {DIGEST}\n"):
        lock.write_text(bad)
        with pytest.raises(ConfigError) as err:
            read_digest_lock(lock)
        assert err.value.path == "digests.lock:1"
    assert read_digest_lock(tmp_path / "absent") == {}


def test_the_repositorys_lock_records_no_digest_that_was_not_read_from_a_registry():
    assert read_digest_lock() == {}  # nothing is invented; prod's digest waiver says so


@pytest.fixture(scope="module")
def prod():
    return stack_plan("prod")


def test_prod_builds_ecr_pull_through_rules_in_me_central_1_for_the_upstreams_ecr_caches(prod):
    providers = {r.urn: r for r in prod.resources if r.type == "pulumi:providers:aws"}
    rules = [r for r in prod.resources if r.type == "aws:ecr/pullThroughCacheRule:PullThroughCacheRule"]
    assert {(r.inputs["ecrRepositoryPrefix"], r.inputs["upstreamRegistryUrl"]) for r in rules} == {
        ("k8s", "registry.k8s.io"), ("quay", "quay.io"),
        ("ecr-public", "public.ecr.aws")}  # docker.io and ghcr.io need a login: seeded in prod
    for rule in rules:
        provider = next(p for urn, p in providers.items() if rule.provider.startswith(urn))
        assert provider.inputs["region"] == "me-central-1"
    repos = {r.inputs["name"]: r for r in prod.resources if r.type == "aws:ecr/repository:Repository"}
    assert {"charts/kube-prometheus-stack", "nvcr/nvidia/gpu-operator", "docker-hub/grafana/grafana",
            "sahab/workload"} <= set(repos)
    for repo in repos.values():
        assert repo.inputs["imageTagMutability"] == "IMMUTABLE"
        assert repo.inputs["encryptionConfigurations"][0]["encryptionType"] == "KMS"


def test_prod_builds_a_private_premium_acr_in_uaenorth_with_wildcard_cache_rules(prod):
    (acr,) = [r for r in prod.resources if r.type == "azure-native:containerregistry:Registry"]
    assert acr.inputs["location"] == "uaenorth" and acr.inputs["registryName"] == "sahabprod"
    assert acr.inputs["sku"] == {"name": "Premium"}
    assert acr.inputs["adminUserEnabled"] is False and acr.inputs["publicNetworkAccess"] == "Disabled"
    rules = [r for r in prod.resources if r.type == "azure-native:containerregistry:CacheRule"]
    assert {(r.inputs["sourceRepository"], r.inputs["targetRepository"]) for r in rules} == {
        ("registry.k8s.io/*", "k8s/*"), ("quay.io/*", "quay/*")}
    pulls = [r for r in prod.resources if r.type == "azure-native:authorization:RoleAssignment"
             and r.name.endswith("-pull")]
    assert [r.name for r in pulls] == ["sahab-acr-aks-main-pull"]
    # With public access off, the nodes pull through a private endpoint in their VNet, named in its private zone.
    (endpoint,) = [r for r in prod.resources if r.type == "azure-native:network:PrivateEndpoint"
                   and r.inputs["privateLinkServiceConnections"][0]["privateLinkServiceId"] == acr.id]
    assert endpoint.inputs["privateLinkServiceConnections"][0]["groupIds"] == ["registry"]
    assert endpoint.inputs["subnet"]["id"].endswith("/subnets/private-endpoints")
    (zone,) = [r for r in prod.resources if r.type == "azure-native:privatedns:PrivateZone"
               and r.inputs["privateZoneName"] == "privatelink.azurecr.io"]
    (group,) = [r for r in prod.resources if r.type == "azure-native:network:PrivateDnsZoneGroup"
                and r.inputs["privateEndpointName"] == endpoint.outputs["name"]]
    assert group.inputs["privateDnsZoneConfigs"][0]["privateDnsZoneId"] == zone.id


def test_burst_borrows_prods_registries_and_builds_none():
    burst = stack_plan("burst")
    assert not [r for r in burst.resources if "ecr/" in r.type or "containerregistry" in r.type]


def program_with_logins(tmp_path: Path) -> Path:
    """A copy of the program whose prod stack logs its caches in to Docker Hub (a secret setting): prod's two cloud
    clusters, whose registries take the login, with their CPU pools; its on-prem sites and GPU pools have no part
    in it (Docker Hub's images, Grafana's, are the monitoring stack's, which every cluster runs)."""
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    (tmp_path / "stacks").mkdir()
    shutil.copy(ROOT / "stacks" / "__main__.py", tmp_path / "stacks" / "__main__.py")
    doc = yaml.safe_load((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())
    fleet = doc["config"]["sahab:fleet"] = prod_with_only("eks-main", "aks-main")
    fleet["node_pools"] = [p for p in fleet["node_pools"] if p.get("accelerator", "cpu") == "cpu"]
    registries = fleet["registries"]
    registries["eks"]["upstream_credentials"] = {"docker.io": "dockerHubPull"}
    registries["aks"]["upstream_credentials"] = {"docker.io": "dockerHubPull"}
    doc["config"]["sahab:dockerHubPull"] = {"secure": "v1:DOCKERHUBCIPHERTEXT"}
    (tmp_path / "stacks" / "Pulumi.prod.yaml").write_text(yaml.safe_dump(doc))
    return tmp_path


def test_an_upstream_login_is_a_secret_and_turns_its_upstream_into_a_cache(tmp_path, capsys, monkeypatch):
    from sahab.engine import host

    runs = []

    def kept(*args, **kwargs):  # the plan `sahab plan` makes, kept for what its JSON leaves out (dependencies)
        runs.append(plan(*args, **kwargs))
        return runs[-1]

    monkeypatch.setattr(host, "plan", kept)
    code = main(["plan", "--stack", "prod", "--format", "json", "--quiet",
                 "--program", str(program_with_logins(tmp_path))])
    out = capsys.readouterr().out
    assert code == 0
    assert "DOCKERHUBCIPHERTEXT" not in out
    resources = json.loads(out)["resources"]
    (rule,) = [r for r in resources if r["type"] == "aws:ecr/pullThroughCacheRule:PullThroughCacheRule"
               and r["inputs"]["ecrRepositoryPrefix"] == "docker-hub"]
    assert rule["inputs"]["upstreamRegistryUrl"] == "registry-1.docker.io"
    (secret,) = [r for r in resources if r["type"] == "aws:secretsmanager/secret:Secret"]
    # ECR reads the login only under Secrets Manager's AWS-managed key, and the policy pack knows it.
    assert secret["inputs"]["name"].startswith("ecr-pullthroughcache/") and "kmsKeyId" not in secret["inputs"]
    (version,) = [r for r in resources if r["type"] == "aws:secretsmanager/secretVersion:SecretVersion"]
    assert version["inputs"]["secretString"] == "[secret]"
    repos = {r["inputs"]["name"] for r in resources if r["type"] == "aws:ecr/repository:Repository"}
    assert "docker-hub/grafana/grafana" not in repos  # cached now, no longer seeded
    (credentials,) = [r for r in resources if r["type"] == "azure-native:containerregistry:CredentialSet"]
    assert credentials["inputs"]["loginServer"] == "docker.io"
    assert credentials["inputs"]["identity"] == {"type": "SystemAssigned"}
    kv = [r for r in resources if r["type"] == "azure-native:keyvault:Secret"]
    assert len(kv) == 2 and all(s["inputs"]["properties"]["value"] == "[secret]" for s in kv)
    docker_rule = [r for r in resources if r["type"] == "azure-native:containerregistry:CacheRule"
                   and r["inputs"]["sourceRepository"] == "docker.io/*"]
    assert docker_rule and docker_rule[0]["inputs"]["targetRepository"] == "docker-hub/*"
    # The credential set's identity may read its two secrets, each the scope of its own assignment.
    (planned,) = runs
    assert planned.stack == "prod" and planned.preview
    readers = [r for r in planned.resources if r.type == "azure-native:authorization:RoleAssignment"
               and r.name.endswith("-reader") and "docker-hub" in r.name]
    secrets = {r.urn for r in planned.resources if r.type == "azure-native:keyvault:Secret"}
    scopes = [set(r.property_dependencies.get("scope", [])) for r in readers]
    assert len(readers) == 2 and all(len(s) == 1 and s <= secrets for s in scopes) and set.union(*scopes) == secrets

    assert main(["check", "--stack", "prod", "--format", "json", "--program", str(tmp_path)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["summary"]["mandatory"] == 0


def test_a_login_setting_the_stack_lacks_is_a_config_error_naming_the_field(tmp_path, capsys):
    program = program_with_logins(tmp_path)
    stack = program / "stacks" / "Pulumi.prod.yaml"
    doc = yaml.safe_load(stack.read_text())
    del doc["config"]["sahab:dockerHubPull"]
    stack.write_text(yaml.safe_dump(doc))
    code = main(["plan", "--stack", "prod", "--quiet", "--program", str(program)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("error:") and "sahab:fleet.registries.eks.upstream_credentials" in err


def test_the_seed_list_names_every_artifact_of_prod_once_per_registry():
    entries = seed_list(parse_fleet(prod_fleet()))
    onprem = [e for e in entries if e.cluster_kind == "onprem"]
    assert {e.source for e in onprem} >= {"quay.io/cilium/cilium:v1.19.4", "registry.k8s.io/pause:3.10.1",
                                           "ghcr.io/kube-vip/kube-vip:v1.0.0",
                                           "https://prometheus-community.github.io/helm-charts#kube-prometheus-stack:88.5.3"}
    eks = {e.source: e for e in entries if e.cluster_kind == "eks"}
    assert eks["registry.k8s.io/autoscaling/cluster-autoscaler:v1.34.0"].how == "cache"
    assert eks["nvcr.io/nvidia/gpu-operator:v26.7.0"].how == "seed"
    assert eks["nvcr.io/nvidia/gpu-operator:v26.7.0"].target == f"{ECR}/nvcr/nvidia/gpu-operator:v26.7.0"
    assert not [e for e in entries if e.cluster_kind == "aks" and "cilium" in e.source]
    assert all(len([e for e in entries if (e.cluster_kind, e.source) == (x.cluster_kind, x.source)]) == 1
               for x in entries)
    assert len(CATALOG) > 25


def test_an_airgapped_site_seeds_every_on_prem_image_while_a_proxying_mirror_caches():
    def how(fleet: dict) -> set[str]:
        return {e.how for e in seed_list(parse_fleet(fleet))
                if e.cluster_kind == "onprem" and e.kind == "image" and e.how != "build"}

    fleet = prod_fleet()
    assert how(fleet) == {"cache"}
    fleet["sites"][0]["airgapped"] = True
    assert how(fleet) == {"seed"}


def test_ecr_creates_cache_repositories_through_a_role_scoped_to_the_cache_prefixes_and_the_key():
    from sahab.components.aws.registry import creation_permissions, creation_trust_policy

    trust = json.loads(creation_trust_policy("111122223333"))["Statement"][0]
    assert trust["Principal"] == {"Service": "ecr.amazonaws.com"}
    assert trust["Condition"] == {"StringEquals": {"aws:SourceAccount": "111122223333"}}
    policy = json.loads(creation_permissions("111122223333", "me-central-1", ["k8s", "quay"], "arn:aws:kms:key/1"))
    create, kms = policy["Statement"]
    assert create["Resource"] == ["arn:aws:ecr:me-central-1:111122223333:repository/k8s/*",
                                  "arn:aws:ecr:me-central-1:111122223333:repository/quay/*"]
    assert kms["Resource"] == "arn:aws:kms:key/1" and "*" not in json.dumps(kms["Action"])


def test_prods_cache_templates_encrypt_with_the_registry_key_through_the_creation_role(prod):
    templates = [r for r in prod.resources
                 if r.type == "aws:ecr/repositoryCreationTemplate:RepositoryCreationTemplate"]
    assert {t.inputs["prefix"] for t in templates} == {"k8s", "quay", "ecr-public"}
    for template in templates:
        assert template.inputs["appliedFors"] == ["PULL_THROUGH_CACHE"]
        assert template.inputs["encryptionConfigurations"][0]["encryptionType"] == "KMS"
        assert "customRoleArn" in template.inputs


def test_eks_nodes_may_import_a_cached_image_on_first_pull_under_the_cache_prefixes_only(prod):
    (policy,) = [r for r in prod.resources if r.type == "aws:iam/rolePolicy:RolePolicy"
                 and r.name == "sahab-ecr-eks-main-first-pull"]
    (statement,) = json.loads(policy.inputs["policy"])["Statement"]
    assert statement["Action"] == ["ecr:BatchImportUpstreamImage", "ecr:CreateRepository"]
    assert statement["Resource"] == ["arn:aws:ecr:me-central-1:111122223333:repository/k8s/*",
                                     "arn:aws:ecr:me-central-1:111122223333:repository/quay/*",
                                     "arn:aws:ecr:me-central-1:111122223333:repository/ecr-public/*"]


@settings(max_examples=60, deadline=None)
@given(region=st.from_regex(r"[a-z]{2}-[a-z]{4,9}-[1-9]", fullmatch=True),
       account=st.from_regex(r"[0-9]{12}", fullmatch=True))
def test_an_ecr_host_is_accepted_exactly_when_its_region_is_in_the_residency_list(region, account):
    fleet = with_registries(eks={"host": f"{account}.dkr.ecr.{region}.amazonaws.com"})
    if region in ("me-central-1",):
        assert parse_fleet(fleet).registries.host_of("eks").startswith(account)
    else:
        with pytest.raises(ConfigError) as err:
            parse_fleet(fleet)
        assert err.value.path == "sahab:fleet.registries.eks.host" and region in err.value.message


def test_an_upstream_login_must_be_the_json_ecr_and_acr_expect_and_is_named_when_it_is_not():
    from sahab.components.azure.registry import login_field

    login = json.dumps({"username": "sahab", "accessToken": "dckr_pat_x"})
    assert login_field(login, "username", "where", dry_run=False) == "sahab"
    assert login_field(login, "accessToken", "where", dry_run=False) == "dckr_pat_x"
    with pytest.raises(ConfigError) as err:
        login_field("dckr_pat_x", "username", "sahab:fleet.registries.aks.upstream_credentials.docker.io", False)
    assert err.value.path.endswith("upstream_credentials.docker.io") and "dckr_pat_x" not in str(err.value)
    # A preview may still hold the setting encrypted; it is passed on as a secret, never parsed or shown.
    assert login_field("v1:CIPHERTEXT", "username", "where", dry_run=True) == "v1:CIPHERTEXT"


def test_an_aks_registry_without_any_azure_location_is_refused():
    fleet = with_registries(aks={"host": "sahabprod.azurecr.io"})
    del fleet["clouds"]["azure"]
    fleet["clusters"] = [c for c in fleet["clusters"] if c["kind"] != "aks"]
    fleet["node_pools"] = [p for p in fleet["node_pools"] if p["cluster"] != "aks-main"]
    fleet["storage"]["buckets"] = [b for b in fleet["storage"]["buckets"] if b["cloud"] != "azure"]
    with pytest.raises(ConfigError, match=r"required without clouds\.azure") as err:
        parse_fleet(fleet)
    assert err.value.path == "sahab:fleet.registries.aks.location"
