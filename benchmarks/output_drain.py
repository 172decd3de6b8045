"""What awaiting a program's outstanding outputs costs once the program has run: the Pulumi SDK's own loop
(pulumi/runtime/stack.py `wait_for_rpcs`: one `asyncio.wait(FIRST_COMPLETED)` per completion, over every output
still pending) against the same loop as Sahab's executor runs it (`drain_outputs_in_batches`, in
sahab/engine/langhost/sahab-language-python-exec).

N outputs finish over N/10 turns of the event loop, ten per turn, as outputs of resources the engine answers in
waves do. CPU seconds of this process, the median of --repeat runs each; the ratio is the SDK's loop over the
batched one, measured in the same sitting.

    python benchmarks/output_drain.py [--outputs 1000 4000 16000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.machinery
import importlib.util
import statistics
import time
from pathlib import Path

from pulumi.runtime import stack as sdk_stack
from pulumi.runtime.settings import SETTINGS

EXECUTOR = Path(__file__).resolve().parent.parent / "sahab" / "engine" / "langhost" / "sahab-language-python-exec"


def _executor():
    loader = importlib.machinery.SourceFileLoader("sahab_executor", str(EXECUTOR))
    spec = importlib.util.spec_from_loader("sahab_executor", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


async def _output(answer: asyncio.Future) -> None:
    await answer


async def _answer(answers: list[asyncio.Future]) -> None:
    """The engine's replies: ten per turn of the event loop."""
    for i in range(0, len(answers), 10):
        for answer in answers[i:i + 10]:
            answer.set_result(None)
        await asyncio.sleep(0)


def drain_seconds(outputs: int, batched: bool) -> float:
    """CPU seconds of creating `outputs` pending outputs and draining them with the SDK's `wait_for_rpcs`."""
    original = sdk_stack.asyncio
    if batched:
        _executor().drain_outputs_in_batches()
    loop = asyncio.new_event_loop()
    try:
        async def scenario() -> None:
            answers = [loop.create_future() for _ in range(outputs)]
            tasks = [loop.create_task(_output(answer)) for answer in answers]
            with SETTINGS.lock:
                SETTINGS.outputs.update(tasks)
            replies = loop.create_task(_answer(answers))
            await sdk_stack.wait_for_rpcs()
            assert replies.done() and all(t.done() for t in tasks) and not SETTINGS.outputs

        started = time.process_time()
        loop.run_until_complete(scenario())
        return time.process_time() - started
    finally:
        loop.close()
        sdk_stack.asyncio = original


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--outputs", type=int, nargs="+", default=[1000, 4000, 16000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{'outputs':>8} {'SDK loop s':>11} {'batched s':>10} {'ratio':>7}")
    for n in args.outputs:
        sdk = statistics.median(drain_seconds(n, batched=False) for _ in range(args.repeat))
        batched = statistics.median(drain_seconds(n, batched=True) for _ in range(args.repeat))
        print(f"{n:>8} {sdk:>11.3f} {batched:>10.3f} {sdk / batched:>6.1f}x")


if __name__ == "__main__":
    main()
