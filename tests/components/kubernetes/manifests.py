"""Kubernetes manifests from a plan, and their validation against the API's schemas.

Core objects: `kubernetes-validate`, Kubernetes 1.31's OpenAPI schema, strict (unknown fields are errors).
Custom resources: the upstream CRDs' openAPIV3Schema shipped in `schemas/` (Kueue's and Cilium's, vendored
verbatim from the pinned releases, in `schemas/kueue/` and `schemas/cilium/` with their SOURCE and LICENSE), made
strict the same way (the API server prunes unknown fields; `kubectl apply --validate=strict` refuses them, and so
do we), except inside oneOf/anyOf/allOf branches, which only constrain. As for a structural schema,
`x-kubernetes-*` keys are ignored; CEL rules (`x-kubernetes-validations`) are not evaluated.
"""

from __future__ import annotations

import copy
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import kubernetes_validate.utils

from sahab.engine import PlannedResource
from sahab.project import REDACTED

# kubernetes-validate re-reads its (large) definitions file on every call; the files never change, so
# reading each once keeps validating a whole plan fast. Same schemas, same results.
if not hasattr(kubernetes_validate.utils.schema_contents, "cache_info"):
    kubernetes_validate.utils.schema_contents = cache(kubernetes_validate.utils.schema_contents)

KUBERNETES_VERSION = "1.31"
SCHEMAS = Path(__file__).parent / "schemas"
NOT_MANIFESTS = ("kubernetes:helm.sh/", "kubernetes:yaml/", "pulumi:providers:kubernetes")


def is_manifest(resource: PlannedResource) -> bool:
    return resource.type.startswith("kubernetes:") and not resource.type.startswith(NOT_MANIFESTS)


def manifest(resource: PlannedResource) -> dict[str, Any]:
    """The object the provider would send to the API server, from the resource's engine inputs."""
    body = copy.deepcopy(resource.inputs)
    # A Secret's data is a Pulumi secret and the plan hides it; the shape of the rest is still checked.
    for key in ("data", "stringData"):
        if body.get(key) == REDACTED:
            body[key] = {}
    return body


_GO_LEADING_FLAGS = re.compile(r"^\^(\(\?[a-zA-Z]+\))")


def _python_pattern(pattern: str) -> str:
    """A Go (RE2) pattern as Python reads it: RE2 allows `^(?i)...`, Python wants global flags first; and `\\PC`
    (no Unicode "other" character, Cilium's log values) becomes "no control character", which `re` can say."""
    return _GO_LEADING_FLAGS.sub(r"\1^", pattern).replace(r"\PC", r"[^\x00-\x1f\x7f-\x9f]")


BRANCHES = ("oneOf", "anyOf", "allOf")


def _strict(schema: Any, branch: bool = False) -> Any:
    """Unknown fields are errors, except in the branches of oneOf/anyOf/allOf/not: those only add constraints
    (Cilium's `{properties: {endpointSelector: {}}, required: [...]}`) and declare no fields of their own."""
    if isinstance(schema, dict):
        out = {k: [_strict(x, True) for x in v] if k in BRANCHES and isinstance(v, list)
               else _strict(v, k == "not") for k, v in schema.items()}
        if isinstance(out.get("pattern"), str):
            out["pattern"] = _python_pattern(out["pattern"])
        if (not branch and "properties" in out and "additionalProperties" not in out
                and not out.get("x-kubernetes-preserve-unknown-fields")):
            out["additionalProperties"] = False
        return out
    if isinstance(schema, list):
        return [_strict(v) for v in schema]
    return schema


@cache
def crd_validators() -> dict[tuple[str, str], jsonschema.protocols.Validator]:
    """(apiVersion, kind) -> a validator for each shipped CRD schema."""
    validators = {}
    for path in sorted(SCHEMAS.rglob("*.json")):
        crd = json.loads(path.read_text())
        schema = _strict(crd["openAPIV3Schema"])
        validators[(f"{crd['group']}/{crd['version']}", crd["kind"])] = jsonschema.Draft7Validator(schema)
    return validators


def validate(body: dict[str, Any]) -> list[str]:
    """Problems with one manifest (empty when it is valid)."""
    key = (body.get("apiVersion"), body.get("kind"))
    if key in crd_validators():
        return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
                for e in crd_validators()[key].iter_errors(body)]
    try:
        kubernetes_validate.validate(body, KUBERNETES_VERSION, strict=True)
    except kubernetes_validate.ValidationError as err:
        path = "/".join(str(p) for p in err.path)
        return [f"{path}: {err.message}"]
    except kubernetes_validate.SchemaNotFoundError:
        return [f"no Kubernetes {KUBERNETES_VERSION} schema and no shipped CRD schema for {key}"]
    return []
