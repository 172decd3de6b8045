"""Vendor Kueue's published CRD schemas for the kinds the fleet creates, from a Kueue git checkout.

    python tools/vendor_kueue_schemas.py /path/to/kueue.git v0.19.2

For each kind, the served `openAPIV3Schema` of the API version the fleet uses is copied verbatim from the
release's `config/components/crd/bases/` (the same CRDs the release's Helm chart installs) into
tests/components/kubernetes/schemas/kueue/<kind>.json, beside a SOURCE file (repository, path, tag, commit) and the
release's Apache-2.0 LICENSE. tests/components/kubernetes/manifests.py validates every planned Kueue object against
them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

REPOSITORY = "https://github.com/kubernetes-sigs/kueue"
CRD_DIR = "config/components/crd/bases"
GROUP = "kueue.x-k8s.io"
VERSION = "v1beta2"  # components/kubernetes/kueue.py API_VERSION
KINDS = {  # kind -> plural (the CRD file's name); only what Sahab creates
    "ResourceFlavor": "resourceflavors",
    "ClusterQueue": "clusterqueues",
    "LocalQueue": "localqueues",
    "AdmissionCheck": "admissionchecks",
    "MultiKueueConfig": "multikueueconfigs",
    "MultiKueueCluster": "multikueueclusters",
}
OUT = Path(__file__).resolve().parent.parent / "tests" / "components" / "kubernetes" / "schemas" / "kueue"


def _git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", repo, *args], check=True, capture_output=True, text=True).stdout


def served_schema(crd: dict, version: str) -> dict:
    """The openAPIV3Schema of `version`, which the CRD must serve."""
    for entry in crd["spec"]["versions"]:
        if entry["name"] == version:
            if not entry.get("served"):
                raise SystemExit(f"error: {crd['metadata']['name']} does not serve {version}")
            return entry["schema"]["openAPIV3Schema"]
    raise SystemExit(f"error: {crd['metadata']['name']} has no version {version}")


def main(repo: str, tag: str) -> None:
    commit = _git(repo, "rev-parse", f"{tag}^{{commit}}").strip()
    OUT.mkdir(parents=True, exist_ok=True)
    lines = [f"repository: {REPOSITORY}", f"tag: {tag}", f"commit: {commit}",
             f"path: {CRD_DIR}/", "licence: Apache-2.0 (LICENSE, copied from the same commit)",
             f"what: spec.versions[name={VERSION}].schema.openAPIV3Schema of each CRD, verbatim", "files:"]
    for kind, plural in KINDS.items():
        path = f"{CRD_DIR}/{GROUP}_{plural}.yaml"
        crd = yaml.safe_load(_git(repo, "show", f"{commit}:{path}"))
        assert crd["spec"]["group"] == GROUP and crd["spec"]["names"]["kind"] == kind, path
        doc = {"group": GROUP, "version": VERSION, "kind": kind,
               "source": {"repository": REPOSITORY, "tag": tag, "commit": commit, "path": path,
                          "licence": "Apache-2.0"},
               "openAPIV3Schema": served_schema(crd, VERSION)}
        (OUT / f"{plural}.json").write_text(json.dumps(doc, indent=1, sort_keys=False) + "\n")
        lines.append(f"  {plural}.json: {path}")
    (OUT / "LICENSE").write_text(_git(repo, "show", f"{commit}:LICENSE"))
    (OUT / "SOURCE").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: vendor_kueue_schemas.py KUEUE_GIT_DIR TAG")
    main(sys.argv[1], sys.argv[2])
