"""The image is its own world: every command the planned stacks give Sahab's own image runs from the files its
Dockerfile copies and the packages it installs, and nothing else.

The image's file set is built the way the Dockerfile builds it, by reading its ENV, WORKDIR and COPY lines into a
temporary root. Each container command of Sahab's image in the four stacks' plans (DaemonSets, Jobs, init
containers) then runs there with `--help` and for a short real run: `node-validate` against the fake API server
on loopback. A python shim and a `sitecustomize` keep every process (and its children) to that world: modules
resolve from the temporary root first, and a module that is neither the standard library's, the root's nor a
package the image's lock installs is absent, as it is in the image: `sahab`, `components`, Pulumi and this
checkout are unreachable."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import stat
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from importlib import metadata
from pathlib import Path

import pytest
import yaml
from sahab.components.fleet_config import parse_fleet
from sahab.components.registry_plan import seed_list

from tests.helpers import planned_stack
from tests.workloads.test_node_validation import FakeAPI, _judged, _node

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILES = (ROOT / "workloads" / "Dockerfile", ROOT / "workloads" / "Dockerfile.cpu")
LOCKS = (ROOT / "workloads" / "requirements.lock", ROOT / "workloads" / "requirements-torch-cpu.lock")
STACKS = ("dev", "prod", "burst", "smb")
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
NODE = "node-a"
WORKLOAD_KINDS = ("DaemonSet", "Job", "Deployment", "StatefulSet", "CronJob", "Pod")

# Runs first in every Python process of the image world (it is on PYTHONPATH as `sitecustomize`).
SITECUSTOMIZE = '''
import importlib.machinery, json, os, sys, sysconfig
_ROOTS = json.loads(os.environ["IMAGE_WORLD_ROOTS"])
_ALLOWED = set(json.loads(os.environ["IMAGE_WORLD_PACKAGES"]))
_CHECKOUT = os.environ["IMAGE_WORLD_CHECKOUT"]
# This interpreter's own site-packages stay (the image's packages are among them); the checkout's sources go.
sys.path[:] = [p for p in sys.path if not os.path.abspath(p or ".").startswith(_CHECKOUT + os.sep)
               or os.path.abspath(p).startswith(sys.prefix + os.sep)]

_FINDERS = list(sys.meta_path)
_STDLIB = sorted({sysconfig.get_path(k) for k in ("stdlib", "platstdlib")} |
                 {os.path.join(sysconfig.get_path("platstdlib"), "lib-dynload")})


class ImageWorld:
    """Modules from the image's files first, else the standard library and the packages the image installs;
    anything else is absent (None, as for a module no finder knows), whoever would have found it."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        top = name.partition(".")[0]
        if "." not in name:
            spec = importlib.machinery.PathFinder.find_spec(name, _ROOTS)
            if spec is not None:
                return spec
        if not (top in sys.builtin_module_names or top in sys.stdlib_module_names or top in _ALLOWED
                or top in ("sitecustomize", "_distutils_hack") or "." in name
                or importlib.machinery.PathFinder.find_spec(top, _STDLIB) is not None):
            return None
        for finder in _FINDERS:
            spec = finder.find_spec(name, path, target) if hasattr(finder, "find_spec") else None
            if spec is not None:
                return spec
        return None

    @classmethod
    def invalidate_caches(cls):
        for finder in _FINDERS:
            if hasattr(finder, "invalidate_caches"):
                finder.invalidate_caches()


sys.meta_path[:] = [ImageWorld]
'''


@dataclass
class Image:
    """What a Dockerfile's instructions make of the build context, laid out under `root`."""

    root: Path
    env: dict[str, str] = field(default_factory=dict)
    workdir: str = "/"
    files: set[str] = field(default_factory=set)  # paths in the image, relative to its /

    def path(self, inside: str) -> Path:
        return self.root / inside.lstrip("/")


def instructions(dockerfile: Path) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    found, pending = [], ""
    for line in dockerfile.read_text().splitlines():
        if not pending and line.lstrip().startswith("#"):
            continue
        pending += line.rstrip()
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        if pending.strip():
            word, _, rest = pending.strip().partition(" ")
            found.append((word.upper(), rest.strip()))
        pending = ""
    return found


def build(dockerfile: Path, root: Path) -> Image:
    image = Image(root)
    for word, rest in instructions(dockerfile):
        if word == "WORKDIR":
            image.workdir = rest if rest.startswith("/") else f"{image.workdir.rstrip('/')}/{rest}"
            image.path(image.workdir).mkdir(parents=True, exist_ok=True)
        elif word == "ENV":
            image.env.update(dict(pair.split("=", 1) for pair in shlex.split(rest)))
        elif word == "COPY":
            args = shlex.split(rest)
            flags = [a for a in args if a.startswith("--")]
            assert all(f.startswith("--chmod=") for f in flags), f"{dockerfile.name}: COPY {rest} (only --chmod)"
            *sources, dest = [a for a in args if not a.startswith("--")]
            target = dest if dest.startswith("/") else f"{image.workdir.rstrip('/')}/{dest}"
            mode = next((int(f.split("=", 1)[1], 8) for f in flags), None)
            for source in sources:
                _copy(image, ROOT / source, target, mode)
    return image


def _copy(image: Image, source: Path, target: str, mode: int | None) -> None:
    """Docker's COPY: a folder's contents into the target folder; a file to the target path (into it if it ends
    with `/`)."""
    assert source.exists(), f"COPY of {source}, which the build context lacks"
    if source.is_dir():
        for item in sorted(source.rglob("*")):
            if item.is_file() and "__pycache__" not in item.parts:
                _copy(image, item, f"{target.rstrip('/')}/{item.relative_to(source)}", mode)
        return
    inside = f"{target}{source.name}" if target.endswith("/") else target
    destination = image.path(inside)
    destination.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, destination)
    if mode is not None:
        destination.chmod(mode)
    elif os.access(source, os.X_OK):
        destination.chmod(destination.stat().st_mode | stat.S_IXUSR)
    image.files.add(inside.lstrip("/"))


def locked_modules() -> set[str]:
    """Top-level modules of the packages the image's locks install (read from this .venv, which has them)."""
    names = set()
    for lock in LOCKS:
        for line in lock.read_text().splitlines():
            if line and not line.startswith((" ", "#")):
                names.add(line.split("==", 1)[0])
    modules = set()
    for module, dists in metadata.packages_distributions().items():
        if any(d.lower().replace("_", "-") in names for d in dists):
            modules.add(module)
    return modules


@dataclass(frozen=True)
class Container:
    stack: str
    workload: str  # e.g. "DaemonSet sahab-system/validate-auh-h100 container validator"
    command: tuple[str, ...]
    env: tuple[tuple[str, str], ...]


def own_images(stack: str) -> set[str]:
    doc = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text())
    fleet = parse_fleet(doc["config"]["sahab:fleet"])
    return {e.target.partition("@")[0] for e in seed_list(fleet) if e.how == "build"}


def pod_spec(kind: str, spec: dict) -> dict | None:
    if kind == "Pod":
        return spec
    if kind == "CronJob":
        return spec.get("jobTemplate", {}).get("spec", {}).get("template", {}).get("spec")
    return spec.get("template", {}).get("spec")


def containers_of_own_image(stack: str) -> list[Container]:
    images = own_images(stack)
    found = []
    for res in planned_stack(stack).resources:
        kind = res.type.rsplit(":", 1)[-1]
        if not res.type.startswith("kubernetes:") or kind not in WORKLOAD_KINDS:
            continue
        pod = pod_spec(kind, res.inputs.get("spec") or {}) or {}
        for c in [*(pod.get("initContainers") or []), *(pod.get("containers") or [])]:
            if str(c.get("image", "")).partition("@")[0] not in images:
                continue
            assert c.get("command"), f"{stack}: {res.name} runs the image's default command"
            env = []
            for e in c.get("env") or []:
                if "value" in e:
                    env.append((e["name"], str(e["value"])))
                elif e.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") == "spec.nodeName":
                    env.append((e["name"], NODE))
            meta = res.inputs.get("metadata") or {}
            found.append(Container(stack, f"{kind} {meta.get('namespace')}/{meta.get('name')} container {c['name']}",
                                   tuple(c["command"]) + tuple(c.get("args") or ()), tuple(env)))
    return found


@pytest.fixture(scope="module")
def containers() -> list[Container]:
    found = [c for stack in STACKS for c in containers_of_own_image(stack)]
    kinds = {c.workload.split()[0] for c in found}
    assert {"DaemonSet", "Job"} <= kinds, kinds  # the validators and the training Jobs
    assert any("container validate" in c.workload for c in found)  # the Jobs' validation gate (init container)
    return found


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> tuple[Image, dict[str, str]]:
    """The CPU image's file set (both Dockerfiles copy the same files; this one's torch is the one here) and the
    environment of a process in it: the image's ENV with its paths under the root, a PATH whose `python` and
    `torchrun` are this interpreter confined to the image world."""
    sets = [build(d, tmp_path_factory.mktemp(d.name.replace(".", "-"))) for d in DOCKERFILES]
    # The CUDA image alone points the loader at AWS's EFA libraries (libfabric, the NCCL plugin): NCCL's, not CPU's.
    cuda_only = {"LD_LIBRARY_PATH"}
    assert sets[0].files == sets[1].files
    assert {k: v for k, v in sets[0].env.items() if k not in cuda_only} == sets[1].env
    image = sets[1]
    shims = image.root.parent / f"{image.root.name}-shims"
    (shims / "bin").mkdir(parents=True)
    (shims / "site").mkdir()
    (shims / "site" / "sitecustomize.py").write_text(SITECUSTOMIZE)
    for name, line in (("python", f'exec {sys.executable} "$@"'),
                       ("torchrun", f'exec {sys.executable} -m torch.distributed.run "$@"')):
        (shims / "bin" / name).write_text(f"#!/bin/sh\n{line}\n")
        (shims / "bin" / name).chmod(0o755)
    env = {k: str(image.path(v)) if v.startswith("/") else v for k, v in image.env.items()}
    roots = [p for p in env.get("PYTHONPATH", "").split(":") if p]
    assert roots, "the image sets no PYTHONPATH: nothing of its own files would import"
    env |= {
        "PYTHONPATH": ":".join([*roots, str(shims / "site")]),
        "PATH": f"{shims / 'bin'}:{image.path('/usr/local/bin')}:/usr/bin:/bin",
        "HOME": str(image.path("/tmp")), "TMPDIR": str(image.path("/tmp")), "LANG": "C.UTF-8",
        "IMAGE_WORLD_ROOTS": json.dumps(roots), "IMAGE_WORLD_CHECKOUT": str(ROOT),
        "IMAGE_WORLD_PACKAGES": json.dumps(sorted(locked_modules())),
    }
    image.path("/tmp").mkdir(parents=True, exist_ok=True)
    return image, env


def run_in(world, command: list[str], env: dict[str, str] | None = None, timeout: float = 240):
    image, base = world
    merged = dict(base)
    for key, value in (env or {}).items():  # the pod's paths live under the image root too
        merged[key] = str(image.path(value)) if value.startswith("/") and key != "PYTHONPATH" else value
    program = shutil.which(command[0], path=merged["PATH"])
    assert program, f"{command[0]}: not in the image"
    return subprocess.run([program, *command[1:]], cwd=image.path(image.workdir), env=merged, capture_output=True,
                          text=True, timeout=timeout)


def test_the_dockerfiles_copy_the_workload_alone():
    """Nothing of sahab/, components/ or policies/: the image's Python is workloads/ and its entrypoint, and
    pyproject.toml, where the version its documents state is read (workloads/version.py)."""
    for dockerfile in DOCKERFILES:
        copies = [shlex.split(rest) for word, rest in instructions(dockerfile) if word == "COPY"]
        sources = {a for args in copies for a in args[:-1] if not a.startswith("--")}
        assert sources <= {"workloads/", "workloads/entrypoint.sh", "pyproject.toml"}, f"{dockerfile.name}: {sources}"


def test_workloads_imports_neither_sahab_nor_components():
    import ast

    for path in (ROOT / "workloads").rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            bad = [n for n in names if n.split(".")[0] in ("sahab", "components", "policies", "pulumi")]
            assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_the_world_refuses_what_the_image_lacks(world):
    """The confinement itself: the checkout's packages and Pulumi are not importable, the image's files are."""
    done = run_in(world, ["python", "-c", "import workloads, rich, torch; print(workloads.__file__)\n"
                                          "for name in ('sahab', 'components', 'pulumi'):\n"
                                          "    try:\n        __import__(name)\n"
                                          "    except ModuleNotFoundError:\n        print('absent', name)"])
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(str(world[0].root)) and lines[1:] == ["absent sahab", "absent components",
                                                                     "absent pulumi"]


def test_every_command_of_the_image_shows_its_help_in_the_image(world, containers):
    for command in sorted({c.command for c in containers}):
        done = run_in(world, [*command, "--help"], timeout=120)
        assert done.returncode == 0 and "usage" in done.stdout.lower(), \
            f"{shlex.join(command)} --help: exit {done.returncode}\n{done.stderr[-2000:]}"


def _validators(containers: list[Container]) -> dict[tuple[str, ...], Container]:
    return {c.command: c for c in containers if "node-validate" in c.command}


def test_node_validators_record_a_verdict_through_the_api_server(world, containers):
    """Each validator command, once, against the fake API server: the benchmarking one judges its (new) node,
    the watching one expires a stale pass."""
    commands = _validators(containers)
    assert any("--watch" in c for c in commands) and any("--watch" not in c for c in commands)
    for command, container in commands.items():
        watch = "--watch" in command
        node = _judged(NODE, "passed", datetime.now(UTC) - timedelta(days=30)) if watch else _node(NODE)
        api = FakeAPI([node])
        try:
            short = ["--time-budget", "5"] if not watch else []
            done = run_in(world, [*command, "--once", "--api-server", api.url, *short], dict(container.env),
                          timeout=300)
            patches = api.patches()
        finally:
            api.server.shutdown()
            api.server.server_close()
        assert done.returncode in (0, 1, 3), f"{shlex.join(command)}: exit {done.returncode}\n{done.stderr[-3000:]}"
        assert len(patches) == 1 and patches[0]["node"] == NODE, done.stderr[-3000:]
        labels = patches[0]["body"]["metadata"]["labels"]
        if watch:
            assert labels["sahab.io/validation"] == "expired"
        else:  # the bench ran in the image (an import failure would be recorded as `error`)
            assert labels["sahab.io/validation"] in ("passed", "failed", "inconclusive"), patches[0]["body"]


def test_the_training_jobs_validate_and_train_in_the_image(world, containers):
    """The Jobs' init container (the validation gate) and training container, each distinct command once, with
    the pod's environment made local and short: a 5 s bench, one node, two steps of a tiny model."""
    jobs = {c.command: c for c in containers if c.workload.startswith("Job")}
    assert any(c[-1] == "validate" or "validate" in c for c in jobs) and any("train" in c for c in jobs)
    local = {"SAHAB_CHECKPOINT_DIR": "/checkpoints", "SAHAB_NNODES": "1", "SAHAB_RDZV_ENDPOINT": "",
             "SAHAB_NPROC_PER_NODE": "1", "SAHAB_BENCH_TIME_BUDGET": "5", "SAHAB_RESULT_FILE": "/tmp/node.json",
             "SAHAB_MAX_RESTARTS": "0"}
    for command, container in jobs.items():
        env = {k: v for k, v in container.env if not k.startswith(("AWS_", "AZURE_"))} | local
        env.pop("SAHAB_RDZV_ENDPOINT")
        if "train" in command:
            done = run_in(world, [*command, "--steps", "2", "--checkpoint-every", "0", "--d-model", "32",
                                  "--n-layers", "1", "--n-heads", "2", "--seq-len", "16", "--batch-size", "2"], env,
                          timeout=400)
            assert done.returncode == 0, f"{shlex.join(command)}: exit {done.returncode}\n{done.stderr[-3000:]}"
            summary = json.loads(done.stdout.strip().splitlines()[-1])
            assert summary["event"] == "summary" and summary["steps"] == 2
            assert summary["sahabVersion"] == VERSION
        else:
            done = run_in(world, list(command), env, timeout=300)
            assert done.returncode in (0, 1, 3), f"{shlex.join(command)}: exit {done.returncode}\n{done.stderr[-3000:]}"
            result = json.loads(world[0].path("/tmp/node.json").read_text())
            assert result["verdict"] in ("pass", "fail", "inconclusive") or "passed" in result
            assert result["sahabVersion"] == VERSION
