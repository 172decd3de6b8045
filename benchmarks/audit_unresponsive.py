"""How long `sahab audit aws` takes to give up on an endpoint that accepts connections and never answers.

A TCP server on 127.0.0.1 accepts every connection and reads without ever answering. The real command runs
against it in its own process, with the default limits and with a few `--timeout` budgets; the script prints
the wall time, the exit code, the connections the endpoint saw (one per attempt) and the error line.

    .venv/bin/python benchmarks/audit_unresponsive.py [--timeouts default 10 2]
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def silent_endpoint() -> tuple[str, list[int]]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    seen = [0]
    held = []

    def accept():
        while True:
            conn, _ = sock.accept()
            seen[0] += 1
            held.append(conn)

    threading.Thread(target=accept, daemon=True).start()
    return f"http://127.0.0.1:{sock.getsockname()[1]}", seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeouts", nargs="+", default=["default", "10", "2"])
    args = parser.parse_args()
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
           "AWS_CONFIG_FILE": os.devnull, "AWS_SHARED_CREDENTIALS_FILE": os.devnull, "NO_PROXY": "127.0.0.1",
           "PYTHONPATH": str(ROOT)}
    print(f"{'--timeout':>10} {'seconds':>8} {'exit':>4} {'attempts':>8}  error line")
    for budget in args.timeouts:
        url, seen = silent_endpoint()
        extra = [] if budget == "default" else ["--timeout", budget]
        with tempfile.TemporaryDirectory() as evidence:
            started = time.monotonic()
            done = subprocess.run([sys.executable, "-m", "sahab", "audit", "aws", "--endpoint-url", url,
                                   "--evidence-dir", evidence, *extra], capture_output=True, text=True, env=env)
            took = time.monotonic() - started
        line = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""
        print(f"{budget:>10} {took:8.1f} {done.returncode:>4} {seen[0]:>8}  {line[:110]}")


if __name__ == "__main__":
    main()
