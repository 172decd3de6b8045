"""Every type token a rule looks for is one the installed provider SDKs register: a renamed token would make
a rule silently match nothing."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
from sahab.policies import residency
from sahab.policies.core import DEFAULT_GLOBAL_LOCATION_TYPES, all_rules
from sahab.policies.rules import (
    aws_residency,
    aws_s3,
    cloud_residency,
    data_stores,
    egress,
    kubernetes,
    kubernetes_images,
)

PACKAGES = {"aws": "pulumi_aws", "azure-native": "pulumi_azure_native", "kubernetes": "pulumi_kubernetes"}
K8S_DIRS = {"storage.k8s.io": "storage", "core": "core", "apps": "apps", "batch": "batch", "helm.sh": "helm",
            "networking.k8s.io": "networking"}


def _tokens() -> set[str]:
    tokens = {t for r in all_rules() for t in (*r.types, *r.covers)}
    tokens |= set(data_stores.AWS_STORES) | set(data_stores.AZURE_STORES) | set(data_stores.SQL_PROTECTORS)
    tokens |= set(cloud_residency.EDGE_TYPES) | set(cloud_residency.EDGE_BY_DEFAULT)
    tokens |= set(DEFAULT_GLOBAL_LOCATION_TYPES)
    tokens |= set(kubernetes_images.POD_SPEC_PATHS) | set(kubernetes_images.HELM_TYPES)
    tokens |= {*aws_s3.BUCKET_TYPES, *aws_s3.SSE_TYPES, *aws_s3.POLICY_TYPES, *aws_s3.PUBLIC_ACCESS_TYPES,
               *aws_s3.VERSIONING_TYPES, *aws_residency.REPLICATION_TYPES, "aws:backup/plan:Plan",
               "aws:backup/vault:Vault", kubernetes.PVC, kubernetes.NAMESPACE, *residency.AZURE_GROUP_TYPES[:1],
               egress.STORAGE_ACCOUNT, egress.VAULT, egress.PRIVATE_ENDPOINT}
    return {t for t in tokens if t.split(":")[0] in PACKAGES}


def _module_dir(token: str) -> Path:
    package, module, _ = token.split(":")
    root = Path(importlib.util.find_spec(PACKAGES[package]).origin).parent
    if package == "kubernetes":
        group, version = module.split("/")
        return root / K8S_DIRS[group] / version
    folder = module.split("/")[0]
    return root / (f"{folder}_" if folder in ("lambda",) else folder)  # a Python keyword gets a trailing `_`


@pytest.mark.parametrize("token", sorted(_tokens()))
def test_token_is_registered_by_its_sdk(token):
    folder = _module_dir(token)
    files = folder.glob("*.py")
    assert any(f'"{token}"' in f.read_text() for f in files), f"{token} not found under {folder}"


# Tokens the pack names on purpose though the pinned SDKs no longer register them: programs on an older major
# version of the provider still use them.
OLDER_SDK_TOKENS = {"azure-native:documentdb:DatabaseAccount"}  # azure-native 2.x; 3.x calls the module `cosmosdb`
_TOKEN = re.compile(r'"((?:aws|azure-native|kubernetes):[A-Za-z0-9./-]+:[A-Z][A-Za-z0-9]*)"')


def _registered() -> set[str]:
    """Every resource type token the installed SDKs register (their module tables, `"classes"`)."""
    found = set()
    for package in PACKAGES.values():
        text = (Path(importlib.util.find_spec(package).origin).parent / "__init__.py").read_text()
        for table in re.finditer(r'"classes":\s*\{(.*?)\}', text, re.S):
            found.update(re.findall(r'"([^"]+)":\s*"', table.group(1)))
    return found


def test_every_type_token_written_anywhere_in_the_pack_is_registered():
    """Beyond the rules' declared types: tables of hosts, stores and relays (a Cosmos DB host once named the 2.x
    token only, so a program's own 3.x account was never recognised and its settings were refused)."""
    registered = _registered()
    assert len(registered) > 3000
    pack = Path(residency.__file__).parent
    written = {(token, str(path.relative_to(pack))) for path in pack.rglob("*.py")
               for token in _TOKEN.findall(path.read_text())}
    unknown = sorted((t, f) for t, f in written if t not in registered and t not in OLDER_SDK_TOKENS)
    assert unknown == []
    assert all(t not in registered for t in OLDER_SDK_TOKENS)  # still needed only while the SDK lacks it
