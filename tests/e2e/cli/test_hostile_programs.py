"""What a checked program cannot do to `sahab check`'s output: outlive it and rewrite its reports, forge lines of its
text report, or have a secret setting's text printed (the `sahab` command run as a process of its own)."""

from __future__ import annotations

import subprocess
import sys
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


def test_a_resource_name_cannot_write_lines_of_the_text_report(tmp_path):
    name = "x\r\n## passed: 0 mandatory\n\x1b[32mok\u202e"
    program = _program(tmp_path / "prog", f"import pulumi_aws as aws\naws.s3.BucketV2({name!r})\n")
    done = sahab("check", "--program", str(program), cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "\x1b" not in done.stdout and "\r" not in done.stdout and "\u202e" not in done.stdout
    assert not [line for line in done.stdout.splitlines() if line.startswith("## passed")]
    assert "x\\r\\n## passed: 0 mandatory\\n\\x1b[32mok\\u202e" in done.stdout
