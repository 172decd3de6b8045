"""Vendor Cilium's published CiliumNetworkPolicy CRD schema from a Cilium git checkout.

    python tools/vendor_cilium_schemas.py /path/to/cilium.git v1.19.4

The served `openAPIV3Schema` of cilium.io/v2 CiliumNetworkPolicy is copied verbatim from the tag's
pkg/k8s/apis/cilium.io/client/crds/v2/ (the CRDs cilium-operator registers; the Helm chart ships none) into
tests/components/kubernetes/schemas/cilium/ciliumnetworkpolicies.json, beside a SOURCE file (repository, path, tag,
commit, blob) and the release's Apache-2.0 LICENSE. tests/components/kubernetes/manifests.py validates planned policies
against it.

A clone without the tag but holding the same file may be read at a commit instead, given as a third argument
(`... v1.19.4 COMMIT`); SOURCE then says so, and records the file's blob id so that anyone with the tag can
check it: `git rev-parse v1.19.4:<path>` must print the same id.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

REPOSITORY = "https://github.com/cilium/cilium"
PATH = "pkg/k8s/apis/cilium.io/client/crds/v2/ciliumnetworkpolicies.yaml"
GROUP, VERSION, KIND = "cilium.io", "v2", "CiliumNetworkPolicy"
OUT = Path(__file__).resolve().parent.parent / "tests" / "components" / "kubernetes" / "schemas" / "cilium"


def _git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", repo, *args], check=True, capture_output=True, text=True).stdout


def main(repo: str, tag: str, rev: str | None = None) -> None:
    commit = _git(repo, "rev-parse", f"{rev or tag}^{{commit}}").strip()
    blob = _git(repo, "rev-parse", f"{commit}:{PATH}").strip()
    crd = yaml.safe_load(_git(repo, "show", f"{commit}:{PATH}"))
    assert crd["spec"]["group"] == GROUP and crd["spec"]["names"]["kind"] == KIND, PATH
    [served] = [v for v in crd["spec"]["versions"] if v["name"] == VERSION and v.get("served")]
    OUT.mkdir(parents=True, exist_ok=True)
    doc = {"group": GROUP, "version": VERSION, "kind": KIND,
           "source": {"repository": REPOSITORY, "tag": tag, "commit": commit, "path": PATH, "blob": blob,
                      "licence": "Apache-2.0"},
           "openAPIV3Schema": served["schema"]["openAPIV3Schema"]}
    (OUT / "ciliumnetworkpolicies.json").write_text(json.dumps(doc, indent=1) + "\n")
    (OUT / "LICENSE").write_text(_git(repo, "show", f"{commit}:LICENSE"))
    lines = [f"repository: {REPOSITORY}", f"tag: {tag}", f"commit: {commit}", f"path: {PATH}", f"blob: {blob}",
             "licence: Apache-2.0 (LICENSE, copied from the same commit)",
             f"what: spec.versions[name={VERSION}].schema.openAPIV3Schema, verbatim",
             "files:", "  ciliumnetworkpolicies.json"]
    if rev:
        lines.insert(3, f"note: read at commit {commit}, not at tag {tag} (the clone used lacked the tag); "
                        f"`git rev-parse {tag}:{PATH}` must print the blob below")
    (OUT / "SOURCE").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        raise SystemExit("usage: vendor_cilium_schemas.py CILIUM_GIT_DIR TAG [COMMIT]")
    main(*sys.argv[1:])
