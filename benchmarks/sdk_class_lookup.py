"""What reading one output type's fields costs the engine (sahab/engine/sdk_types.py), in the largest file it reads:
the Azure SDK's network/outputs.py (megabytes, thousands of classes). A plan looks up each nested type a resource's
outputs name; the engine finds each class in the file's text and parses its getters.

Prints milliseconds of CPU per lookup for the engine's reader and, for comparison, for finding the same class with
one regex anchored at every line start (the reader before it used str.find), in one run. The classes are a fixed
random sample, so runs compare.

    python benchmarks/sdk_class_lookup.py [--classes 50]
"""

from __future__ import annotations

import argparse
import random
import re
import sysconfig
import time
from pathlib import Path

from sahab.engine.sdk_types import Ref, SdkTypes

SITE = Path(sysconfig.get_paths()["purelib"])
FILE = SITE / "pulumi_azure_native" / "network" / "outputs.py"


def regex_scan(text: str, name: str) -> str:
    """The class's body found by a regex anchored at every line start, and cut from a slice of the rest."""
    start = re.search(rf"^class {re.escape(name)}\b[^\n]*:\s*$", text, re.M)
    end = re.search(r"^(?=[^\s#])", text[start.end():], re.M)
    return text[start.end(): start.end() + end.start()] if end else text[start.end():]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--classes", type=int, default=50)
    args = parser.parse_args()
    text = FILE.read_text(encoding="utf-8")
    names = re.findall(r"^class (\w+)", text, re.M)
    sample = random.Random(7).sample(names, min(args.classes, len(names)))

    types = SdkTypes((SITE,))
    types.fields(Ref(FILE, sample[0]))  # the file read once, as a plan's first lookup does
    started = time.process_time()
    found = [types.fields(Ref(FILE, name)) for name in sample[1:]]
    reader = (time.process_time() - started) / (len(sample) - 1)
    assert all(f is not None for f in found), "a sampled class was not found"

    started = time.process_time()
    for name in sample[1:]:
        regex_scan(text, name)
    scan = (time.process_time() - started) / (len(sample) - 1)

    print(f"{FILE.relative_to(SITE)}: {len(text) / 1e6:.1f} MB, {len(names)} classes, {len(sample) - 1} looked up")
    print(f"engine reader:          {reader * 1000:7.2f} ms of CPU per class (fields parsed)")
    print(f"regex scan (find only): {scan * 1000:7.2f} ms of CPU per class")
    print(f"ratio: {scan / reader:.0f}x")


if __name__ == "__main__":
    main()
