"""Answers to a program's invokes (data-source lookups and provider functions) offline.

An invoke runs for real during `pulumi preview`, so a program gets a complete, well-formed result and goes on.
Offline, three kinds of answer:
- **who and where the program runs**: caller identity, partition, the provider's region and its zones, the
  Azure client config. These are the stack's own facts, answered in full.
- **pure functions**: an IAM policy document rendered from its statements, Kubernetes YAML decoded.
- **lookups of existing things**: the result type the provider SDK declares (`sdk_types`), every field filled
  (arguments the program passed echoed back, the rest made by `values`). Where the thing lives is not known
  offline: its region, location, the region inside its ARN and its regional endpoints are the engine's unknown,
  so residency fails closed on them, unless the stack declares the resource in `sahab:existing` (`inventory`)
  or the lookup names a resource this program creates (it is where that resource is).
Values are stable hashes of the call, so plans are reproducible.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from typing import Any

from sahab.engine import inventory
from sahab.engine.kubernetes import decode_manifests, kubeconfig_yaml
from sahab.engine.outputs import Where, module_of
from sahab.engine.plan_types import UNKNOWABLE
from sahab.engine.sdk_types import SdkTypes
from sahab.engine.values import (
    AWS_ACCOUNT,
    AZURE_SUBSCRIPTION,
    AZURE_TENANT,
    Owner,
    coerce,
    fill,
    short_hash,
    uuid,
)
from sahab.engine.wire import known

# A place (region, location) by a name, id or ARN of a resource this program creates.
PlaceOf = Callable[[str], tuple[str | None, str | None] | None]


class Invokes:
    def __init__(self, types: SdkTypes, where: Where, existing: list[inventory.Existing], place_of: PlaceOf):
        self.types = types
        self.where = where
        self.existing = existing
        self.place_of = place_of

    def answer(self, token: str, args: dict[str, Any], provider: dict[str, Any]) -> dict[str, Any]:
        region = known(args.get("region")) or known(provider.get("region")) or self.where.aws_region
        own = _identity(token, args, region)
        if own is not None:
            return own
        if token == "aws:iam/getPolicyDocument:getPolicyDocument":
            text = policy_document_json(args)
            return {"json": text, "minifiedJson": json.dumps(json.loads(text), separators=(",", ":")),
                    "id": short_hash(json.dumps(args, sort_keys=True))}
        if token == "kubernetes:yaml:decode":
            return {"result": decode_manifests(str(args.get("text") or ""))}
        owner = self._owner(token, args)
        if token == "aws:ssm/getParameter:getParameter":  # the EKS-optimised AMI ids programs read
            name = str(args.get("name", ""))
            answer = {"name": name, "value": f"ami-0{short_hash(name, n=16)}", "type": "String", "id": name,
                      "version": 1, "insecureValue": f"ami-0{short_hash(name, n=16)}"}
            return self._filled(token, answer, owner)
        if token.startswith("azure-native:containerservice:listManagedClusterUserCredentials"):
            cluster = str(args.get("resourceName", "aks"))
            # A cluster nobody can place offline: its server's host holds the unknown, which survives the
            # encoding a program undoes, so whatever it builds from the kubeconfig is recorded as unknown.
            location = owner.location if owner.location is not None else UNKNOWABLE
            text = kubeconfig_yaml(cluster, f"https://{cluster}.hcp.{location}.azmk8s.io:443")
            return {"kubeconfigs": [{"name": "clusterUser", "value": base64.b64encode(text.encode()).decode()}]}
        return self._filled(token, {}, owner, args) if self.types.function_result(token) is not None else args

    def _owner(self, token: str, args: dict[str, Any]) -> Owner:
        """What a lookup's answer belongs to, placed where the inventory or this program puts it, else nowhere."""
        function = token.rsplit(":", 1)[-1]
        noun = re.sub(r"^(get|list|lookup)", "", function) or function
        seed = f"{token}/{json.dumps(args, sort_keys=True, default=str)}"
        name = next((v for k, v in args.items() if isinstance(v, str) and k.lower().endswith("name")), None) \
            or f"{noun.lower()}-{short_hash(seed, n=6)}"
        region = location = None
        declared = inventory.match_lookup(self.existing, token, args)
        if declared is not None:
            region, location = declared.region, declared.location
        else:
            for value in _strings(args):
                placed = self.place_of(value)
                if placed is not None:
                    region, location = placed
                    break
        group = args.get("resourceGroupName") if isinstance(args.get("resourceGroupName"), str) else "rg"
        return Owner(token.split(":", 1)[0], module_of(token), noun, name, region, location, seed, group)

    def _filled(self, token: str, answer: dict[str, Any], owner: Owner,
                args: dict[str, Any] | None = None) -> dict[str, Any]:
        fields = self.types.function_result(token) or {}
        given = dict(answer)
        for name, spec in fields.items():  # arguments come back as the provider echoes them
            if name not in given and args and args.get(name) is not None and _fits(args[name], spec.type):
                given[name] = coerce(args[name], spec.type, self.types)
        # A lookup's optional fields are filled too: a found object has them, and programs read them.
        required = {k: type(v)(v.type, False) for k, v in fields.items()}
        return fill(required, given, owner, self.types, owner.seed)


def _identity(token: str, args: dict[str, Any], region: str) -> dict[str, Any] | None:
    """Who the program runs as and where its provider points: the stack's own facts."""
    if token == "aws:index/getAvailabilityZones:getAvailabilityZones":
        short = "".join(p[0] for p in region.split("-")[:-1]) + region.split("-")[-1]
        return {"names": [f"{region}{z}" for z in "abc"], "zoneIds": [f"{short}-az{i}" for i in (1, 2, 3)],
                "id": region, "groupNames": [region] * 3, "state": args.get("state"), "region": region}
    if token == "aws:index/getCallerIdentity:getCallerIdentity":
        return {"accountId": AWS_ACCOUNT, "arn": f"arn:aws:iam::{AWS_ACCOUNT}:user/sahab",
                "userId": "AIDA" + short_hash("user", n=16).upper(), "id": AWS_ACCOUNT}
    if token == "aws:index/getRegion:getRegion":
        return {"name": region, "region": region, "id": region, "endpoint": f"ec2.{region}.amazonaws.com",
                "description": region}
    if token == "aws:index/getPartition:getPartition":
        return {"partition": "aws", "dnsSuffix": "amazonaws.com", "id": "aws", "reverseDnsPrefix": "com.amazonaws"}
    if token.startswith("azure-native:authorization:getClientConfig"):
        return {"clientId": uuid("client"), "objectId": uuid("object"), "subscriptionId": AZURE_SUBSCRIPTION,
                "tenantId": AZURE_TENANT}
    return None


def _fits(value: Any, typ: Any) -> bool:
    if typ == "str":
        return isinstance(value, str)
    if typ == "bool":
        return isinstance(value, bool) or (isinstance(value, str) and value.lower() in ("true", "false"))
    if typ in ("int", "float"):
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if isinstance(typ, tuple) and typ[0] == "list":
        return isinstance(value, list)
    if isinstance(typ, tuple) and typ[0] in ("map", "object"):
        return isinstance(value, dict)
    return True


def _strings(value: Any):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def policy_document_json(args: dict) -> str:
    """Render aws.iam.get_policy_document arguments as the IAM JSON the provider would return."""
    statements = []
    for st in args.get("statements") or []:
        out: dict[str, Any] = {}
        if st.get("sid"):
            out["Sid"] = st["sid"]
        out["Effect"] = st.get("effect", "Allow")
        for src, dst in (("actions", "Action"), ("notActions", "NotAction"), ("resources", "Resource"),
                         ("notResources", "NotResource")):
            if st.get(src):
                out[dst] = st[src] if len(st[src]) > 1 else st[src][0]
        for key, dst in (("principals", "Principal"), ("notPrincipals", "NotPrincipal")):
            if st.get(key):
                out[dst] = {p["type"]: p["identifiers"] if len(p["identifiers"]) > 1 else p["identifiers"][0]
                            for p in st[key]}
        if st.get("conditions"):
            cond: dict[str, dict[str, Any]] = {}
            for c in st["conditions"]:
                values = c["values"] if len(c["values"]) > 1 else c["values"][0]
                cond.setdefault(c["test"], {})[c["variable"]] = values
            out["Condition"] = cond
        statements.append(out)
    return json.dumps({"Version": "2012-10-17", "Statement": statements}, indent=2)

