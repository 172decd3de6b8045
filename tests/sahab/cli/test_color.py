"""Colour is optional: `NO_COLOR` (https://no-color.org) and `--no-color`, before or after the command, leave no
colour in the output even where colour is forced (FORCE_COLOR, as CI logs do). `sahab --help` names the
environment variables a user may set."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PROGRAM = ROOT / "tests" / "fixtures" / "programs" / "raw_aws"
# SGR colour parameters: 30-37/90-97 foreground, 40-47/100-107 background, 38;/48; extended colours.
COLOUR = re.compile(r"\x1b\[(?:[0-9;]*;)?(?:3[0-8]|4[0-8]|9[0-7]|10[0-7])(?:;[0-9;]*)?m")


@pytest.fixture(scope="module")
def outputs() -> dict[str, str]:
    """One plan per way of asking, run side by side (each is a few seconds of program start-up)."""
    base = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")} | {"FORCE_COLOR": "1",
                                                                                                "COLUMNS": "100"}
    ways = {
        "forced": (["plan"], base),
        "NO_COLOR": (["plan"], base | {"NO_COLOR": "1"}),
        "--no-color after": (["plan", "--no-color"], base),
        "--no-color before": (["--no-color", "plan"], base),
    }
    running = {name: subprocess.Popen([sys.executable, "-m", "sahab", *args, "--program", str(PROGRAM)],
                                      env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
               for name, (args, env) in ways.items()}
    found = {}
    for name, proc in running.items():
        out, err = proc.communicate(timeout=300)
        assert proc.returncode in (0, 1), err
        found[name] = out
    return found


def test_forced_colour_is_colour(outputs):
    assert COLOUR.search(outputs["forced"])  # so the tests below can fail


@pytest.mark.parametrize("way", ["NO_COLOR", "--no-color after", "--no-color before"])
def test_no_color_leaves_no_colour(outputs, way):
    assert "aws:kms/key:Key" in outputs[way]
    assert not COLOUR.search(outputs[way]), outputs[way][:500]


def test_help_names_the_environment_variables():
    done = subprocess.run([sys.executable, "-m", "sahab", "--help"], capture_output=True, text=True, timeout=60)
    for name in ("SAHAB_DEBUG", "SAHAB_PROGRAM_TIMEOUT", "NO_COLOR"):
        assert name in done.stdout
    readme = (ROOT / "README.md").read_text()
    assert "SAHAB_DEBUG" in readme and "NO_COLOR" in readme
