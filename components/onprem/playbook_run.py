"""A Pulumi dynamic resource that converges hosts with Sahab's playbook through ansible-runner.

It runs on create, and again on update whenever the content hash (roles + inventory + variables), the secret
variables or the failure budget change. Per-host outcomes are outputs; hosts that fail within the failure
budget are reported by name and the resource still succeeds; beyond it, the update fails naming them.
The SSH key and the secret variables are Pulumi secrets in the state.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pulumi
from pulumi.dynamic import CreateResult, DiffResult, Resource, ResourceProvider, UpdateResult
from sahab.components.onprem import runner

# Inputs whose change means the hosts converge again (a rotated SSH key alone changes nothing on them).
RERUN_KEYS = ("content_hash", "secret_variables", "known_hosts", "limit", "failure_budget", "tags")
SECRET_OUTPUTS = ["private_key", "secret_variables", "artifacts"]


def _hosts(props: dict[str, Any]) -> list[runner.Host]:
    return [
        runner.Host(
            name=h["name"],
            address=h["address"],
            group=h["group"],
            port=int(h["port"]),
            user=h["user"],
            vars=h.get("vars") or {},
        )
        for h in props["hosts"]
    ]


def converge(props: dict[str, Any]) -> dict[str, Any]:
    """Run the playbook for these inputs; the outputs are the inputs plus what happened on each host."""
    result = runner.run_playbook(
        _hosts(props),
        private_key=props["private_key"],
        known_hosts=props.get("known_hosts"),
        variables=props.get("variables") or {},
        secret_variables=props.get("secret_variables") or {},
        failure_budget=int(props.get("failure_budget", 0)),
        playbook_dir=Path(props["playbook_dir"]),
        limit=props.get("limit") or None,
        tags=list(props.get("tags") or []) or None,
    )
    if not result.within_budget:
        detail = "; ".join(
            f"{name}: {result.outcomes[name].status} ({result.outcomes[name].message})" for name in result.failed_hosts
        )
        raise RuntimeError(
            f"{len(result.failed_hosts)} host(s) failed, more than the failure budget of "
            f"{result.failure_budget}: {detail}"
        )
    return {
        **props,
        "outcomes": result.as_dict(),
        "artifacts": result.artifacts,
        "failed_hosts": result.failed_hosts,
        "changed_hosts": sorted(n for n, o in result.outcomes.items() if o.status == "changed"),
    }


class PlaybookProvider(ResourceProvider):
    """create/update converge; delete leaves the servers as they are (Pulumi does not own their lifecycle)."""

    def create(self, props: dict[str, Any]) -> CreateResult:
        return CreateResult(id_=props["run_name"], outs=converge(props))

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        changes = [key for key in RERUN_KEYS if olds.get(key) != news.get(key)]
        return DiffResult(changes=bool(changes), replaces=[], stables=["run_name"], delete_before_replace=False)

    def update(self, _id: str, _olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        return UpdateResult(outs=converge(news))


class PlaybookRun(Resource):
    """One converge of a set of hosts (inputs: see ``components.onprem.node_pool``)."""

    outcomes: pulumi.Output[dict]
    failed_hosts: pulumi.Output[list]
    changed_hosts: pulumi.Output[list]
    content_hash: pulumi.Output[str]
    artifacts: pulumi.Output[dict]

    def __init__(self, name: str, props: dict[str, Any], opts: pulumi.ResourceOptions | None = None) -> None:
        props = {**props, **{key: pulumi.Output.secret(props[key]) for key in SECRET_OUTPUTS if key in props}}
        secret_opts = pulumi.ResourceOptions(additional_secret_outputs=SECRET_OUTPUTS)
        super().__init__(
            PlaybookProvider(),
            name,
            {"run_name": name, "outcomes": None, "failed_hosts": None, "changed_hosts": None, "artifacts": {}, **props},
            pulumi.ResourceOptions.merge(secret_opts, opts),
        )
