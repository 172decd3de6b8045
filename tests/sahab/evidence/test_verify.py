"""`sahab evidence verify` fails on any changed, missing or added file and on a wrong key, naming what differs;
bad input is one `error:` line and exit 2."""

from __future__ import annotations

import base64
import json
import os

import pytest

from sahab.cli import main

BUNDLE_FILES = ("evidence.json", "evidence.html", "controls.csv")


@pytest.fixture(scope="module")
def smb(evidence):
    return evidence.bundle("smb")


def verify(capsys, folder, pub) -> tuple[int, str, str]:
    code = main(["evidence", "verify", str(folder), "--public-key", str(pub)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", BUNDLE_FILES)
def test_a_changed_file_fails_naming_it(smb, keys, copy_bundle, capsys, name):
    folder = copy_bundle(smb)
    data = bytearray((folder / name).read_bytes())
    data[len(data) // 2] ^= 0x01  # one bit, in the middle
    (folder / name).write_bytes(bytes(data))
    code, out, _ = verify(capsys, folder, keys["pub"])
    assert code == 1
    assert f"changed: {name} (signed sha256:" in out and out.count("\n") == 2 and "FAILED" in out


@pytest.mark.parametrize("name", BUNDLE_FILES)
def test_a_missing_file_fails_naming_it(smb, keys, copy_bundle, capsys, name):
    folder = copy_bundle(smb)
    (folder / name).unlink()
    code, out, _ = verify(capsys, folder, keys["pub"])
    assert code == 1 and f"missing: {name}" in out


@pytest.mark.parametrize("name", ["notes.txt", "extra/evidence.json", ".hidden"])
def test_an_added_file_fails_naming_it(smb, keys, copy_bundle, capsys, name):
    folder = copy_bundle(smb)
    (folder / name).parent.mkdir(exist_ok=True)
    (folder / name).write_text("trust me\n")
    code, out, _ = verify(capsys, folder, keys["pub"])
    assert code == 1 and f"added: {name}" in out


def test_a_file_swapped_for_a_link_to_the_same_bytes_fails(smb, keys, copy_bundle, capsys, tmp_path):
    folder = copy_bundle(smb)
    elsewhere = tmp_path / "elsewhere.csv"
    elsewhere.write_bytes((folder / "controls.csv").read_bytes())
    (folder / "controls.csv").unlink()
    os.symlink(elsewhere, folder / "controls.csv")
    code, out, _ = verify(capsys, folder, keys["pub"])
    assert code == 1 and "changed: controls.csv is no longer a regular file" in out


def test_a_wrong_key_fails(smb, keys, capsys):
    code, out, _ = verify(capsys, smb.folder, keys["other_pub"])
    assert code == 1 and out.startswith("signature: does not verify with the public key given")


def test_a_statement_rewritten_to_match_changed_files_fails_its_signature(smb, keys, copy_bundle, capsys):
    """Whoever edits evidence.json and the digest in the statement still cannot sign it."""
    import hashlib

    folder = copy_bundle(smb)
    doc = json.loads((folder / "evidence.json").read_text())
    doc["summary"]["passed"] = not doc["summary"]["passed"]
    (folder / "evidence.json").write_text(json.dumps(doc))
    envelope_path = folder / "evidence.intoto.jsonl"
    envelope = json.loads(envelope_path.read_text())
    statement = json.loads(base64.b64decode(envelope["payload"]))
    for subject in statement["subject"]:
        if subject["name"] == "evidence.json":
            subject["digest"]["sha256"] = hashlib.sha256((folder / "evidence.json").read_bytes()).hexdigest()
    envelope["payload"] = base64.b64encode(json.dumps(statement).encode()).decode()
    envelope_path.write_text(json.dumps(envelope) + "\n")
    code, out, _ = verify(capsys, folder, keys["pub"])
    assert code == 1 and out.startswith("signature: does not verify")


def test_a_broken_envelope_fails(smb, keys, copy_bundle, capsys):
    folder = copy_bundle(smb)
    (folder / "evidence.intoto.jsonl").write_text("{not json\n")
    code, out, _ = verify(capsys, folder, keys["pub"])
    assert code == 1 and out.startswith("changed: evidence.intoto.jsonl: not a DSSE envelope")


def _one_error_line(capsys, args: list[str], says: str) -> None:
    code = main(args)
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert err.startswith("error:") and err.count("\n") == 1 and "Traceback" not in err, err
    assert says in err


def test_bad_input_is_one_error_line(smb, keys, tmp_path, capsys):
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("-----BEGIN PUBLIC KEY-----\nnot base64\n-----END PUBLIC KEY-----\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    folder = str(smb.folder)
    cases = [
        (["evidence", "verify", folder], "--public-key: required"),
        (["evidence", "verify", folder, "--public-key", str(tmp_path / "absent.pub")], "cannot read it"),
        (["evidence", "verify", folder, "--public-key", str(tmp_path)], "is a folder"),
        (["evidence", "verify", folder, "--public-key", str(garbage)], "not a readable public key"),
        (["evidence", "verify", folder, "--public-key", str(keys["rsa_pub"])], "RSAPublicKey key; allowed: an Ed25519"),
        (["evidence", "verify", str(empty), "--public-key", str(keys["pub"])], "not an evidence bundle"),
        (["evidence", "verify", str(tmp_path / "absent"), "--public-key", str(keys["pub"])], "not a folder"),
        (["evidence", "--stack", "smb", "--out", str(tmp_path / "b")], "--key: required"),
        (["evidence", "--stack", "smb", "--key", str(keys["key"])], "--out: required"),
        (["evidence", "--stack", "smb", "--out", str(tmp_path / "b"), "--key", str(keys["rsa_key"])],
         "RSAPrivateKey key; allowed: an Ed25519 private key"),
        (["evidence", "--stack", "smb", "--out", str(tmp_path / "b"), "--key", str(keys["pub"])],
         "not a readable private key"),
        (["evidence", "--stack", "smb", "--out", str(tmp_path / "b"), "--key", str(keys["encrypted_key"])],
         "the key is encrypted; give its passphrase in $SAHAB_EVIDENCE_KEY_PASSPHRASE"),
        (["evidence", "--stack", "smb", "--out", folder, "--key", str(keys["key"])], "not empty"),
        (["evidence", "--stack", "smb", "--out", str(tmp_path / "b"), "--key", str(keys["key"]),
          "--audit", str(keys["pub"])], "not JSON"),
        (["evidence", "--stack", "smb", "--out", str(tmp_path / "b"), "--key", str(keys["key"]),
          "--audit", folder + "/evidence.json"], "not the evidence of a live audit"),
        (["evidence", "diff", folder, str(empty)], "not an evidence bundle"),
    ]
    for args, says in cases:
        _one_error_line(capsys, args, says)
    assert not (tmp_path / "b").exists()  # refused before anything was written


def test_an_encrypted_key_opens_with_its_passphrase(keys, monkeypatch):
    from sahab.errors import UsageError
    from sahab.evidence.signing import PASSPHRASE_ENV, load_public_key, load_signer

    monkeypatch.setenv(PASSPHRASE_ENV, "correct horse")
    assert load_signer(keys["encrypted_key"]).public_key.keyid == load_public_key(keys["pub"]).keyid
    monkeypatch.setenv(PASSPHRASE_ENV, "wrong")
    with pytest.raises(UsageError, match="wrong passphrase"):
        load_signer(keys["encrypted_key"])
