"""A re-run on an unchanged stack gives the same content: only the time (and so the signature) differ."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import os
import subprocess
import sys

from sahab.evidence import bundle, signing
from tests.sahab.evidence.conftest import ROOT


def _statement(folder) -> dict:
    envelope = json.loads((folder / "evidence.intoto.jsonl").read_text())
    return json.loads(base64.b64decode(envelope["payload"]))


def _digests(folder) -> dict[str, str]:
    return {s["name"]: s["digest"]["sha256"] for s in _statement(folder)["subject"]}


def test_writing_the_same_evidence_again_gives_the_same_bytes_signature_included(evidence, keys, tmp_path):
    smb = evidence.bundle("smb")
    again = tmp_path / "again"
    bundle.write(smb.doc, again, signing.load_signer(keys["key"]))
    for path in smb.folder.iterdir():
        assert (again / path.name).read_bytes() == path.read_bytes(), path.name  # Ed25519 is deterministic


def test_a_rerun_an_hour_later_differs_only_in_its_time(evidence, keys, tmp_path):
    smb = evidence.bundle("smb")
    first = dt.datetime.strptime(smb.doc["generatedAt"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC)
    later = first + dt.timedelta(hours=1)
    out = tmp_path / "rerun"
    done = subprocess.run([sys.executable, "-m", "sahab", "evidence", "--stack", "smb", "--out", str(out),
                           "--key", str(keys["key"]), "--quiet"], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, env={**os.environ, "SOURCE_DATE_EPOCH": str(int(later.timestamp()))})
    assert done.returncode == 0, done.stderr
    before, after = _digests(smb.folder), _digests(out)
    assert set(before) == set(after)
    assert after["controls.csv"] == before["controls.csv"]  # no time in the matrix
    stamp, restamp = smb.doc["generatedAt"], later.strftime("%Y-%m-%dT%H:%M:%SZ")
    for name in ("evidence.json", "evidence.html"):
        assert after[name] != before[name]
        unstamped = (out / name).read_text().replace(restamp, stamp)
        assert hashlib.sha256(unstamped.encode()).hexdigest() == before[name], name
    first_predicate, second_predicate = _statement(smb.folder)["predicate"], _statement(out)["predicate"]
    assert {**second_predicate, "generatedAt": stamp} == first_predicate
