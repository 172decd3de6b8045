"""Kubernetes YAML decoded locally, as the kubernetes provider decodes it: `yaml:decode` answers and the objects a
`yaml/v2` ConfigFile or ConfigGroup (a component the provider builds) registers as its children."""

from __future__ import annotations

import glob
from pathlib import Path

from sahab.engine.plan_types import UNKNOWN

# Components the kubernetes provider builds itself (remote components), whose children are decoded here.
YAML_COMPONENTS = ("kubernetes:yaml/v2:ConfigGroup", "kubernetes:yaml/v2:ConfigFile")


def kubernetes_type(obj: dict) -> str:
    """`apps/v1` Deployment -> `kubernetes:apps/v1:Deployment`; core objects live under `core/v1`."""
    api = str(obj.get("apiVersion") or "v1")
    if "/" not in api:
        api = f"core/{api}"
    return f"kubernetes:{api}:{obj.get('kind', 'Unknown')}"


def decode_manifests(text: str) -> list[dict]:
    """What the kubernetes provider's `yaml:decode` answers: every document, `List` kinds expanded."""
    import yaml

    out: list[dict] = []
    for doc in yaml.safe_load_all(text):
        if not isinstance(doc, dict):
            continue
        if str(doc.get("kind", "")).endswith("List") and isinstance(doc.get("items"), list):
            out.extend(item for item in doc["items"] if isinstance(item, dict))
        else:
            out.append(doc)
    return out


def manifests_of(inputs: dict, base: Path) -> list[dict]:
    """The objects a yaml/v2 ConfigGroup or ConfigFile holds: `file`/`files` (globs), `yaml`, `objs`."""
    objects: list[dict] = []
    files = inputs.get("files") or []
    if isinstance(files, str):
        files = [files]
    if isinstance(inputs.get("file"), str):
        files = [*files, inputs["file"]]
    for pattern in files:
        if not isinstance(pattern, str) or pattern.startswith(("http://", "https://")) or pattern == UNKNOWN:
            continue
        for path in sorted(glob.glob(str(base / pattern))) or []:
            objects.extend(decode_manifests(Path(path).read_text()))
    texts = inputs.get("yaml") or []
    for text in [texts] if isinstance(texts, str) else texts:
        if isinstance(text, str) and text != UNKNOWN:
            objects.extend(decode_manifests(text))
    for obj in inputs.get("objs") or []:
        if isinstance(obj, dict):
            objects.append(obj)
    return objects


def children_of(type_: str, name: str, inputs: dict, base: Path) -> list[tuple[str, str, dict]]:
    """(type, name, object) of every object a yaml/v2 component registers, named as the provider names them."""
    if type_ not in YAML_COMPONENTS:
        return []
    prefix = inputs.get("resourcePrefix") if isinstance(inputs.get("resourcePrefix"), str) else name
    out = []
    for obj in manifests_of(inputs, base):
        meta = obj.get("metadata") or {}
        ns, obj_name = meta.get("namespace"), meta.get("name", "unnamed")
        out.append((kubernetes_type(obj), f"{prefix}:{ns}/{obj_name}" if ns else f"{prefix}:{obj_name}", obj))
    return out


def kubeconfig_yaml(cluster: str, server: str) -> str:
    return (f"apiVersion: v1\nkind: Config\nclusters:\n- name: {cluster}\n  cluster:\n    server: {server}\n"
            f"contexts:\n- name: {cluster}\n  context:\n    cluster: {cluster}\n    user: {cluster}\n"
            f"current-context: {cluster}\nusers:\n- name: {cluster}\n  user:\n    token: mock-token\n")
