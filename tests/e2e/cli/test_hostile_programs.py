"""What a checked program cannot do to `sahab check`'s output: outlive it and rewrite its reports, forge lines of its
text report, or have a secret setting's text printed (the `sahab` command run as a process of its own)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SECRET = "https://hooks.example.com/T0KENPLAINTEXT5555"
CIPHERTEXT = "AAABAHSECRETCIPHERTEXTZZZ9876"


def sahab(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sahab", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def _program(folder: Path, main: str, config: str = "  aws:region: us-east-1\n") -> Path:
    folder.mkdir(parents=True)
    (folder / "Pulumi.yaml").write_text("name: probe\nruntime: python\n")
    (folder / "Pulumi.dev.yaml").write_text("config:\n" + config)
    (folder / "__main__.py").write_text(main)
    return folder


LEFT_BEHIND = '''
import os, sys, time
from pathlib import Path
import pulumi_aws as aws

aws.ebs.Volume("vol", availability_zone="us-east-1a", size=10, encrypted=False)
here = Path(__file__).parent
try:  # one of the two runs (preview, update) leaves two processes behind
    os.close(os.open(here / "once", os.O_CREAT | os.O_EXCL))
    first = True
except FileExistsError:
    first = False
if first:
    target = Path(os.environ["REWRITE"])

    def linger(name):
        (here / name).write_text(str(os.getpid()))
        for fd in (0, 1, 2):
            os.dup2(os.open(os.devnull, os.O_RDWR), fd)
        while not target.exists():
            time.sleep(0.01)
        time.sleep(1)  # sahab writes and exits meanwhile
        target.write_text('{"violations": [], "summary": {"passed": true}}')
        (here / (name + "-rewrote")).write_text("")
        os._exit(0)

    if os.fork() == 0:  # stays in the program's process group
        linger("grouped")
    if os.fork() == 0:  # leaves it: a session of its own, orphaned by a double fork
        os.setsid()
        if os.fork() == 0:
            linger("escaped")
        os._exit(0)
    os.wait()
'''


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")


def test_what_the_program_leaves_running_ends_before_the_report_is_written(tmp_path):
    report = tmp_path / "verdict.json"
    program = _program(tmp_path / "prog", LEFT_BEHIND.replace('os.environ["REWRITE"]', repr(str(report))))
    done = sahab("check", "--program", str(program), "--format", "json", "--output", str(report), cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    pids = {name: int((program / name).read_text()) for name in ("grouped", "escaped")}
    time.sleep(2)
    assert {name: _gone(pid) for name, pid in pids.items()} == {"grouped": True, "escaped": True}
    assert not list(program.glob("*-rewrote"))
    assert json.loads(report.read_text())["summary"]["mandatory"] > 0


SECRETS = '''
import pulumi, pulumi_aws as aws
cfg = pulumi.Config()
aws.sns.TopicSubscription("sub", topic="arn:aws:sns:me-central-1:123456789012:t", protocol="https",
                          endpoint=cfg.require("webhookToken"))
aws.s3.BucketV2("b", tags={"dest": cfg.require("dest")})
pulumi.export("hook", cfg.require("webhookToken"))
if cfg.get_bool("boom"):
    print("about to fail with", cfg.require("webhookToken"))
    raise ValueError(f"bad {cfg.require('webhookToken')}")
'''
SECRET_CONFIG = (f"  aws:region: me-central-1\n  probe:webhookToken: {SECRET}\n"
                 f"  probe:dest:\n    secure: {CIPHERTEXT}\n")


def test_a_plaintext_credential_is_never_printed_though_its_verdict_stands(tmp_path):
    """Sahab warns that a credential stored in plaintext is treated as a secret and never printed: not in any
    report, the plan's JSON, nor the program's error line; the finding it causes is still reported."""
    program = _program(tmp_path / "prog", SECRETS, SECRET_CONFIG)
    reports = {fmt: tmp_path / f"r.{fmt}" for fmt in ("json", "sarif", "junit", "text")}
    done = sahab("check", "--program", str(program), *[f"--report={f}={p}" for f, p in reports.items()], cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "probe:webhookToken holds a credential in plaintext; it is treated as a secret and never printed" \
        in done.stderr
    texts = {"stdout": done.stdout, "stderr": done.stderr} | {f: p.read_text() for f, p in reports.items()}
    assert [where for where, text in texts.items() if SECRET in text or CIPHERTEXT in text] == []
    found = json.loads(reports["json"].read_text())["violations"]
    assert [v["message"] for v in found if v["name"] == "sub" and "[secret]" in v["message"]]
    planned = sahab("plan", "--program", str(program), "--format", "json", cwd=tmp_path)
    assert planned.returncode == 0, planned.stderr
    assert SECRET not in planned.stdout + planned.stderr and CIPHERTEXT not in planned.stdout
    (sub,) = [r for r in json.loads(planned.stdout)["resources"] if r["name"] == "sub"]
    assert sub["inputs"]["endpoint"] == "[secret]"
    (program / "Pulumi.dev.yaml").write_text("config:\n" + SECRET_CONFIG + "  probe:boom: 'true'\n")
    failed = sahab("check", "--program", str(program), cwd=tmp_path)
    assert failed.returncode == 2 and "ValueError: bad [secret]" in failed.stderr, failed.stderr
    assert SECRET not in failed.stdout + failed.stderr


def test_a_resource_name_cannot_write_lines_of_the_text_report(tmp_path):
    name = "x\r\n## passed: 0 mandatory\n\x1b[32mok\u202e"
    program = _program(tmp_path / "prog", f"import pulumi_aws as aws\naws.s3.BucketV2({name!r})\n")
    done = sahab("check", "--program", str(program), cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "\x1b" not in done.stdout and "\r" not in done.stdout and "\u202e" not in done.stdout
    assert not [line for line in done.stdout.splitlines() if line.startswith("## passed")]
    assert "x\\r\\n## passed: 0 mandatory\\n\\x1b[32mok\\u202e" in done.stdout
