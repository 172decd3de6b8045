"""Build the publishable CrossGuard pack: one self-contained folder for `pulumi policy publish`.

    python tools/policy_pack.py [DEST]      # `make policy-pack`; DEST defaults to dist/policy-pack

`policies/` in the repository runs in the project's .venv (PulumiPolicy.yaml points there), which is right for
`pulumi preview --policy-pack policies` but not for publishing: Pulumi Cloud receives only the pack folder
and installs its requirements into a virtualenv of its own. The folder built here holds the `policies`
package itself (rules, waivers), the entry point, a PulumiPolicy.yaml with the pack's own virtualenv and a
requirements.txt pinned, with hashes, to the versions of requirements.lock (pulumi-policy, pyyaml and what
they need; nothing else: the pack imports no component and no cloud SDK).
"""

from __future__ import annotations

import re
import shutil
import sys
from importlib import metadata
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "policies"
LOCK = ROOT / "requirements.lock"
# What policies/ imports beyond the standard library; their own dependencies are followed below.
PACK_REQUIREMENTS = ("pulumi-policy", "pyyaml")
# Files of policies/ that belong to the repository's pack only (its PulumiPolicy.yaml uses ../.venv).
REPO_ONLY = {"PulumiPolicy.yaml", "requirements.txt", "__main__.py", "config"}


def _name(text: str) -> str:
    return re.sub(r"[-_.]+", "-", text).lower()


def locked() -> dict[str, str]:
    """name -> the lock's entry (`name==version \\` and its hash line), from requirements.lock."""
    entries: dict[str, str] = {}
    text = LOCK.read_text()
    for match in re.finditer(r"^([A-Za-z0-9_.-]+)==(\S+) \\\n\s+(--hash=sha256:[0-9a-f]+)", text, re.M):
        entries[_name(match[1])] = f"{match[1]}=={match[2]} \\\n    {match[3]}"
    return entries


def closure(names: tuple[str, ...]) -> set[str]:
    """The distributions `names` need here, markers evaluated for this interpreter, extras ignored."""
    from packaging.requirements import Requirement

    found: set[str] = set()
    todo = list(names)
    while todo:
        name = _name(todo.pop())
        if name in found:
            continue
        found.add(name)
        for text in metadata.requires(name) or []:
            req = Requirement(text)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    return found


def build(dest: Path) -> Path:
    lock = locked()
    needed = sorted(closure(PACK_REQUIREMENTS))
    missing = [n for n in needed if n not in lock]
    if missing:
        raise SystemExit(f"error: {', '.join(missing)} not in {LOCK.name}: run `make lock`")
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(SOURCE, dest / "policies",
                    ignore=lambda folder, names: [n for n in names if n == "__pycache__"
                                                  or (Path(folder) == SOURCE and n in REPO_ONLY)])
    shutil.copy2(SOURCE / "__main__.py", dest / "__main__.py")
    project = yaml.safe_load((SOURCE / "PulumiPolicy.yaml").read_text())
    project["runtime"] = {"name": "python", "options": {"toolchain": "pip", "virtualenv": "venv"}}
    (dest / "PulumiPolicy.yaml").write_text(
        "# Built by `make policy-pack` from policies/; publish with `pulumi policy publish <org>` here.\n"
        + yaml.safe_dump(project, sort_keys=False))
    (dest / "requirements.txt").write_text(
        f"# Pinned from {LOCK.name} by `make policy-pack`; installed by the Pulumi CLI into ./venv.\n"
        + "\n".join(lock[n] for n in needed) + "\n")
    return dest


def main(argv: list[str]) -> int:
    dest = build(Path(argv[0]) if argv else ROOT / "dist" / "policy-pack")
    print(f"policy pack: {dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
