"""The README's Real use section, run as written where it needs no cloud: every command there is either run
here or mapped to what answers it offline (`pulumi preview --policy-pack` -> `sahab check`, `pulumi up` ->
`sahab plan`); a command nobody maps fails this test, so the README cannot promise something untested."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from sahab.version import version
from tests.plans import stack_command
from tests.workers import building_the_checkout

ROOT = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.slow


def real_use_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Real use", 1)[1].split("\n## ", 1)[0]
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", section, re.S):
        for line in block.splitlines():
            command = line.split("  #", 1)[0].strip()
            commands.extend(part.strip() for part in command.split("&&") if part.strip())
    return commands


def sahab(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sahab", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=900)


def stacks() -> set[str]:
    return {p.name.removeprefix("Pulumi.").removesuffix(".yaml") for p in (ROOT / "stacks").glob("Pulumi.*.yaml")}


def trusted_config(words: list[str], flag: str, cwd: Path, stack: str) -> None:
    """The command passes the stack's trusted policy config, a file the pack accepts (the ACR and on-prem mirror
    are allowed only there)."""
    from sahab.policy_check import load_policy_config

    path = (cwd / words[words.index(flag) + 1]).resolve()
    assert path == ROOT / "policies" / "config" / f"{stack}.json", path
    assert load_policy_config(path)


def run_offline(command: str, tmp_path: Path) -> None:
    words = shlex.split(command.split("<", 1)[0])
    if words[:2] == ["pulumi", "install"]:
        project = yaml.safe_load((ROOT / "Pulumi.yaml").read_text())
        assert (ROOT / project["main"] / "requirements.txt").is_file()  # resolved to the lock: test_lock.py
    elif words[:3] == ["pulumi", "stack", "select"]:
        assert "--create" in words and words[-1] in stacks()
    elif words[:4] == ["pulumi", "config", "set", "--secret"]:
        schema = "".join(p.read_text() for p in (ROOT / "components" / "fleet_config").glob("*.py"))
        assert f'"{words[4]}"' in schema  # the key the program reads
    elif words[:2] == ["pulumi", "preview"]:
        stack = words[words.index("-s") + 1]
        assert words[words.index("--policy-pack") + 1] == "policies" and (ROOT / "policies/PulumiPolicy.yaml").is_file()
        trusted_config(words, "--policy-pack-config", ROOT, stack)
        _applied_by_default(_policy_config(words), stack)
        done = stack_command("check", stack)  # `sahab check --stack S`, run once for every module that asks
        assert done.code == 0, done.out + done.err
    elif words[:2] == ["pulumi", "up"]:
        # The enforcement point: the pack and the stack's own trusted policy config, always both.
        stack = words[words.index("-s") + 1]
        assert words[words.index("--policy-pack") + 1] == "policies"
        trusted_config(words, "--policy-pack-config", ROOT, stack)
        done = stack_command("plan", stack)  # `sahab plan --stack S` (its exit code is the same in any format)
        assert done.code == 0, done.err
    elif words[:3] == ["pulumi", "policy", "enable"]:
        from sahab.policies.pack import PACK_NAME

        assert words[3].split("/")[1] == PACK_NAME
        trusted_config(words, "--config", ROOT / "dist/policy-pack", "prod")  # run where `cd` went
    elif words == ["make", "policy-pack"]:
        done = subprocess.run([sys.executable, "tools/policy_pack.py", str(tmp_path / "policy-pack")], cwd=ROOT,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    elif words[:1] == ["cd"]:
        assert words[1] == "dist/policy-pack"  # where `make policy-pack` builds it
    elif words[:2] == ["sahab", "forwarders"]:
        done = sahab(*words[1:])
        assert done.returncode == 0 and "forward first" in done.stdout, done.stderr
    elif words[:2] == ["sahab", "doctor"]:
        # Offline only what this machine answers (the tools); the live network checks run in tests/sahab/doctor.
        done = sahab(*words[1:], "--only", "tools")
        assert done.returncode in (0, 1) and done.stdout.startswith(("ok", "fail")), done.stderr
    elif words[:3] == ["pulumi", "policy", "publish"]:
        pass  # needs a Pulumi Cloud organisation; the folder it publishes is tested in test_lock.py
    elif words[:2] == ["pip", "wheel"]:
        # As written, into a scratch dist/: Sahab's wheel and no other (never its 60 dependencies' wheels).
        out = tmp_path / words[words.index("-w") + 1]
        args = [str(out) if w == words[words.index("-w") + 1] else str(ROOT) if w == "." else w for w in words[1:]]
        with building_the_checkout():  # another worker may be building the wheel in the checkout's build/
            done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", *args], cwd=ROOT, capture_output=True,
                                  text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        built = {p.name.split("-")[0].lower().replace("_", "-") for p in out.iterdir()}
        assert (out / f"sahab-{version()}-py3-none-any.whl").is_file()
        locked = (ROOT / "requirements.lock").read_text()
        assert not [n for n in built if re.search(rf"^{re.escape(n)}==", locked, re.M)]  # no dependency's wheel
    elif words[:2] == ["pip", "install"] and "-r" in words:
        assert {"--require-hashes", "--no-deps"} <= set(words) and words[words.index("-r") + 1] == "requirements.lock"
        # pip resolves that lock on this machine (test_lock.py) and on others (tools/lock.py verify)
    elif words[:2] == ["pip", "install"]:
        assert "--no-deps" in words and list((tmp_path / "dist").glob(words[-1].removeprefix("dist/")))
    else:
        raise AssertionError(f"README command with no offline counterpart: {command}")


def _policy_config(words: list[str]) -> list[str]:
    """`--policy-pack-config FILE` as `sahab check` takes it; the file must exist."""
    if "--policy-pack-config" not in words:
        return []
    file = words[words.index("--policy-pack-config") + 1]
    assert (ROOT / file).is_file(), file
    return ["--policy-config", file]


def _applied_by_default(flags: list[str], stack: str) -> None:
    """`sahab check` applies the stack's trusted policy config (policies/config/S.json) itself, as the pack's own
    layer: the `--policy-config` the command passes repeats that layer and adds nothing, so `sahab check --stack S`
    gives the command's verdict."""
    from sahab.policy_check import policy_config_layers

    default = policy_config_layers(ROOT, stack, None)
    given = policy_config_layers(ROOT, stack, ROOT / flags[1])
    assert flags[:1] == ["--policy-config"] and default and [layer.doc for layer in given] == \
        [layer.doc for layer in default] + [default[0].doc]


def test_every_real_use_command_works_offline(tmp_path):
    commands = real_use_commands()
    assert any(c.startswith("pulumi install") for c in commands)
    assert any(c.startswith("pulumi preview") and "--policy-pack policies" in c for c in commands)
    assert any(c.startswith("pulumi up") and "--policy-pack-config" in c for c in commands)
    for command in commands:
        run_offline(command, tmp_path)
