"""Record what a piece of Pulumi code registers, run in this very process: for tests of Sahab's own components.

The code talks to the same engine services a hosted program does (`monitor`), over loopback gRPC, with Sahab's
own SDKs; only the process differs. Programs are always hosted (`host`): this is for code that is Sahab's.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from sahab.engine.monitor import Monitor, Recording, servicers
from sahab.engine.outputs import ProviderOutputs, Where
from sahab.engine.plan_types import PREVIEW, UPDATE


def record(build: Callable[[], Any], *, preview: bool = False, project: str = "sahab",
           stack: str = "test") -> Recording:
    """Run `build` (which constructs resources and may `pulumi.export`) as one run of a stack; raises what
    `build` raises. `preview=False` (the default) gives every provider output a value."""
    from concurrent.futures import ThreadPoolExecutor

    import grpc
    from pulumi.runtime import settings
    from pulumi.runtime.proto import engine_pb2_grpc, resource_pb2_grpc
    from pulumi.runtime.stack import run_in_stack
    from pulumi.runtime.sync_await import _sync_await

    from sahab.engine.host import sdk_types
    from sahab.engine.toolchain import sahab_site_packages

    recording = Recording(stack=stack, project=project)
    outputs = ProviderOutputs(sdk_types(sahab_site_packages()), Where("me-central-1", "uaenorth"))
    monitor = Monitor(recording, PREVIEW if preview else UPDATE, outputs, [], lambda _ref: None, Path.cwd(), None)
    resource_monitor, engine = servicers(monitor)
    server = grpc.server(ThreadPoolExecutor(max_workers=16, thread_name_prefix="sahab-engine"))
    resource_pb2_grpc.add_ResourceMonitorServicer_to_server(resource_monitor, server)
    engine_pb2_grpc.add_EngineServicer_to_server(engine, server)
    address = f"127.0.0.1:{server.add_insecure_port('127.0.0.1:0')}"
    server.start()
    settings.reset_options(project=project, stack=stack, parallel=16, engine_address=address,
                           monitor_address=address, preview=preview, organization="organization")
    try:
        _sync_await(run_in_stack(build))
    finally:
        settings.reset_options()
        settings.SETTINGS.rpc_manager.clear()
        settings.SETTINGS.outputs.clear()
        server.stop(grace=None)
        monitor.close()
    if recording.fatal is not None:
        raise recording.fatal
    return recording
