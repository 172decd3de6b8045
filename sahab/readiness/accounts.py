"""Service accounts: a pod whose ServiceAccount does not exist in its namespace is refused by the API server, so its
Deployment, DaemonSet or Job never gets a pod. The same holds for the pods a provisioner makes on its own: Rancher's
local-path provisioner gives every helper pod the account its `--service-account-name` (or
`SERVICE_ACCOUNT_NAME`) names, by default one of its own deploy manifest (its fact sheet, components/charts/).

An account exists when the cluster's plan (or a referenced stack's) has the ServiceAccount, when it is `default`
(every namespace has one), or when a Helm release in that namespace creates it (charts' own pods are their own
business: their sheets list the accounts they create).
"""

from __future__ import annotations

from typing import Any

from sahab.components.chart_facts import sheet
from sahab.readiness.common import get, unknown
from sahab.readiness.pulls import RELEASE_TYPES
from sahab.readiness.readiness_types import Cluster, Problem
from sahab.readiness.workloads import _TEMPLATES, describe, kind_of

LOCAL_PATH = ("local-path-provisioner", "v0.0.37")  # the provisioner whose helper pods are judged (its sheet)


def _accounts(cluster: Cluster) -> tuple[set[tuple[str, str]], bool]:
    """(namespace, name) of every ServiceAccount on the cluster, and whether a preview hides some names."""
    found, hidden = set(), False
    for res in cluster.of_kind("ServiceAccount"):
        name, namespace = get(res.inputs, "metadata", "name"), get(res.inputs, "metadata", "namespace") or "default"
        if unknown([name, namespace]):
            hidden = True
            continue
        found.add((str(namespace), str(name)))
    return found, hidden


def _chart_namespaces(cluster: Cluster) -> set[str]:
    """Namespaces with a Helm release: its chart creates the accounts of its own pods there."""
    return {str(r.inputs.get("namespace") or "default") for r in cluster.objects if r.type in RELEASE_TYPES}


def _pod(res: Any) -> dict | None:
    kind = kind_of(res)
    spec = res.inputs.get("spec") or {}
    if kind == "Pod":
        return spec
    if kind not in _TEMPLATES:
        return None
    pod = get(spec, *_TEMPLATES[kind][0], default=None)
    return pod if isinstance(pod, dict) else None


def _option(container: dict, flag: str, env: str, env_values: dict[str, Any]) -> Any:
    """A provisioner option from its command line (`--flag value` / `--flag=value`), else its environment."""
    words = [str(w) for w in [*(container.get("command") or []), *(container.get("args") or [])]]
    for i, word in enumerate(words):
        if word == flag and i + 1 < len(words):
            return words[i + 1]
        if word.startswith(f"{flag}="):
            return word.split("=", 1)[1]
    return env_values.get(env)


def helper_account(res: Any, pod: dict) -> tuple[str, str] | None:
    """(namespace, account) of the helper pods a local-path provisioner Deployment makes; None for anything else."""
    for container in pod.get("containers") or []:
        if "local-path-provisioner" not in str(container.get("image") or ""):
            continue
        facts = sheet(*LOCAL_PATH).binary("local-path-provisioner").get("defaults") or {}
        namespace = get(res.inputs, "metadata", "namespace") or "default"
        env: dict[str, Any] = {}
        for e in container.get("env") or []:
            if "value" in e:
                env[e["name"]] = e["value"]
            elif get(e, "valueFrom", "fieldRef", "fieldPath") == "metadata.namespace":
                env[e["name"]] = namespace
        account = _option(container, "--service-account-name", "SERVICE_ACCOUNT_NAME", env) or \
            facts["--service-account-name"]
        where = _option(container, "--namespace", "POD_NAMESPACE", env) or facts["--namespace"]
        return str(where), str(account)
    return None


def check(cluster: Cluster, mine: set[str]) -> list[Problem]:
    accounts, hidden = _accounts(cluster)
    charted = _chart_namespaces(cluster)
    problems = []

    def missing(namespace: str, account: str) -> bool:
        return not (account == "default" or (namespace, account) in accounts or namespace in charted or hidden)

    for res in (r for r in cluster.objects if r.urn in mine and r.type.startswith("kubernetes:")):
        pod = _pod(res)
        if pod is None:
            continue
        namespace = get(res.inputs, "metadata", "namespace") or "default"
        account = pod.get("serviceAccountName") or pod.get("serviceAccount") or "default"
        if unknown([namespace, account]):
            continue
        if missing(str(namespace), str(account)):
            problems.append(Problem(cluster.name, describe(res), f"its pods run as ServiceAccount "
                                    f"{namespace}/{account}, which the stack does not create: the API server "
                                    "refuses them"))
        helper = helper_account(res, pod)
        if helper is not None and not unknown(list(helper)) and missing(*helper):
            problems.append(Problem(cluster.name, describe(res), f"the provisioner's helper pods run as "
                                    f"ServiceAccount {helper[0]}/{helper[1]} (its --service-account-name), which the "
                                    "stack does not create: the API server refuses every helper pod and each "
                                    "volume claim stays Pending"))
    return problems
