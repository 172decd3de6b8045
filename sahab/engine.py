"""The offline engine: run any Pulumi Python program under Pulumi's mocks and record every resource.

What the Pulumi CLI would register is what we record, from the very RegisterResource requests the SDK
sends: engine-format (camelCase) inputs, parent, provider reference, dependencies and the source position
of the code that constructed the resource. Default providers are added as the engine would add them,
with their settings taken from the stack config.
"""

from __future__ import annotations

import contextlib
import logging
import os
import runpy
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from sahab.errors import ConfigError, ProgramError
from sahab.project import REDACTED, Project, StackConfig, find_project, load_stack, program_entry

# Property-value signatures of Pulumi's wire format (sdk/go/common/resource/sig).
SIG_KEY = "4dabf18193072939515e22adb298388d"
SIG_SECRET = "1b47061264138c4ac30d75fd1eb44270"
SIG_RESOURCE = "5cf8f73096256a8f31e491e813e4eb8e"
SIG_ASSET = "c44067f5952c0a294b673a41bacd8c17"
SIG_ARCHIVE = "0def7320c3a5731c473e5ecbe6d01bc7"
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"

# Python distributions of the providers whose default-provider names carry a version, as the engine's do.
_PROVIDER_DISTS = {"aws": "pulumi_aws", "azure-native": "pulumi_azure_native", "kubernetes": "pulumi_kubernetes",
                   "random": "pulumi_random"}


# Called with (type, name) for every resource the program registers; `sahab plan`/`check` count progress with it.
on_resource = None


@dataclass
class PlannedResource:
    urn: str
    type: str
    name: str
    parent: str | None
    provider: str | None  # URN of the provider resource that manages it (explicit or default)
    inputs: dict[str, Any]
    custom: bool = True
    id: str | None = None
    outputs: dict[str, Any] = field(default_factory=dict)
    dependencies: list[str] = field(default_factory=list)
    property_dependencies: dict[str, list[str]] = field(default_factory=dict)
    source: tuple[str, int] | None = None  # file and line where the program constructed it

    def contract(self) -> dict[str, Any]:
        return {"urn": self.urn, "type": self.type, "name": self.name, "parent": self.parent,
                "provider": self.provider, "inputs": self.inputs}


@dataclass
class Plan:
    project: str
    stack: str
    config: dict[str, Any]
    resources: list[PlannedResource]
    outputs: dict[str, Any]
    warnings: list[str]
    program_dir: Path
    secret_outputs: dict[str, Any] = field(default_factory=dict, repr=False)  # unredacted, for StackReferences

    def contract(self) -> dict[str, Any]:
        return {"project": self.project, "stack": self.stack, "config": self.config,
                "resources": [r.contract() for r in self.resources]}


def to_plain(value: Any, *, redact: bool = True) -> Any:
    """Decode Pulumi wire-format values into plain JSON: secrets redacted, references as URNs."""
    if isinstance(value, dict):
        sig = value.get(SIG_KEY)
        if sig == SIG_SECRET:
            return REDACTED if redact else to_plain(value.get("value"), redact=redact)
        if sig == SIG_RESOURCE:
            return value.get("urn")
        if sig in (SIG_ASSET, SIG_ARCHIVE):
            return {k: to_plain(v, redact=redact) for k, v in value.items() if k != SIG_KEY}
        return {k: to_plain(v, redact=redact) for k, v in value.items()}
    if isinstance(value, list):
        return [to_plain(v, redact=redact) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _provider_urn(ref: str) -> str | None:
    """A provider reference is `<urn>::<id>`; the URN is what identifies the provider resource."""
    return ref.rsplit("::", 1)[0] if ref else None


def _package(type_token: str) -> str:
    return type_token.split(":", 1)[0]


def _source(position: Any) -> tuple[str, int] | None:
    if not position or not position.uri:
        return None
    return unquote(urlparse(position.uri).path), int(position.line)


def _default_provider_name(package: str) -> str:
    dist = _PROVIDER_DISTS.get(package)
    if dist:
        from importlib.metadata import PackageNotFoundError, version

        with contextlib.suppress(PackageNotFoundError):
            return "default_" + version(dist).replace(".", "_").replace("-", "_")
    return "default"


def _recording_monitor(mocks: Any, stack_urn_holder: list[str]):
    from google.protobuf import json_format
    from pulumi.runtime.mocks import MockMonitor

    class RecordingMonitor(MockMonitor):
        """The SDK's mock monitor, keeping the full registration request of every resource."""

        def __init__(self, mocks):
            super().__init__(mocks)
            self.recorded: list[PlannedResource] = []
            self.stack_outputs: dict[str, Any] = {}  # wire format: secrets still marked

        def make_urn(self, parent: str, type_: str, name: str) -> str:
            # The engine leaves the root stack's type out of its children's qualified types.
            if parent and parent.split("::")[2].split("$")[-1] == "pulumi:pulumi:Stack":
                parent = ""
            return super().make_urn(parent, type_, name)

        def _record(self, request, urn: str, id_: str | None, state: dict, custom: bool, props) -> None:
            raw = json_format.MessageToDict(props, preserving_proto_field_name=True) if props else {}
            prop_deps = {k: list(v.urns) for k, v in getattr(request, "propertyDependencies", {}).items()}
            self.recorded.append(PlannedResource(
                urn=urn, type=request.type, name=request.name, parent=request.parent or None,
                provider=_provider_urn(request.provider), inputs=to_plain(raw), custom=custom, id=id_,
                outputs=to_plain(state), dependencies=list(getattr(request, "dependencies", [])),
                property_dependencies=prop_deps, source=_source(getattr(request, "sourcePosition", None))))

        def RegisterResource(self, request):
            response = super().RegisterResource(request)
            if on_resource is not None:
                on_resource(request.type, request.name)
            if request.type == "pulumi:pulumi:Stack":
                stack_urn_holder.append(response.urn)
                self.recorded.append(PlannedResource(response.urn, request.type, request.name, None, None, {},
                                                     custom=False))
                return response
            state = self.resources[response.urn].state
            self._record(request, response.urn, response.id or None, state, bool(request.custom), request.object)
            return response

        def RegisterResourceOutputs(self, request):
            if stack_urn_holder and request.urn == stack_urn_holder[0]:
                self.stack_outputs = json_format.MessageToDict(request.outputs)
            return super().RegisterResourceOutputs(request)

        def ReadResource(self, request):
            response = super().ReadResource(request)
            state = self.resources[response.urn].state
            self._record(request, response.urn, request.id, state, True, request.properties)
            return response

    return RecordingMonitor(mocks)


class _Diagnostics(logging.Handler):
    """Collects what the program logs through pulumi.log; errors fail the plan as they fail `pulumi up`."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.warnings: list[str] = []
        self.errors: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        (self.errors if record.levelno >= logging.ERROR else self.warnings).append(record.getMessage())


def plan(program_dir: Path | str | None = None, stack: str = "dev") -> Plan:
    """Run the program in `program_dir` (default: this project) for `stack` under mocks."""
    project = find_project(Path(program_dir) if program_dir else default_program_dir())
    entry = program_entry(project)
    config = load_stack(project, stack)
    return run_program(project, entry, config)


def default_program_dir() -> Path:
    return Path(__file__).resolve().parent.parent


def run_program(project: Project, entry: Path, config: StackConfig) -> Plan:
    import pulumi
    from pulumi.runtime import mocks as pulumi_mocks
    from pulumi.runtime.stack import run_pulumi_func
    from pulumi.runtime.sync_await import _sync_await

    from sahab.mocks import CloudMocks

    _reset_runtime()
    pulumi.runtime.set_all_config(config.values, sorted(config.secret_keys))
    logger = logging.getLogger(f"sahab.plan.{project.name}.{config.name}")
    logger.propagate = False
    diagnostics = _Diagnostics()
    logger.handlers = [diagnostics]
    stack_urn: list[str] = []
    mocks = CloudMocks(project=project, config=config)
    monitor = _recording_monitor(mocks, stack_urn)
    pulumi_mocks.set_mocks(mocks, project.name, config.name, preview=False, logger=logger, monitor=monitor)

    program_error: BaseException | None = None
    with _program_context(project, entry):
        try:
            _sync_await(run_pulumi_func(lambda: _run_entry(entry)))
        except BaseException as exc:
            program_error = exc
    _reset_runtime()
    if program_error is not None:
        raise _as_sahab_error(program_error, entry) from None
    if diagnostics.errors:
        raise ProgramError(f"{entry}: {diagnostics.errors[0]}")

    resources = _add_default_providers(monitor.recorded, project, config, stack_urn[0] if stack_urn else None)
    return Plan(project=project.name, stack=config.name, config=config.redacted, resources=resources,
                outputs=to_plain(monitor.stack_outputs), warnings=diagnostics.warnings, program_dir=project.root,
                secret_outputs=to_plain(monitor.stack_outputs, redact=False))


def _run_entry(entry: Path) -> None:
    from pulumi.runtime import settings

    runpy.run_path(str(entry), run_name="__main__")
    # set_mocks registered the root stack's (empty) outputs before the program ran; register the exports now,
    # as the language host does when the program returns.
    root = settings.get_root_resource()
    root._outputs_registered = False
    root._finish()


def _as_sahab_error(exc: BaseException, entry: Path) -> Exception:
    from sahab.errors import SahabError

    if isinstance(exc, SahabError):
        return exc
    cause = exc
    # pulumi.RunError wraps a user-facing message; unwrap ConfigErrors re-raised as RunError by programs.
    if type(exc).__name__ == "RunError" and isinstance(exc.__cause__, ConfigError):
        return exc.__cause__
    if isinstance(exc, SystemExit):
        return ProgramError(f"{entry}: the program exited with status {exc.code}")
    where = _innermost_program_frame(cause)
    return ProgramError(f"{where}{type(cause).__name__}: {cause}")


def _innermost_program_frame(exc: BaseException) -> str:
    import traceback

    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "site-packages" not in f.filename]
    return f"{frames[-1].filename}:{frames[-1].lineno}: " if frames else ""


def _add_default_providers(recorded: list[PlannedResource], project: Project, config: StackConfig,
                           stack_urn: str | None) -> list[PlannedResource]:
    """Give every custom resource without an explicit provider the engine's default provider for its package,
    configured from the stack's `<package>:*` settings, and list those providers as resources."""
    defaults: dict[str, PlannedResource] = {}
    for res in recorded:
        if not res.custom or res.provider or res.type.startswith("pulumi:providers:"):
            continue
        package = _package(res.type)
        if package == "pulumi":  # StackReference and other engine built-ins have no provider
            continue
        if package not in defaults:
            ptype = f"pulumi:providers:{package}"
            name = _default_provider_name(package)
            urn = f"urn:pulumi:{config.name}::{project.name}::{ptype}::{name}"
            defaults[package] = PlannedResource(urn, ptype, name, None, None,
                                                _provider_config(config, package), custom=True)
        res.provider = defaults[package].urn
    # Registration order depends on thread scheduling; a stable order keeps plans diffable.
    return sorted([*defaults.values(), *recorded], key=_plan_order)


def _plan_order(res: PlannedResource) -> tuple[int, str]:
    rank = 0 if res.type == "pulumi:pulumi:Stack" else 1 if res.type.startswith("pulumi:providers:") else 2
    return rank, res.urn


def _provider_config(config: StackConfig, package: str) -> dict[str, Any]:
    import json

    inputs: dict[str, Any] = {}
    for key, value in config.values.items():
        ns, _, name = key.partition(":")
        if ns != package:
            continue
        if key in config.secret_keys:
            inputs[name] = REDACTED
            continue
        try:
            inputs[name] = json.loads(value) if value[:1] in "[{" else value
        except json.JSONDecodeError:
            inputs[name] = value
    return inputs


@contextlib.contextmanager
def _program_context(project: Project, entry: Path):
    """Run as the language host does: cwd is the program's folder and it is importable, like the project root."""
    old_cwd, old_path = os.getcwd(), list(sys.path)
    sys.path[:0] = [str(entry.parent), str(project.root)]
    os.chdir(entry.parent)
    try:
        yield
    finally:
        os.chdir(old_cwd)
        sys.path[:] = old_path


def _reset_runtime() -> None:
    """Fresh runtime state so several plans can run in one process."""
    from pulumi.runtime import settings

    settings.reset_options()
    settings.SETTINGS.rpc_manager.clear()
    settings.SETTINGS.outputs.clear()
