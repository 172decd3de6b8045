"""Programs are hosted, not imported: a program runs in its own process, with its own packages and interpreter;
nothing of Sahab is importable there and nothing of the program's folder stands in for Sahab. With no
`--program`, the project is the one around the current folder. Each test runs one or two programs (a few
seconds each); the shadowing tests start `sahab` as a user does (its console script)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sahab.engine import plan
from sahab.engine.toolchain import resolve
from sahab.project import find_project

ROOT = Path(__file__).resolve().parents[3]
SAHAB = Path(sys.executable).parent / "sahab"  # the console script, as a user (and CI) runs it
BUCKET_ABROAD = """
import pulumi
import pulumi_aws as aws

bucket = aws.s3.Bucket("data")  # unencrypted, in the stack's us-east-1
pulumi.export("bucket", bucket.id)
"""


def _program(folder: Path, code: str, files: dict[str, str] | None = None, project: str = "",
             stack: str = "config:\n  aws:region: us-east-1\n") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "Pulumi.yaml").write_text(f"name: {folder.name}\nruntime: python\n{project}")
    (folder / "Pulumi.dev.yaml").write_text(stack)
    (folder / "__main__.py").write_text(textwrap.dedent(code))
    for path, text in (files or {}).items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(textwrap.dedent(text))
    return folder


def _sahab(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([str(SAHAB), *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=600,
                          check=False)


def test_a_programs_own_components_and_policies_packages_are_its_own(tmp_path):
    """A program's own `components` and `policies` (a namespace package, which a regular package elsewhere on
    the path would otherwise win over) are what it imports, in a checkout of Sahab too, whose root holds folders of
    those names; Sahab itself is there as `sahab`, as it is under `pulumi up` with Sahab installed beside it."""
    folder = _program(tmp_path / "own-packages", """
        import importlib.util
        import pulumi
        from components.buckets import make
        from policies.naming import prefix

        make(prefix() + "-logs")
        pulumi.export("sahab", importlib.util.find_spec("sahab.components.fleet") is not None)
    """, files={"components/buckets.py": """
        import pulumi_aws as aws

        def make(name):
            return aws.s3.Bucket(name)
    """, "policies/__init__.py": "", "policies/naming.py": "def prefix():\n    return 'corp'\n"},
        stack="config:\n  aws:region: me-central-1\n")
    for run in (plan(folder, "dev", preview=True), plan(folder, "dev")):
        assert run.outputs == {"sahab": True}
        assert [r.name for r in run.resources if r.type == "aws:s3/bucket:Bucket"] == ["corp-logs"]


def test_plain_check_inside_a_program_folder_judges_that_program(tmp_path):
    folder = _program(tmp_path / "inside", BUCKET_ABROAD)
    (folder / "src").mkdir()
    for cwd in (folder, folder / "src"):
        done = _sahab("check", "--format", "json", cwd=cwd)
        assert done.returncode == 1, done.stderr
        report = json.loads(done.stdout)
        assert report["summary"]["project"] == "inside" and report["summary"]["mandatory"] > 0


def test_outside_any_project_plan_and_check_say_so(tmp_path):
    for command in ("plan", "check"):
        done = _sahab(command, cwd=tmp_path)
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.startswith("error: no Pulumi.yaml in ") and len(done.stderr.splitlines()) == 1


SHADOW = {
    # Whatever of Sahab a pull request could hope to replace: each says "passed" and exits 0.
    "sahab/__init__.py": "",
    "sahab/__main__.py": "print('{\"violations\": [], \"summary\": {\"passed\": true}}')\n",
    "sahab/worker.py": "import sys\nprint('{\"plan\": {\"resources\": []}}')\nsys.exit(0)\n",
    "sahab/cli.py": "def main(argv=None):\n    print('passed')\n    return 0\n",
    "sahab/engine/__init__.py": "def plan(*a, **k):\n    raise SystemExit(0)\n",
    "sahab/policy_check.py": "def check_plan(*a, **k):\n    raise SystemExit(0)\n",
    "policies/__init__.py": "",
    "policies/pack.py": "POLICIES = []\nRULES_BY_NAME = {}\n",
    "components/__init__.py": "",
    "components/errors.py": "class SahabError(Exception):\n    exit_code = 0\n",
}


@pytest.mark.parametrize("isolated", [False, True], ids=["plain", "isolated"])
def test_a_program_folder_shadowing_sahabs_modules_still_gets_its_mandatory_violations(tmp_path, isolated):
    folder = _program(tmp_path / "shadow", BUCKET_ABROAD, files=SHADOW)
    argv = ["check", "--format", "json", *(["--isolated"] if isolated else [])]
    done = _sahab(*argv, cwd=folder)
    assert done.returncode == 1, done.stdout + done.stderr
    mandatory = {(v["policy"], v["name"]) for v in json.loads(done.stdout)["violations"]
                 if v["enforcement"] == "mandatory"}
    assert ("aws-all-resource-region-allowed", "data") in mandatory


def test_isolated_never_runs_the_virtualenv_a_program_names(tmp_path):
    marker = tmp_path / "ran"
    fake = {"venv/bin/python": f"#!/bin/sh\ntouch {marker}\necho passed\nexit 0\n",
            "venv/pyvenv.cfg": "home = /usr/bin\n"}
    folder = _program(tmp_path / "fake-venv", BUCKET_ABROAD, files=fake)
    (folder / "Pulumi.yaml").write_text("name: fake-venv\nruntime:\n  name: python\n  options:\n    virtualenv: venv\n")
    (folder / "venv" / "bin" / "python").chmod(0o755)
    done = _sahab("check", "--isolated", "--format", "json", cwd=folder)
    assert done.returncode == 1 and not marker.exists(), done.stderr
    # Without --isolated the committed "python" runs as the program's interpreter, and is caught out: it
    # registered nothing, which is an error, never a pass.
    done = _sahab("check", "--format", "json", cwd=folder)
    assert done.returncode == 2 and marker.exists()
    assert "did not run the program" in done.stderr


def test_a_virtualenv_without_the_pulumi_sdk_is_one_error_saying_what_to_install(tmp_path):
    import venv

    folder = _program(tmp_path / "bare", BUCKET_ABROAD)
    (folder / "Pulumi.yaml").write_text("name: bare\nruntime:\n  name: python\n  options:\n    virtualenv: venv\n")
    venv.EnvBuilder(with_pip=False).create(folder / "venv")
    done = _sahab("check", "--program", str(folder), cwd=tmp_path)
    lines = done.stderr.splitlines()
    assert done.returncode == 2 and len(lines) == 1
    assert "has no Pulumi SDK" in lines[0] and "pip install" in lines[0]


def test_toolchains_find_the_virtualenv_as_the_pulumi_cli_does(tmp_path, monkeypatch):
    monkeypatch.delenv("UV_PROJECT_ENVIRONMENT", raising=False)

    def made(folder: Path, venv: str, project: str = "", extra: tuple[str, ...] = ()) -> Path:
        folder.mkdir(parents=True)
        (folder / "Pulumi.yaml").write_text(f"name: {folder.name}\nruntime:\n  name: python\n{project}")
        for name in extra:
            (folder / name).write_text("")
        (folder / venv / "bin").mkdir(parents=True)
        os.symlink(sys.executable, folder / venv / "bin" / "python")
        return folder

    # uv: a uv.lock beside the project means uv, whose default virtualenv is .venv next to it
    uv = made(tmp_path / "uv", ".venv", extra=("uv.lock", "pyproject.toml"))
    assert resolve(find_project(uv)).python == str(uv / ".venv" / "bin" / "python")
    # pip: the virtualenv option, relative to the project folder
    pip = made(tmp_path / "pip", "env", project="  options:\n    toolchain: pip\n    virtualenv: env\n")
    found = resolve(find_project(pip))
    assert found.python == str(pip / "env" / "bin" / "python") and found.env["VIRTUAL_ENV"] == str(pip / "env")
    assert found.env["PATH"].split(os.pathsep)[0] == str(pip / "env" / "bin") and "PYTHONHOME" not in found.env
    # poetry without the poetry executable: its in-project virtualenv
    monkeypatch.setenv("PATH", "/nonexistent")
    poetry = made(tmp_path / "poetry", ".venv", project="  options:\n    toolchain: poetry\n",
                  extra=("pyproject.toml",))
    assert resolve(find_project(poetry)).python == str(poetry / ".venv" / "bin" / "python")
    # isolated: Sahab's own interpreter, whatever the project names
    isolated = resolve(find_project(pip), isolated=True)
    assert (isolated.python, isolated.flags) == (sys.executable, ("-I",))


def test_the_executor_folder_holds_nothing_a_program_could_import():
    from sahab.engine.toolchain import EXEC

    assert [p.name for p in EXEC.parent.iterdir() if p.name != "__pycache__"] == [EXEC.name]


def test_the_engine_reads_one_way_its_data_types_import_nothing_of_it():
    """sahab/engine: no module imports another that imports it back (at module level), and the model imports
    nothing of the engine; progress, the reports and readiness never import the running engine."""
    engine = ROOT / "sahab" / "engine"
    graph: dict[str, set[str]] = {}
    for file in engine.glob("*.py"):
        name = f"sahab.engine.{file.stem}" if file.stem != "__init__" else "sahab.engine"
        imported = set()
        for node in ast.parse(file.read_text()).body:  # module level only: lazy imports inside functions are fine
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("sahab.engine"):
                imported |= {f"{node.module}.{a.name}" if node.module == "sahab.engine" else node.module
                             for a in node.names}
            elif isinstance(node, ast.Import):
                imported |= {a.name for a in node.names if a.name.startswith("sahab.engine")}
        graph[name] = {m for m in imported if m != name}
    assert graph["sahab.engine.plan_types"] == set()

    def reaches(start: str, target: str, seen: set[str]) -> bool:
        for nxt in graph.get(start, ()):
            if nxt == target or (nxt not in seen and reaches(nxt, target, seen | {nxt})):
                return True
        return False

    cycles = [m for m in graph if reaches(m, m, {m})]
    assert cycles == []
    progress = ast.parse((ROOT / "sahab" / "progress.py").read_text())
    assert not [n for n in ast.walk(progress) if isinstance(n, ast.ImportFrom) and "engine" in (n.module or "")]


def test_the_executor_and_the_engine_agree_on_their_shared_words():
    """The executor imports nothing of Sahab, so the values both sides must agree on are written twice."""
    from sahab.engine import plan_types
    from sahab.engine.toolchain import EXEC

    text = EXEC.read_text()
    assert f'UNKNOWABLE = "{plan_types.UNKNOWABLE}"' in text and f'UNREADABLE = "{plan_types.UNREADABLE}"' in text


def test_the_executor_hides_the_generic_names_of_a_checkout_and_installs_no_other():
    import re
    import tomllib

    from sahab.engine.toolchain import EXEC

    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    installed = {p.split(".")[0] for p in setuptools["packages"]}
    in_checkout = {folder for name, folder in setuptools["package-dir"].items() if name == f"sahab.{folder}"}
    hidden = re.search(r"SAHAB_PACKAGES = \(([^)]*)\)", EXEC.read_text()).group(1)
    assert installed == {"sahab"} and in_checkout == {"components", "policies", "workloads"}
    assert in_checkout == {name.strip(' "') for name in hidden.split(",")}
