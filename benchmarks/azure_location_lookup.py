"""What `sahab check` pays to learn whether an Azure type takes a `location` (policies/residency.py
`_takes_location`): read from the SDK's source, against importing the SDK module as before.

Every Azure type the third-party corpus plans (tests/e2e/corpus/*/expected.json) is looked up in a fresh process
each way; the script prints CPU seconds per way and whether both answer the same for every type.

    .venv/bin/python benchmarks/azure_location_lookup.py
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

ONE_WAY = """
import importlib, inspect, json, resource, sys
from policies.residency import _declared_parameters, _takes_location
answers = {}
for token in json.loads(sys.argv[2]):
    if sys.argv[1] == "source":
        answers[token] = _takes_location(token)
    else:  # the former way: import the module, read the Args class's signature
        _, module, name = token.split(":")
        try:
            args = getattr(importlib.import_module("pulumi_azure_native." + module.replace("/", ".")), name + "Args")
            answers[token] = "location" in inspect.signature(args.__init__).parameters
        except (ImportError, AttributeError, TypeError, ValueError):
            answers[token] = True
used = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"cpu": used.ru_utime + used.ru_stime, "answers": answers}))
"""


def azure_types() -> list[str]:
    found: set[str] = set()
    for expected in (ROOT / "tests" / "e2e" / "corpus").rglob("expected.json"):
        found.update(t for t in json.loads(expected.read_text()).get("resources", {}) if t.startswith("azure-native:"))
    return sorted(found)


def run(way: str, types: list[str]) -> dict:
    done = subprocess.run([sys.executable, "-c", ONE_WAY, way, json.dumps(types)], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout)


def main() -> int:
    types = azure_types()
    source, imported = run("source", types), run("import", types)
    same = source["answers"] == imported["answers"]
    print(f"{len(types)} Azure types of the corpus, {len({t.split(':')[1] for t in types})} SDK modules")
    print(f"read from the SDK source: {source['cpu']:6.2f} s CPU (the process, imports of Sahab included)")
    print(f"import the SDK modules:   {imported['cpu']:6.2f} s CPU")
    print(f"same answer for every type: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
