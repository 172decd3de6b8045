"""The burst stack, planned offline: a queued training Job on prod's on-prem manager and every object Kueue
follows to dispatch it to a scale-from-zero cloud pool, read the way the controllers would read them."""

from __future__ import annotations

import json
import shutil

import pytest
import yaml
from sahab.components.kubernetes.multikueue import worker_kubeconfig

from sahab.project import REDACTED
from tests.components.kubernetes.manifests import is_manifest, manifest, validate
from tests.fleets import ROOT
from tests.plans import stack_plan

KUEUE = "kubernetes:kueue.x-k8s.io/v1beta2"
JOB = "kubernetes:batch/v1:Job"
UAE = ("me-central-1", "uaenorth", "uaecentral")


@pytest.fixture(scope="module")
def burst():
    return stack_plan("burst")


def _cluster(resource) -> str:
    """The cluster a resource goes to: its Kubernetes provider is `<fleet>-<cluster>-k8s`."""
    return resource.provider.rsplit("::", 1)[-1].removeprefix("sahab-burst-").removesuffix("-k8s")


def _objects(plan_, kind: str, cluster: str | None = None) -> list:
    found = [r for r in plan_.resources if r.type == f"{KUEUE}:{kind}" or (kind == "Job" and r.type == JOB)]
    return [r for r in found if cluster is None or _cluster(r) == cluster]


def _named(plan_, kind: str, cluster: str, name: str, namespace: str | None = None):
    matches = [r for r in _objects(plan_, kind, cluster) if r.inputs["metadata"]["name"] == name
               and r.inputs["metadata"].get("namespace") == namespace]
    assert len(matches) == 1, f"{kind} {namespace}/{name} on {cluster}: {len(matches)} found"
    return matches[0].inputs


def _pod_demand(job: dict) -> tuple[int, dict[str, str]]:
    spec = job["spec"]
    (container,) = spec["template"]["spec"]["containers"]
    return spec["parallelism"], container["resources"]["requests"]


def _required_pool(job: dict) -> str:
    terms = job["spec"]["template"]["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    (pool,) = [e["values"][0] for e in terms[0]["matchExpressions"] if e["key"] == "sahab.io/pool"]
    return pool


def _admitting_flavor(plan_, cluster: str, queue: dict, job: dict) -> str | None:
    """What Kueue decides: the ClusterQueue flavor whose node labels match the pods and whose quota holds
    every pod of the Job at once (all or nothing); None when no flavor does."""
    pods, requests = _pod_demand(job)
    pool = _required_pool(job)
    for entry in queue["spec"]["resourceGroups"][0]["flavors"]:
        flavor = _named(plan_, "ResourceFlavor", cluster, entry["name"])
        if flavor["spec"].get("nodeLabels", {}).get("sahab.io/pool") != pool:
            continue
        quota = {r["name"]: r["nominalQuota"] for r in entry["resources"]}
        gpus = int(requests.get("nvidia.com/gpu", "0"))
        if pods * gpus <= int(quota["nvidia.com/gpu"]) and pods * int(requests["cpu"]) <= int(quota["cpu"]):
            return entry["name"]
    return None


def test_a_queued_job_reaches_a_burst_pool_through_multikueue(burst):
    jobs = {r.inputs["metadata"]["name"]: r for r in _objects(burst, "Job")}
    assert set(jobs) == {"train-burst-a10g", "train-burst-l40s", "train-burst-h100"}
    job_resource = jobs["train-burst-a10g"]
    job = job_resource.inputs
    # Submitted to the manager (prod's Abu Dhabi cluster), suspended, to the team's burst queue.
    assert _cluster(job_resource) == "auh-onprem"
    assert job["spec"]["suspend"] is True
    assert job["spec"]["managedBy"] == "kueue.x-k8s.io/multikueue"
    assert job["metadata"]["annotations"] == {"pulumi.com/skipAwait": "true"}
    queue_name, namespace = job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"], job["metadata"]["namespace"]
    assert (queue_name, namespace) == ("research-burst", "research")

    # Manager: LocalQueue -> ClusterQueue whose quota admits the whole Job, then the MultiKueue check.
    local = _named(burst, "LocalQueue", "auh-onprem", queue_name, namespace)
    manager_queue = _named(burst, "ClusterQueue", "auh-onprem", local["spec"]["clusterQueue"])
    assert _admitting_flavor(burst, "auh-onprem", manager_queue, job) == "burst-a10g"
    (check_ref,) = manager_queue["spec"]["admissionChecksStrategy"]["admissionChecks"]
    assert "onFlavors" not in check_ref  # Kueue refuses a MultiKueue check scoped to some flavors
    check = _named(burst, "AdmissionCheck", "auh-onprem", check_ref["name"])
    assert check["spec"]["controllerName"] == "kueue.x-k8s.io/multikueue"
    params = check["spec"]["parameters"]
    assert (params["apiGroup"], params["kind"]) == ("kueue.x-k8s.io", "MultiKueueConfig")
    config = _named(burst, "MultiKueueConfig", "auh-onprem", params["name"])
    assert sorted(config["spec"]["clusters"]) == ["aks-main", "eks-main"]

    # Each worker is reached through a kubeconfig Secret in the manager's Kueue namespace, kept secret.
    secrets = {r.inputs["metadata"]["name"]: r for r in burst.resources if r.type == "kubernetes:core/v1:Secret"
               and _cluster(r) == "auh-onprem"}
    for worker in config["spec"]["clusters"]:
        cluster = _named(burst, "MultiKueueCluster", "auh-onprem", worker)
        source = cluster["spec"]["clusterSource"]["kubeConfig"]
        assert source["locationType"] == "Secret"
        secret = secrets[source["location"]].inputs
        assert secret["metadata"]["namespace"] == "kueue-system"
        assert secret["stringData"] == REDACTED
        assert cluster["metadata"]["labels"]["sahab.io/region"] in UAE

    # Worker: the same LocalQueue in the same namespace; exactly one worker admits this Job (the one with the
    # pool), on the flavor that aims its pods at the pool and tolerates the GPU taint.
    admitting = []
    for worker in config["spec"]["clusters"]:
        worker_local = _named(burst, "LocalQueue", worker, queue_name, namespace)
        worker_queue = _named(burst, "ClusterQueue", worker, worker_local["spec"]["clusterQueue"])
        assert "admissionChecksStrategy" not in worker_queue["spec"]  # workers run what they admit
        flavor_name = _admitting_flavor(burst, worker, worker_queue, job)
        if flavor_name:
            admitting.append((worker, flavor_name))
    assert admitting == [("eks-main", "burst-a10g")]
    flavor = _named(burst, "ResourceFlavor", "eks-main", "burst-a10g")["spec"]
    assert flavor["nodeLabels"] == {"sahab.io/pool": "burst-a10g"}
    assert {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"} \
        in flavor["tolerations"]

    # Where the pods run: the rendezvous Service, and the pool itself, which scales from zero.
    service = next(r for r in burst.resources if r.type == "kubernetes:core/v1:Service"
                   and r.inputs["metadata"]["name"] == job["spec"]["template"]["spec"]["subdomain"])
    assert _cluster(service) == "eks-main"
    group = next(r for r in burst.resources if r.type == "aws:eks/nodeGroup:NodeGroup"
                 and r.inputs["labels"]["sahab.io/pool"] == "burst-a10g")
    assert group.inputs["scalingConfig"]["minSize"] == 0
    assert group.inputs["scalingConfig"]["maxSize"] >= job["spec"]["parallelism"]


def test_every_burst_job_is_admitted_by_exactly_the_worker_that_has_its_pool(burst):
    owners = {"train-burst-a10g": "eks-main", "train-burst-l40s": "eks-main", "train-burst-h100": "aks-main"}
    for job_resource in _objects(burst, "Job"):
        job = job_resource.inputs
        queue = job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"]
        admitted = []
        for worker in ("eks-main", "aks-main"):
            cq = _named(burst, "ClusterQueue", worker, queue)
            if _admitting_flavor(burst, worker, cq, job):
                admitted.append(worker)
        assert admitted == [owners[job["metadata"]["name"]]]


def test_burst_jobs_span_the_configured_nodes_and_tolerate_losing_some(burst):
    for job_resource in _objects(burst, "Job"):
        spec = job_resource.inputs["spec"]
        assert spec["completions"] == spec["parallelism"] == 2  # burst.nodes_per_job
        assert spec["completionMode"] == "Indexed"
        assert spec["backoffLimitPerIndex"] >= 1 and spec["maxFailedIndexes"] == 1
        assert spec["successPolicy"] == {"rules": [{"succeededIndexes": "0"}]}


def test_every_kubernetes_object_of_the_burst_stack_is_schema_valid(burst):
    manifests = [r for r in burst.resources if is_manifest(r)]
    kinds = {r.inputs["kind"] for r in manifests}
    assert {"Job", "ClusterQueue", "LocalQueue", "ResourceFlavor", "AdmissionCheck", "MultiKueueConfig",
            "MultiKueueCluster", "Secret", "Service"} <= kinds
    problems = {f"{r.type} {r.name}": validate(manifest(r)) for r in manifests}
    assert {k: v for k, v in problems.items() if v} == {}


def test_the_managers_kubeconfig_for_a_worker_carries_only_its_server_ca_and_token():
    cluster = ("apiVersion: v1\nkind: Config\nclusters:\n- name: eks\n  cluster:\n    server: https://abc.eks\n"
               "    certificate-authority-data: Q0E=\nusers:\n- name: admin\n  user:\n    exec: {command: aws}\n")
    doc = yaml.safe_load(worker_kubeconfig("eks-main", cluster, "t0ken"))
    assert doc["clusters"] == [{"name": "eks-main", "cluster": {"server": "https://abc.eks",
                                                                "certificate-authority-data": "Q0E="}}]
    assert doc["users"] == [{"name": "multikueue", "user": {"token": "t0ken"}}]  # never the operator's exec
    assert doc["current-context"] == "eks-main"


@pytest.mark.parametrize(("body", "needle"), [
    ({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "q"},
      "spec": {"cohort": "team"}}, "cohort"),  # v1beta1's name; v1beta2 says cohortName
    ({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": "q"},
      "spec": {"clusterQueue": "Team_A"}}, "clusterQueue"),  # not a DNS subdomain
    ({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "AdmissionCheck", "metadata": {"name": "c"},
      "spec": {"controllerName": "kueue.x-k8s.io/multikueue",
               "parameters": {"apiGroup": "kueue.x-k8s.io", "kind": "multi kueue", "name": "c"}}}, "kind"),
    ({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "MultiKueueCluster", "metadata": {"name": "w"},
      "spec": {"kubeConfig": {"location": "s"}}}, "clusterSource"),  # v1beta1's shape
    ({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "q"},
      "spec": {"queueingStrategy": "FIFO"}}, "FIFO"),
])
def test_the_kueue_schemas_catch_what_the_api_server_would_refuse(body, needle):
    assert any(needle in problem for problem in validate(body)), validate(body)


def test_the_kueue_schemas_are_the_pinned_releases_published_crds():
    from sahab.components.kubernetes.kueue import API_VERSION, CHART_VERSION

    folder = ROOT / "tests" / "components" / "kubernetes" / "schemas" / "kueue"
    source = yaml.safe_load((folder / "SOURCE").read_text())
    assert source["repository"] == "https://github.com/kubernetes-sigs/kueue"
    assert source["tag"] == f"v{CHART_VERSION}" and len(source["commit"]) == 40
    assert "Apache License" in (folder / "LICENSE").read_text()
    kinds = set()
    for path in sorted(folder.glob("*.json")):
        doc = json.loads(path.read_text())
        assert f"{doc['group']}/{doc['version']}" == API_VERSION  # the version the fleet sends is served
        assert doc["source"]["commit"] == source["commit"] and doc["source"]["path"].endswith(".yaml")
        kinds.add(doc["kind"])
    assert kinds == {"ResourceFlavor", "ClusterQueue", "LocalQueue", "AdmissionCheck", "MultiKueueConfig",
                     "MultiKueueCluster"}


def test_the_burst_path_pins_are_recorded_in_one_table_that_matches_the_code():
    from sahab.components.aws.cluster_autoscaler import CHART_VERSION as AUTOSCALER
    from sahab.components.kubernetes.kueue import API_VERSION, CHART_VERSION
    from sahab.components.validation import MULTIKUEUE_MANAGER_MIN_KUBERNETES

    text = (ROOT / "components" / "kubernetes" / "README.md").read_text()
    table = text[text.index("### What the burst path pins"):].split("\n\n")[1]
    rows = {cells[0]: cells[1] for cells in
            ([c.strip() for c in line.strip("|").split("|")] for line in table.splitlines()[2:])}
    commit = yaml.safe_load((ROOT / "tests" / "components" / "kubernetes" / "schemas" / "kueue"
                             / "SOURCE").read_text())["commit"]
    assert rows["Kueue chart (controller and CRDs)"] == CHART_VERSION
    assert rows["Kueue API the fleet sends"].startswith(API_VERSION)
    assert rows["Kueue CRD schemas the tests validate against"] == f"v{CHART_VERSION}, commit {commit}"
    assert rows["cluster-autoscaler chart (EKS burst pools from zero)"] == AUTOSCALER
    assert rows["Kubernetes on the MultiKueue manager"] == f"{MULTIKUEUE_MANAGER_MIN_KUBERNETES} or newer"


def test_the_teams_own_queue_on_the_manager_runs_on_prem_and_only_the_burst_queue_dispatches(burst):
    prod = stack_plan("prod")
    onprem_pools = {r.inputs["metadata"]["name"] for r in prod.resources if r.type == f"{KUEUE}:ResourceFlavor"
                    and r.provider.endswith("::sahab-auh-onprem-k8s")}
    assert onprem_pools == {"auh-h100", "auh-cpu"}
    own = next(r.inputs for r in prod.resources if r.type == f"{KUEUE}:ClusterQueue"
               and r.provider.endswith("::sahab-auh-onprem-k8s") and r.inputs["metadata"]["name"] == "research")
    assert "admissionChecksStrategy" not in own["spec"] and "admissionChecks" not in own["spec"]
    assert {f["name"] for f in own["spec"]["resourceGroups"][0]["flavors"]} == onprem_pools
    # The burst queue on the same manager holds only the burst pools' flavors, all behind the MultiKueue check.
    burst_queue = _named(burst, "ClusterQueue", "auh-onprem", "research-burst")
    burst_flavors = {f["name"] for f in burst_queue["spec"]["resourceGroups"][0]["flavors"]}
    assert burst_flavors == {"burst-a10g", "burst-l40s", "burst-h100"} and not burst_flavors & onprem_pools
    assert [c["name"] for c in burst_queue["spec"]["admissionChecksStrategy"]["admissionChecks"]] == ["sahab-burst"]
    # Prod's own training Jobs go to the team's queue (run on-prem); the burst stack's to the burst queue.
    prod_queues = {r.inputs["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] for r in prod.resources
                   if r.type == JOB and r.provider.endswith("::sahab-auh-onprem-k8s")}
    assert prod_queues == {"research"}
    assert {r.inputs["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] for r in _objects(burst, "Job")} == \
        {"research-burst"}


def test_every_burst_job_tolerates_every_taint_its_cloud_pool_puts_on_its_nodes(burst):
    """AKS taints spot nodes itself (scalesetpriority=spot): a Job that does not tolerate it never schedules, and
    the autoscaler never scales the pool from zero for it."""
    pools = {r.name.removeprefix("sahab-burst-").removesuffix("-pool"): r.inputs.get("nodeTaints") or []
             for r in burst.resources if r.type == "azure-native:containerservice:AgentPool"}
    spot_jobs = []
    for job in _objects(burst, "Job"):
        taints = pools.get(_required_pool(job.inputs))
        if taints is None:
            continue
        tolerated = {f"{t['key']}={t['value']}:{t['effect']}"
                     for t in job.inputs["spec"]["template"]["spec"].get("tolerations", [])}
        assert set(taints) <= tolerated, (job.name, taints, tolerated)
        if any("scalesetpriority=spot" in t for t in taints):
            spot_jobs.append(job.name)
    assert spot_jobs, "the burst stack has an AKS spot pool with a Job on it"


def test_burst_jobs_checkpoint_to_the_owning_stacks_store_on_their_worker(burst):
    """A burst run survives losing its cloud nodes: its Job writes to the store prod built on that cluster, as the
    account prod federated with it, never to a volume that goes with the pod."""
    prod = stack_plan("prod")
    prod_accounts = {(r.provider.rsplit("::", 1)[-1].removeprefix("sahab-").removesuffix("-k8s"),
                      r.inputs["metadata"]["name"]) for r in prod.resources
                     if r.type == "kubernetes:core/v1:ServiceAccount"
                     and r.inputs["metadata"]["namespace"] == "research"}
    schemes = set()
    for job in _objects(burst, "Job"):
        pod = job.inputs["spec"]["template"]["spec"]
        (train,) = pod["containers"]
        directory = next(e["value"] for e in train["env"] if e["name"] == "SAHAB_CHECKPOINT_DIR")
        scheme, _, rest = directory.partition("://")
        assert scheme in ("s3", "az") and rest.endswith(f"/research/train-{_required_pool(job.inputs)}"
                                                        if scheme == "s3" else f"/train-{_required_pool(job.inputs)}")
        schemes.add(scheme)
        assert not [v for v in pod["volumes"] if "ephemeral" in v or "persistentVolumeClaim" in v]
        worker = _worker_of(burst, job)
        assert (worker, pod["serviceAccountName"]) in prod_accounts
    assert schemes == {"s3", "az"}


def _worker_of(plan_, job) -> str:
    """The cluster a MultiKueue Job runs on: the one whose flavor carries its pool."""
    pool = _required_pool(job.inputs)
    flavors = [f for f in _objects(plan_, "ResourceFlavor") if _cluster(f) != "auh-onprem"]  # the manager's copies
    (cluster,) = {_cluster(f) for f in flavors if f.inputs["spec"].get("nodeLabels", {}).get("sahab.io/pool") == pool}
    return cluster


def test_a_burst_worker_whose_owning_stack_keeps_no_checkpoint_store_is_refused(tmp_path, capsys):
    from sahab.cli import main

    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    (tmp_path / "stacks").mkdir()
    for name in ("__main__.py", "Pulumi.burst.yaml"):
        shutil.copy(ROOT / "stacks" / name, tmp_path / "stacks" / name)
    doc = yaml.safe_load((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())
    fleet = doc["config"]["sahab:fleet"]
    fleet["storage"]["buckets"] = [b for b in fleet["storage"]["buckets"] if b["purpose"] != "checkpoints"]
    # The owner is planned whole for the burst stack's reference: keep the clusters the burst stack names (and
    # the datasets buckets, which are no checkpoint store), one pool each, none of what it does not read.
    named = {c["name"] for c in yaml.safe_load((ROOT / "stacks" / "Pulumi.burst.yaml").read_text())["config"][
        "sahab:fleet"]["clusters"]}
    fleet["clusters"] = [c for c in fleet["clusters"] if c["name"] in named]
    fleet["sites"] = [s for s in fleet["sites"] if any(c.get("site") == s["name"] for c in fleet["clusters"])]
    fleet["node_pools"] = list({p["cluster"]: p for p in fleet["node_pools"] if p["cluster"] in named}.values())
    fleet["monitoring"] = {"enabled": False}
    (tmp_path / "stacks" / "Pulumi.prod.yaml").write_text(yaml.safe_dump(doc))
    code = main(["plan", "--stack", "burst", "--quiet", "--program", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    (line,) = [line for line in err.splitlines() if line.startswith("error:")]
    assert line.startswith("error: sahab:fleet.burst.workers") and "checkpoint store" in line
