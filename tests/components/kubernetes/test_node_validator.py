"""Tenancy: no tenant can change a node. Node validation belongs to a system DaemonSet whose rights an admission
policy narrows to its own node's validation keys; training pods carry no API token.

The RBAC walk is generic: every Role, ClusterRole and binding of the plan, subjects direct or through groups."""

import copy
import json

import cel
import pytest
from sahab.components.kubernetes.node_validator import (
    NODE_NAME_EXTRA,
    POLICY_NAME,
    SYSTEM_NAMESPACE,
    VALIDATOR_ACCOUNT,
    VALIDATOR_USER,
    policy_spec,
)

from tests.components.kubernetes.manifests import manifest, validate
from tests.plans import stack_command, stack_plan

RBAC = "kubernetes:rbac.authorization.k8s.io/v1:"
WRITE_VERBS = {"create", "update", "patch", "delete", "deletecollection", "*"}
POD_TEMPLATES = {  # kind -> path to the pod spec
    "kubernetes:batch/v1:Job": ("spec", "template", "spec"),
    "kubernetes:batch/v1:CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
    "kubernetes:apps/v1:Deployment": ("spec", "template", "spec"),
    "kubernetes:apps/v1:DaemonSet": ("spec", "template", "spec"),
    "kubernetes:apps/v1:StatefulSet": ("spec", "template", "spec"),
    "kubernetes:core/v1:Pod": ("spec",),
}


@pytest.fixture(scope="module", params=["prod", "burst"])
def planned(request):
    return stack_plan(request.param)


def _of(planned, kind):
    return [r for r in planned.resources if r.type == kind]


def _dig(data, *path):
    for key in path:
        data = data.get(key) if isinstance(data, dict) else None
    return data


def _team_namespaces(planned) -> set[str]:
    return {t["name"] for t in planned.config["sahab:fleet"]["workload"]["teams"]}


def _writes_nodes(rule: dict) -> bool:
    groups, resources, verbs = (set(rule.get(k) or []) for k in ("apiGroups", "resources", "verbs"))
    on_nodes = any(r == "*" or r == "nodes" or r.startswith("nodes/") for r in resources)
    return bool(groups & {"", "*"}) and on_nodes and bool(verbs & WRITE_VERBS)


def _roles(planned) -> dict:
    """(provider, kind, namespace, name) -> rules, with aggregated ClusterRoles filled in."""
    roles = {}
    cluster_roles = _of(planned, f"{RBAC}ClusterRole")
    for res in cluster_roles + _of(planned, f"{RBAC}Role"):
        kind = res.type.rsplit(":", 1)[-1]
        # An auto-named role (no metadata.name given) is known by the name the provider gave it.
        meta = {**(res.outputs.get("metadata") or {}), **res.inputs["metadata"]}
        assert isinstance(meta.get("name"), str), f"{res.urn}: a role needs a known name to be judged"
        rules = list(res.inputs.get("rules") or [])
        for selector in _dig(res.inputs, "aggregationRule", "clusterRoleSelectors") or []:
            wanted = selector.get("matchLabels") or {}
            rules += [rule for other in cluster_roles if other.provider == res.provider
                      and wanted.items() <= (other.inputs["metadata"].get("labels") or {}).items()
                      for rule in other.inputs.get("rules") or []]
        roles[(res.provider, kind, meta.get("namespace") if kind == "Role" else None, meta["name"])] = rules
    return roles


def _tenant_subjects(subjects: list[dict], binding_namespace: str | None, teams: set[str]) -> list[dict]:
    """Subjects that are (or include) a service account of a team namespace."""
    def tenant(s: dict) -> bool:
        kind, name = s.get("kind"), s.get("name", "")
        if kind == "ServiceAccount":
            return (s.get("namespace") or binding_namespace) in teams
        if kind == "Group":  # every service account, every authenticated user, or a team's accounts
            return name in ("system:serviceaccounts", "system:authenticated") or \
                name.removeprefix("system:serviceaccounts:") in teams
        return kind == "User" and name.startswith("system:serviceaccount:") and name.split(":")[2] in teams

    found = [s for s in subjects or [] if tenant(s)]
    return found


def test_no_team_service_account_can_write_nodes(planned):
    teams, roles = _team_namespaces(planned), _roles(planned)
    bindings = _of(planned, f"{RBAC}RoleBinding") + _of(planned, f"{RBAC}ClusterRoleBinding")
    assert bindings, "the plan has bindings to walk"
    walked = 0
    for binding in bindings:
        namespace = binding.inputs["metadata"].get("namespace")
        ref = binding.inputs["roleRef"]
        tenants = _tenant_subjects(binding.inputs.get("subjects"), namespace, teams)
        if not tenants:
            continue
        walked += 1
        key = (binding.provider, ref["kind"], namespace if ref["kind"] == "Role" else None, ref["name"])
        # A role the plan does not define (a built-in such as cluster-admin or edit) is not judged: refused.
        assert key in roles, f"{binding.urn} binds {tenants} to {ref['kind']} {ref['name']}, not in the plan"
        writes = [rule for rule in roles[key] if _writes_nodes(rule)]
        assert not writes, f"{binding.urn} lets {tenants} write nodes through {ref['name']}: {writes}"
    if planned.stack == "prod":  # (burst's team namespaces are prod's)
        assert walked, "team service accounts have bindings (the training Role): the walk saw them"


def test_the_rbac_walk_catches_node_rights_however_they_are_granted():
    teams = {"research"}
    assert _writes_nodes({"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "patch"]})
    assert _writes_nodes({"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]})
    assert _writes_nodes({"apiGroups": [""], "resources": ["nodes/status"], "verbs": ["update"]})
    assert not _writes_nodes({"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list", "watch"]})
    assert not _writes_nodes({"apiGroups": ["apps"], "resources": ["nodes"], "verbs": ["patch"]})
    for subject in ({"kind": "ServiceAccount", "name": "training", "namespace": "research"},
                    {"kind": "Group", "name": "system:serviceaccounts"},
                    {"kind": "Group", "name": "system:serviceaccounts:research"},
                    {"kind": "Group", "name": "system:authenticated"},
                    {"kind": "User", "name": "system:serviceaccount:research:training"}):
        assert _tenant_subjects([subject], None, teams) == [subject]
    assert _tenant_subjects([{"kind": "ServiceAccount", "name": "x"}], "research", teams)  # namespace of binding
    assert not _tenant_subjects([{"kind": "ServiceAccount", "name": VALIDATOR_ACCOUNT,
                                  "namespace": SYSTEM_NAMESPACE}], None, teams)


def test_pods_in_team_namespaces_mount_no_api_token(planned):
    teams = _team_namespaces(planned)
    accounts = {(a.provider, a.inputs["metadata"].get("namespace"), a.inputs["metadata"]["name"]): a
                for a in _of(planned, "kubernetes:core/v1:ServiceAccount")}
    pods = 0
    for kind, path in POD_TEMPLATES.items():
        for res in _of(planned, kind):
            if res.inputs["metadata"].get("namespace") not in teams:
                continue
            pod = _dig(res.inputs, *path)
            pods += 1
            assert pod.get("automountServiceAccountToken") is False, res.urn
            account = accounts.get((res.provider, res.inputs["metadata"]["namespace"],
                                    pod.get("serviceAccountName") or "default"))
            if account is not None:  # an account of the plan: it does not mount by default either
                assert account.inputs.get("automountServiceAccountToken") is False, account.urn
    assert pods, "the stack trains: there are team pods to check"


def _validator_objects(planned, provider):
    return {r.type.rsplit(":", 1)[-1] + "/" + r.inputs["metadata"]["name"]: r for r in planned.resources
            if r.provider == provider and "node-validator" in r.name}


def test_each_cluster_with_training_has_a_system_validator_that_alone_labels_nodes(planned):
    local_jobs = {j.provider for j in _of(planned, "kubernetes:batch/v1:Job")
                  if not _dig(j.inputs, "spec", "managedBy")}
    daemonsets = [d for d in _of(planned, "kubernetes:apps/v1:DaemonSet")
                  if d.inputs["metadata"]["name"].startswith("validate-")]
    assert daemonsets
    for ds in daemonsets:
        assert ds.inputs["metadata"]["namespace"] == SYSTEM_NAMESPACE
        pod = ds.inputs["spec"]["template"]["spec"]
        assert pod["serviceAccountName"] == VALIDATOR_ACCOUNT and pod["automountServiceAccountToken"] is True
        assert pod["containers"][0]["command"][:4] == ["python", "-m", "workloads", "node-validate"]
        env = {e["name"]: e for e in pod["containers"][0]["env"]}
        assert env["NODE_NAME"]["valueFrom"] == {"fieldRef": {"fieldPath": "spec.nodeName"}}
        # Only nodes without a pass: once its node passes, the pod goes and frees the node's GPUs.
        terms = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        assert terms["nodeSelectorTerms"][0]["matchExpressions"] == [
            {"key": "sahab.io/validation", "operator": "NotIn", "values": ["passed"]}]
    if planned.stack == "prod":
        assert local_jobs and local_jobs <= {d.provider for d in daemonsets}
        providers = {d.provider for d in daemonsets}
        for provider in providers:
            found = _validator_objects(planned, provider)
            binding = found["ClusterRoleBinding/sahab-node-validator"]
            assert binding.inputs["subjects"] == [{"kind": "ServiceAccount", "name": VALIDATOR_ACCOUNT,
                                                   "namespace": SYSTEM_NAMESPACE}]
            role = found["ClusterRole/sahab-node-validator"]
            assert role.inputs["rules"] == [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "patch"]}]
            assert found["ValidatingAdmissionPolicy/" + POLICY_NAME].inputs["spec"] == policy_spec()
            assert found["ValidatingAdmissionPolicyBinding/" + POLICY_NAME].inputs["spec"] == {
                "policyName": POLICY_NAME, "validationActions": ["Deny"]}
            ns = found["Namespace/" + SYSTEM_NAMESPACE].inputs["metadata"]["labels"]
            assert ns["pod-security.kubernetes.io/enforce"] == "restricted"
            # The rights exist only once the policy that narrows them is bound.
            policy_binding = found["ValidatingAdmissionPolicyBinding/" + POLICY_NAME]
            assert policy_binding.urn in binding.dependencies
            watch = found["DaemonSet/validation-watch"].inputs["spec"]["template"]["spec"]
            assert "--watch" in watch["containers"][0]["command"]
            assert not any(k.startswith("nvidia.com/") for k in watch["containers"][0]["resources"]["requests"])
    else:  # burst: pools' DaemonSets only, on clusters whose owning stack holds the account and policy
        assert not [r for r in planned.resources if r.type.endswith("ValidatingAdmissionPolicy")]
        assert not [r for r in _of(planned, f"{RBAC}ClusterRoleBinding") if "node-validator" in r.name]


def test_gpu_validators_ask_for_what_a_training_pod_gets_through_the_device_plugin(planned):
    jobs = {j.inputs["metadata"]["name"].removeprefix("train-"): j for j in _of(planned, "kubernetes:batch/v1:Job")}
    for ds in _of(planned, "kubernetes:apps/v1:DaemonSet"):
        name = ds.inputs["metadata"]["name"]
        if not name.startswith("validate-") or name.removeprefix("validate-") not in jobs:
            continue
        pod = ds.inputs["spec"]["template"]["spec"]
        job_pod = jobs[name.removeprefix("validate-")].inputs["spec"]["template"]["spec"]
        gpus = job_pod["containers"][0]["resources"]["limits"].get("nvidia.com/gpu")
        assert pod["containers"][0]["resources"]["limits"].get("nvidia.com/gpu") == gpus
        assert pod["tolerations"] == job_pod["tolerations"]  # the pool's taints, as training tolerates them
        assert pod["nodeSelector"] == {"sahab.io/pool": name.removeprefix("validate-")}
        # Restricted Pod Security: nothing privileged, no host access; GPUs come from the device plugin.
        ctx = pod["containers"][0]["securityContext"]
        assert ctx["allowPrivilegeEscalation"] is False and ctx["capabilities"] == {"drop": ["ALL"]}
        assert ctx["runAsNonRoot"] is True and ctx["seccompProfile"] == {"type": "RuntimeDefault"}
        assert not any(pod.get(k) for k in ("hostNetwork", "hostPID", "hostIPC"))
        assert not any("hostPath" in v for v in pod["volumes"])


def test_training_needs_a_pass_except_where_pools_scale_from_zero(planned):
    for job in _of(planned, "kubernetes:batch/v1:Job"):
        pod = job.inputs["spec"]["template"]["spec"]
        terms = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        verdict = next(e for e in terms["nodeSelectorTerms"][0]["matchExpressions"]
                       if e["key"] == "sahab.io/validation")
        if planned.stack == "prod":
            assert verdict == {"key": "sahab.io/validation", "operator": "In", "values": ["passed"]}
        else:  # burst pools start empty: the autoscaler's node template cannot carry a verdict
            assert verdict["operator"] == "NotIn" and "failed" in verdict["values"] \
                and "passed" not in verdict["values"]


def test_the_validators_objects_are_schema_valid(planned):
    validated = 0
    for res in planned.resources:
        if "node-validator" in res.name and res.type.startswith("kubernetes:") and res.custom:
            assert validate(manifest(res)) == [], res.urn
            validated += 1
    assert validated


# ---- the admission policy's CEL, evaluated ----------------------------------------------------------------
def _node(name: str, labels: dict | None = None, annotations: dict | None = None, taints: list | None = None):
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "sahab.io/pool": "auh-h100",
                                                  **(labels or {})},
                         "annotations": {"node.alpha.kubernetes.io/ttl": "0", **(annotations or {})}},
            "spec": {"podCIDR": "10.244.1.0/24", "taints": taints or []},
            "status": {"nodeInfo": {"bootID": "b1", "kernelVersion": "6.1.0"}}}


def _request(node_name: str | None, user: str = VALIDATOR_USER) -> dict:
    extra = {"authentication.kubernetes.io/pod-name": ["validate-auh-h100-x7k2p"]}
    if node_name is not None:
        extra[NODE_NAME_EXTRA] = [node_name]
    return {"operation": "UPDATE", "userInfo": {"username": user, "extra": extra}}


def _admit(request: dict, old: dict, new: dict) -> list[str] | None:
    """What the API server would do: None when the policy does not apply, else the messages of the failed
    validations (empty: admitted)."""
    spec = policy_spec()
    context = {"request": request, "object": new, "oldObject": old}
    if not all(cel.evaluate(c["expression"], context) for c in spec["matchConditions"]):
        return None
    context["variables"] = {v["name"]: cel.evaluate(v["expression"], context) for v in spec["variables"]}
    return [v["message"] for v in spec["validations"] if cel.evaluate(v["expression"], context) is not True]


def _relabelled(old: dict, labels: dict | None = None, annotations: dict | None = None) -> dict:
    new = copy.deepcopy(old)
    new["metadata"]["labels"].update(labels or {})
    new["metadata"]["annotations"].update(annotations or {})
    return new


def test_every_policy_expression_compiles():
    spec = policy_spec()
    expressions = [c["expression"] for c in spec["matchConditions"]] + \
        [v["expression"] for v in spec["variables"]] + [v["expression"] for v in spec["validations"]]
    for expression in expressions:
        cel.compile(expression)
    with pytest.raises(ValueError):  # the compiler does refuse a broken expression
        cel.compile("object.metadata.labels.all(k, ")


def test_the_validator_may_record_a_verdict_on_its_own_node():
    old = _node("auh-gpu1")
    new = _relabelled(old, {"sahab.io/validation": "failed", "sahab.io/validation-class": "h100-sxm"},
                      {"sahab.io/validation-reason": "failed: gemm: 1.2e+05 GFLOP/s is 38% below its floor",
                       "sahab.io/validation-time": "2026-11-23T14:00:00Z"})
    assert _admit(_request("auh-gpu1"), old, new) == []
    # and take a stale key away again (a passed node loses its failure reason)
    cleared = copy.deepcopy(new)
    del cleared["metadata"]["annotations"]["sahab.io/validation-reason"]
    cleared["metadata"]["labels"]["sahab.io/validation"] = "passed"
    assert _admit(_request("auh-gpu1"), new, cleared) == []


def test_the_validator_may_not_touch_another_node():
    old = _node("auh-gpu2")
    new = _relabelled(old, {"sahab.io/validation": "passed"})
    [message] = _admit(_request("auh-gpu1"), old, new)
    assert "only the node its pod runs on" in message


def test_without_the_node_name_in_its_token_the_validator_changes_nothing():
    old = _node("auh-gpu1")
    new = _relabelled(old, {"sahab.io/validation": "passed"})
    [message] = _admit(_request(None), old, new)
    assert "ServiceAccountTokenPodNodeInfo" in message
    no_extra = {"operation": "UPDATE", "userInfo": {"username": VALIDATOR_USER}}
    assert _admit(no_extra, old, new)


@pytest.mark.parametrize("change", [
    {"labels": {"sahab.io/pool": "dxb-cpu"}},                           # another label changed
    {"labels": {"node-role.kubernetes.io/control-plane": ""}},          # another label added
    {"annotations": {"node.alpha.kubernetes.io/ttl": "30"}},            # another annotation changed
    {"drop_label": "kubernetes.io/hostname"},                           # another label removed
    {"taints": [{"key": "evil", "effect": "NoSchedule"}]},              # spec: a taint
    {"unschedulable": True},                                            # spec: cordon
    {"finalizers": ["example.com/hold"]},
    {"owner": {"apiVersion": "v1", "kind": "Pod", "name": "x", "uid": "u1"}},  # garbage-collect the node
    {"status": {"capacity": {"cpu": "64"}}},
])
def test_the_validator_may_change_nothing_but_its_validation_keys(change):
    old = _node("auh-gpu1")
    new = _relabelled(old, {"sahab.io/validation": "passed", **change.get("labels", {})},
                      change.get("annotations"))
    if "drop_label" in change:
        del new["metadata"]["labels"][change["drop_label"]]
    if "taints" in change:
        new["spec"]["taints"] = change["taints"]
    if "unschedulable" in change:
        new["spec"]["unschedulable"] = True
    if "finalizers" in change:
        new["metadata"]["finalizers"] = change["finalizers"]
    if "owner" in change:
        new["metadata"]["ownerReferences"] = [change["owner"]]
    if "status" in change:
        new["status"].update(change["status"])
    assert _admit(_request("auh-gpu1"), old, new), change


def test_only_known_verdicts_are_written():
    old = _node("auh-gpu1")
    [message] = _admit(_request("auh-gpu1"), old, _relabelled(old, {"sahab.io/validation": "trust-me"}))
    assert message.startswith("sahab.io/validation must be one of passed, failed")


def test_the_policy_leaves_everyone_else_to_rbac():
    old = _node("auh-gpu1")
    new = _relabelled(old, {"sahab.io/pool": "other"})
    assert _admit(_request("auh-gpu1", user="system:node:auh-gpu1"), old, new) is None
    assert _admit(_request("auh-gpu1", user="system:serviceaccount:research:training"), old, new) is None


# ---- the four stacks ---------------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("stack", ["dev", "prod", "burst", "smb"])
def test_every_stack_still_plans_ready_and_passes_its_policy_check(stack):
    planned_run = stack_command("plan", stack)  # run once for every module that asks (tests/plans.py)
    assert planned_run.code == 0, planned_run.err[-2000:]
    assert json.loads(planned_run.out)["readiness"]["ok"] is True
    checked = stack_command("check", stack)
    assert checked.code == 0, checked.out[-2000:] + checked.err[-2000:]
