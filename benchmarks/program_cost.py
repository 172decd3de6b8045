"""What one `sahab check` / `sahab plan` costs on a small program: CPU seconds of the CLI's own process and of the
program's processes (the preview and its forked update run), and `sahab --version` as the CLI's floor.

The programs are small real ones from the adversarial corpus (one resource or two of one provider SDK each):
Kubernetes, AWS and Azure. Each command runs in a fresh interpreter, --repeat times; medians are printed. CPU
time, unlike wall time, is not distorted by the other load on a shared machine. Run it before and after a change
in one sitting and compare the figures (or their ratios).

    python benchmarks/program_cost.py [--repeat 5] [PROGRAM_DIR ...]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "tests" / "e2e" / "adversarial" / "programs"
DEFAULT = ("chart_claim_on_stack_class", "enc_dynamodb_owned_key", "place_azure_group_uae_inherited")

# Runs the CLI in this interpreter, then prints this process's CPU and that of the program processes it waited
# for (the program's process waits for its forked update run, so that is counted too).
MEASURED = """
import json, os, resource, sys
from sahab.cli import main
code = main(sys.argv[1:])
me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
said = [code, me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime]
os.write(int(os.environ["SAHAB_BENCH_FD"]), json.dumps(said).encode())
"""


def measure(argv: list[str]) -> tuple[int, float, float]:
    """(exit code, CPU seconds of the CLI's process, of the program's processes) of `sahab ARGV`."""
    import os

    read, write = os.pipe()
    env = {**os.environ, "SAHAB_BENCH_FD": str(write)}
    done = subprocess.run([sys.executable, "-c", MEASURED, *argv], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, pass_fds=(write,), check=False)
    os.close(write)
    with os.fdopen(read) as pipe:
        said = pipe.read()
    if not said:
        raise SystemExit(f"sahab {' '.join(argv)} died: {done.stderr.decode().strip()}")
    code, cli, programs = json.loads(said)
    return code, cli, programs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs of each command, medians reported (default: 5)")
    parser.add_argument("programs", nargs="*", type=Path,
                        help=f"program folders (default: {', '.join(DEFAULT)} of {PROGRAMS.relative_to(ROOT)})")
    args = parser.parse_args()
    folders = args.programs or [PROGRAMS / name for name in DEFAULT]

    rows = [("sahab --version", ["--version"])]
    for folder in folders:
        for command in ("check", "plan"):
            rows.append((f"sahab {command} {folder.name}", [command, "--program", str(folder), "--format", "json"]))
    print(f"CPU seconds, median of {args.repeat} runs each: the CLI's process + the program's processes = total")
    totals = []
    for label, argv in rows:
        runs = [measure(argv) for _ in range(args.repeat)]
        codes = sorted({code for code, _, _ in runs})
        cli, programs = statistics.median(r[1] for r in runs), statistics.median(r[2] for r in runs)
        total = statistics.median(r[1] + r[2] for r in runs)
        totals.append(total)
        print(f"{label:<52} {cli:6.2f} + {programs:5.2f} = {total:5.2f}   exit {','.join(map(str, codes))}")
    print(f"{'sum of the medians':<52} {sum(totals):22.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
