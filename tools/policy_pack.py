"""Build the publishable CrossGuard pack: one self-contained folder for `pulumi policy publish`.

    python3 tools/policy_pack.py [DEST]      # `make policy-pack`; DEST defaults to dist/policy-pack

`policies/` in the repository runs in the project's .venv (PulumiPolicy.yaml points there), which is right for
`pulumi preview --policy-pack policies` but not for publishing: Pulumi Cloud receives only the pack folder, and
every machine that runs a preview in the organisation installs the pack's requirements.txt into a virtualenv of
its own. The folder built here holds the `policies` package itself (rules, waivers, data), the entry point, a
PulumiPolicy.yaml naming the pack's own virtualenv and, as requirements.txt, requirements-pack.lock: pulumi-policy,
pyyaml and what they need, pinned with the hashes of every file of each version, so it installs on Linux, macOS
and Windows alike (tools/lock.py).

It needs the standard library only (no .venv, no third-party import), so it runs in seconds on any Python 3.11+,
and it writes nothing but DEST.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "policies"
LOCK = ROOT / "requirements-pack.lock"
# Files of policies/ that belong to the repository's pack only (its PulumiPolicy.yaml uses ../.venv).
REPO_ONLY = {"PulumiPolicy.yaml", "requirements.txt", "__main__.py", "config"}
RUNTIME = """runtime:
  name: python
  options:
    toolchain: pip
    virtualenv: venv
"""


def pulumi_policy_yaml(text: str) -> str:
    """The repository's PulumiPolicy.yaml with its `runtime:` block (../.venv) replaced by the pack's own
    virtualenv; every other top-level key (version, description) kept as written."""
    kept: list[str] = []
    in_runtime = False
    for line in text.splitlines(keepends=True):
        top_level = line[:1] not in (" ", "\t", "\n", "#", "")
        if top_level:
            in_runtime = line.startswith("runtime:")
            if in_runtime:
                kept.append(RUNTIME)
                continue
        if not in_runtime and not line.startswith("#"):
            kept.append(line)
    if RUNTIME not in kept:
        raise SystemExit(f"error: {SOURCE / 'PulumiPolicy.yaml'}: no top-level `runtime:` block to replace")
    return "# Built by `make policy-pack` from policies/; publish with `pulumi policy publish <org>` here.\n" + \
        "".join(kept)


def build(dest: Path) -> Path:
    if not LOCK.is_file():
        raise SystemExit(f"error: {LOCK.name} is missing: run `make lock`")
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(SOURCE, dest / "policies",
                    ignore=lambda folder, names: [n for n in names if n == "__pycache__"
                                                  or (Path(folder) == SOURCE and n in REPO_ONLY)])
    shutil.copy2(SOURCE / "__main__.py", dest / "__main__.py")
    (dest / "PulumiPolicy.yaml").write_text(pulumi_policy_yaml((SOURCE / "PulumiPolicy.yaml").read_text()))
    shutil.copy2(LOCK, dest / "requirements.txt")
    return dest


def main(argv: list[str]) -> int:
    dest = build(Path(argv[0]) if argv else ROOT / "dist" / "policy-pack")
    print(f"policy pack: {dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
