"""The offline engine: run any Pulumi Python program as `pulumi preview` would, and record every resource.

What the Pulumi CLI would register is what we record, from the very RegisterResource requests the SDK
sends: engine-format (camelCase) inputs, parent, provider reference, dependencies and the source position
of the code that constructed the resource. Default providers are added as the engine would add them,
with their settings taken from the stack config.

A plan is a preview: `pulumi.runtime.is_dry_run()` is true, a value a provider computes (an ARN, an
endpoint, a generated password) is unknown, and unknowns reach the policies as the engine's sentinel.
Stack transforms and resource transforms run before a resource is recorded, as the engine runs them.

`plan()` runs the program in a worker process of its own (`sahab.worker`), under the program's own
virtualenv when Pulumi.yaml names one: a program that hangs, leaves threads behind, prints, or ends the
process itself cannot take the caller down with it, and it is stopped after a time limit.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import runpy
import sys
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from sahab.errors import ConfigError, ProgramError, SahabError, UsageError, one_line
from sahab.project import REDACTED, Project, StackConfig, find_project, load_stack, program_entry

# Property-value signatures of Pulumi's wire format (sdk/go/common/resource/sig).
SIG_KEY = "4dabf18193072939515e22adb298388d"
SIG_SECRET = "1b47061264138c4ac30d75fd1eb44270"
SIG_RESOURCE = "5cf8f73096256a8f31e491e813e4eb8e"
SIG_ASSET = "c44067f5952c0a294b673a41bacd8c17"
SIG_ARCHIVE = "0def7320c3a5731c473e5ecbe6d01bc7"
SIG_OUTPUT = "d0e6a833031e9bbcd3f4e8bde6ca49a4"
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"

# How long a program may run before it is stopped (seconds); `--timeout` or this variable overrides it.
TIMEOUT_ENV = "SAHAB_PROGRAM_TIMEOUT"
DEFAULT_TIMEOUT = 300.0

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
    secret_outputs: dict[str, Any] = field(default_factory=dict, repr=False)  # wire format, for StackReferences
    preview: bool = True
    # What the user should fix in the setup (a plaintext credential, a missing virtualenv), as against
    # `warnings`, which are the program's own diagnostics (pulumi.log.warn, SDK deprecations).
    notices: list[str] = field(default_factory=list)

    def contract(self) -> dict[str, Any]:
        from sahab.schema import versions

        return {**versions(), "project": self.project, "stack": self.stack,
                "config": self.config, "resources": [r.contract() for r in self.resources]}

    # The worker hands a plan to its parent as JSON.
    def to_json(self) -> dict[str, Any]:
        doc = asdict(self)
        doc["program_dir"] = str(self.program_dir)
        return doc

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Plan:
        resources = []
        for r in doc["resources"]:
            source = r.get("source")
            resources.append(PlannedResource(**{**r, "source": (source[0], int(source[1])) if source else None}))
        return cls(**{**doc, "resources": resources, "program_dir": Path(doc["program_dir"])})


def to_plain(value: Any, *, redact: bool = True) -> Any:
    """Decode Pulumi wire-format values into plain JSON: secrets redacted, references as URNs."""
    if isinstance(value, dict):
        sig = value.get(SIG_KEY)
        if sig == SIG_SECRET:
            return REDACTED if redact else to_plain(value.get("value"), redact=redact)
        if sig == SIG_RESOURCE:
            return value.get("urn")
        if sig == SIG_OUTPUT:
            if not value.get("known", "value" in value):
                return UNKNOWN
            if value.get("secret") and redact:
                return REDACTED
            return to_plain(value.get("value"), redact=redact)
        if sig in (SIG_ASSET, SIG_ARCHIVE):
            return {k: to_plain(v, redact=redact) for k, v in value.items() if k != SIG_KEY}
        return {k: to_plain(v, redact=redact) for k, v in value.items()}
    if isinstance(value, list):
        return [to_plain(v, redact=redact) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def provider_view(value: Any) -> tuple[Any, bool]:
    """What a provider receives for a wire value: secrets unwrapped, a resource reference as its id (its URN
    for a component), unknown ids as the unknown sentinel. Also says whether a secret was inside."""
    if isinstance(value, dict):
        sig = value.get(SIG_KEY)
        if sig == SIG_SECRET:
            inner, _ = provider_view(value.get("value"))
            return inner, True
        if sig == SIG_RESOURCE:
            if "id" in value:
                return (value["id"] or UNKNOWN), False
            return value.get("urn"), False
        if sig == SIG_OUTPUT:
            if not value.get("known", "value" in value):
                return UNKNOWN, bool(value.get("secret"))
            inner, secret = provider_view(value.get("value"))
            return inner, secret or bool(value.get("secret"))
        if sig in (SIG_ASSET, SIG_ARCHIVE):
            return value, False
        out, secret = {}, False
        for k, v in value.items():
            out[k], s = provider_view(v)
            secret |= s
        return out, secret
    if isinstance(value, list):
        items, secret = [], False
        for v in value:
            inner, s = provider_view(v)
            items.append(inner)
            secret |= s
        return items, secret
    if isinstance(value, float) and value.is_integer():
        return int(value), False
    return value, False


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


def _struct(values: dict[str, Any]):
    from google.protobuf import struct_pb2

    out = struct_pb2.Struct()
    out.update(values)
    return out


def _wire(message: Any) -> dict[str, Any]:
    from google.protobuf import json_format

    return json_format.MessageToDict(message) if message is not None else {}


def _recording_monitor(mocks: Any, stack_urn_holder: list[str]):
    from pulumi.runtime.mocks import MockCallArgs, MockMonitor, MockResourceArgs
    from pulumi.runtime.proto import provider_pb2, resource_pb2

    class RecordingMonitor(MockMonitor):
        """The SDK's mock monitor, keeping the full registration request of every resource.

        Requests are decoded from the wire format directly: the SDK's own decoding would rebuild resource
        references as Python resources on the monitor's worker thread, whose futures then belong to another
        event loop than the program's (the source of "attached to a different loop" failures)."""

        def __init__(self, mocks):
            super().__init__(mocks)
            self.recorded: list[PlannedResource] = []
            self.stack_outputs: dict[str, Any] = {}  # wire format: secrets still marked
            self.stack_transforms: list[Any] = []  # callbacks, in registration order
            self.transforms_of: dict[str, list[Any]] = {}  # URN -> its own transforms (children inherit them)
            self.parent_of: dict[str, str] = {}

        def make_urn(self, parent: str, type_: str, name: str) -> str:
            # The engine leaves the root stack's type out of its children's qualified types.
            if parent and parent.split("::")[2].split("$")[-1] == "pulumi:pulumi:Stack":
                parent = ""
            return super().make_urn(parent, type_, name)

        # ---- transforms: run where the engine runs them, before the provider sees the resource --------
        def RegisterStackTransform(self, request):
            self.stack_transforms.append(request)
            return super().RegisterStackTransform(request)

        def _apply_transforms(self, request, wire: dict[str, Any], urn: str) -> tuple[dict[str, Any], str]:
            chain = list(request.transforms)
            parent = request.parent
            while parent:
                chain.extend(self.transforms_of.get(parent, ()))
                parent = self.parent_of.get(parent, "")
            chain.extend(self.stack_transforms)
            provider = request.provider
            for callback in chain:
                wire, provider = _run_transform(callback, request, wire, provider)
            return wire, provider

        # ---- registrations ------------------------------------------------------------------------------
        def RegisterResource(self, request):
            urn = self.make_urn(request.parent, request.type, request.name)
            if on_resource is not None:
                on_resource(request.type, request.name)
            if request.type == "pulumi:pulumi:Stack":
                stack_urn_holder.append(urn)
                self.recorded.append(PlannedResource(urn, request.type, request.name, None, None, {},
                                                     custom=False))
                return resource_pb2.RegisterResourceResponse(urn=urn)
            self.transforms_of[urn] = list(request.transforms)
            if request.parent:
                self.parent_of[urn] = request.parent
            wire, provider = self._apply_transforms(request, _wire(request.object), urn)
            inputs, secret_keys = self._provider_inputs(wire)
            id_, state = self.mocks.new_resource(MockResourceArgs(
                typ=request.type, name=request.name, inputs=inputs, provider=provider,
                resource_id=request.importId, custom=bool(request.custom)))
            state = _mark_secrets(state, secret_keys)
            self.resources[urn] = MockMonitor.ResourceRegistration(urn, id_, state)
            self._record(request, urn, id_ or None, state, bool(request.custom), wire, provider)
            if request.remote and not request.custom:
                self.mocks.expand_component(self, request, urn, inputs)
            return resource_pb2.RegisterResourceResponse(urn=urn, id=id_ or "", object=_struct(state))

        def ReadResource(self, request):
            urn = self.make_urn(request.parent, request.type, request.name)
            wire = _wire(request.properties)
            inputs, secret_keys = self._provider_inputs(wire)
            id_, state = self.mocks.new_resource(MockResourceArgs(
                typ=request.type, name=request.name, inputs=inputs, provider=request.provider,
                resource_id=request.id))
            state = _mark_secrets(state, secret_keys)
            self.resources[urn] = MockMonitor.ResourceRegistration(urn, id_ or request.id, state)
            if request.parent:
                self.parent_of[urn] = request.parent
            self._record(request, urn, request.id, state, True, wire, request.provider)
            return resource_pb2.ReadResourceResponse(urn=urn, properties=_struct(state))

        def Invoke(self, request):
            if request.tok == "pulumi:pulumi:getResource":
                return super().Invoke(request)
            args, _ = provider_view(_wire(request.args))
            result = self.mocks.call(MockCallArgs(token=request.tok, args=args, provider=request.provider))
            ret, failures = (result, None) if isinstance(result, dict) else result
            failures = [provider_pb2.CheckFailure(property=p, reason=r) for p, r in failures or ()]
            return resource_pb2.ResourceInvokeResponse(failures=failures, **{"return": _struct(ret)})

        def RegisterResourceOutputs(self, request):
            if stack_urn_holder and request.urn == stack_urn_holder[0]:
                self.stack_outputs = _wire(request.outputs)
            return super().RegisterResourceOutputs(request)

        # ---- recording ----------------------------------------------------------------------------------
        @staticmethod
        def _provider_inputs(wire: dict[str, Any]) -> tuple[dict[str, Any], set[str]]:
            inputs, secret_keys = {}, set()
            for key, value in wire.items():
                inputs[key], secret = provider_view(value)
                if secret:
                    secret_keys.add(key)
            return inputs, secret_keys

        def _record(self, request, urn: str, id_: str | None, state: dict, custom: bool, wire: dict,
                    provider: str) -> None:
            prop_deps = {k: list(v.urns) for k, v in getattr(request, "propertyDependencies", {}).items()}
            self.recorded.append(PlannedResource(
                urn=urn, type=request.type, name=request.name, parent=request.parent or None,
                provider=_provider_urn(provider), inputs=to_plain(wire), custom=custom, id=id_,
                outputs=to_plain(state), dependencies=list(getattr(request, "dependencies", [])),
                property_dependencies=prop_deps, source=_source(getattr(request, "sourcePosition", None))))

    return RecordingMonitor(mocks)


def _mark_secrets(state: dict[str, Any], secret_keys: set[str]) -> dict[str, Any]:
    """Outputs whose inputs were secret stay secret, as the engine keeps them."""
    return {k: ({SIG_KEY: SIG_SECRET, "value": v} if k in secret_keys else v) for k, v in state.items()}


def _run_transform(callback: Any, request: Any, wire: dict[str, Any], provider: str) -> tuple[dict[str, Any], str]:
    """Call a transform the program registered, through the SDK's own callback server, on the program's loop."""
    import asyncio

    from pulumi.runtime._callbacks import _CallbackServicer
    from pulumi.runtime.proto import resource_pb2

    servicer = next((s for s in _CallbackServicer._servicers if callback.token in s._callbacks), None)
    if servicer is None:
        return wire, provider
    options = resource_pb2.TransformResourceOptions(
        depends_on=list(request.dependencies), protect=request.protect, ignore_changes=list(request.ignoreChanges),
        provider=provider, version=request.version, retain_on_delete=request.retainOnDelete,
        providers=dict(request.providers))
    message = resource_pb2.TransformRequest(type=request.type, name=request.name, custom=request.custom,
                                            parent=request.parent, properties=_struct(wire), options=options)
    pending = asyncio.run_coroutine_threadsafe(servicer._callbacks[callback.token](message.SerializeToString()),
                                               servicer._loop)
    response = pending.result()
    if response.HasField("options") and response.options.provider:
        provider = response.options.provider
    return _wire(response.properties), provider


class _Diagnostics(logging.Handler):
    """Collects what the program logs through pulumi.log; errors fail the plan as they fail `pulumi up`."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.warnings: list[str] = []
        self.errors: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        (self.errors if record.levelno >= logging.ERROR else self.warnings).append(record.getMessage())


# ---------------------------------------------------------------------------------------------------------
# Planning a program: in a worker process (the default), or in this process


def plan(program_dir: Path | str | None = None, stack: str = "dev", *, preview: bool = False,
         timeout: float | None = None) -> Plan:
    """Run the program in `program_dir` (default: this project) for `stack` in a worker process and return
    what it would register. `timeout` (seconds; default `$SAHAB_PROGRAM_TIMEOUT` or 300) stops a program that
    does not finish.

    `preview=True` is `pulumi preview` (what `sahab plan` and `sahab check` run): computed outputs unknown.
    The default, `preview=False`, is the deployed view: every output resolved to a value in the cloud's
    format, for tests that validate the objects a stack would hold once it is up."""
    from sahab.worker import run_in_worker

    project = find_project(Path(program_dir) if program_dir else default_program_dir())
    program_entry(project)
    load_stack(project, stack)  # usage and config errors surface here, before a process starts
    return run_in_worker(project, stack, preview=preview, timeout=resolve_timeout(timeout))


def resolve_timeout(timeout: float | None) -> float:
    if timeout is not None:
        if not timeout > 0:
            raise UsageError(f"--timeout {timeout}: must be a positive number of seconds")
        return float(timeout)
    raw = os.environ.get(TIMEOUT_ENV)
    if not raw:
        return DEFAULT_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise UsageError(f"{TIMEOUT_ENV}={raw!r}: must be a positive number of seconds")
    return value


def plan_in_process(program_dir: Path | str | None = None, stack: str = "dev", *, preview: bool = True) -> Plan:
    """Run the program in this very process (what the worker does): faster, but a hanging program hangs here."""
    project = find_project(Path(program_dir) if program_dir else default_program_dir())
    entry = program_entry(project)
    config = load_stack(project, stack)
    return run_program(project, entry, config, preview=preview)


def default_program_dir() -> Path:
    return Path(__file__).resolve().parent.parent


def run_program(project: Project, entry: Path, config: StackConfig, *, preview: bool = True) -> Plan:
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
    mocks = CloudMocks(project=project, config=config, preview=preview)
    monitor = _recording_monitor(mocks, stack_urn)
    pulumi_mocks.set_mocks(mocks, project.name, config.name, preview=preview, logger=logger, monitor=monitor,
                           organization="organization")

    program_error: BaseException | None = None
    with _program_context(project, entry):
        try:
            _sync_await(run_pulumi_func(lambda: _run_entry(entry)))
        except BaseException as exc:
            program_error = exc
    _reset_runtime()
    if program_error is not None:
        raise _as_sahab_error(program_error, project, entry) from None
    if diagnostics.errors:
        raise ProgramError(f"{entry}: {one_line(diagnostics.errors[0])}")

    resources = _add_default_providers(monitor.recorded, project, config, stack_urn[0] if stack_urn else None)
    return Plan(project=project.name, stack=config.name, config=config.redacted, resources=resources,
                outputs=to_plain(monitor.stack_outputs), warnings=list(dict.fromkeys(diagnostics.warnings)),
                notices=list(config.warnings),
                program_dir=project.root, secret_outputs=monitor.stack_outputs, preview=preview)


def _run_entry(entry: Path) -> None:
    from pulumi.runtime import settings

    runpy.run_path(str(entry), run_name="__main__")
    # set_mocks registered the root stack's (empty) outputs before the program ran; register the exports now,
    # as the language host does when the program returns.
    root = settings.get_root_resource()
    root._outputs_registered = False
    root._finish()


def _as_sahab_error(exc: BaseException, project: Project, entry: Path) -> Exception:
    if isinstance(exc, SahabError):
        return exc
    # pulumi.RunError wraps a user-facing message; unwrap ConfigErrors re-raised as RunError by programs.
    if type(exc).__name__ == "RunError" and isinstance(exc.__cause__, ConfigError):
        return exc.__cause__
    if isinstance(exc, SystemExit):
        return ProgramError(f"{entry}: the program exited with status {exc.code} before it finished")
    where = _program_frame(exc, project, entry)
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        return ProgramError(f"{where}{_missing_module(_imported_name(exc, where))}")
    message = one_line(str(exc)) or type(exc).__name__
    if type(exc).__name__ == "RunError":
        return ProgramError(f"{where}{message}")
    return ProgramError(f"{where}{type(exc).__name__}: {message}")


def _imported_name(exc: ModuleNotFoundError, where: str) -> str:
    """The full dotted name the program's import statement asked for (`azure.identity` rather than `azure`)."""
    import linecache
    import re

    file, _, line = where.rstrip(": ").rpartition(":")
    text = linecache.getline(file, int(line)) if line.isdigit() else ""
    found = re.match(r"\s*(?:from|import)\s+([\w.]+)", text)
    name = str(exc.name)
    return found.group(1) if found and found.group(1).startswith(name) else name


def _missing_module(module: str) -> str:
    """Which package to install, or that the installed one is another version than the program was written for."""
    import importlib.util
    from importlib.metadata import PackageNotFoundError, version

    top = module.split(".")[0]
    if top != module and importlib.util.find_spec(top) is not None:
        dist = top.replace("_", "-")
        try:
            installed = f"{dist} {version(dist)}"
        except PackageNotFoundError:
            installed = dist
        return (f"the program imports {module}, which the installed {installed} does not have "
                f"(the program was written for another version of it)")
    # Namespace packages (azure.identity, google.cloud.storage) are distributed under their dotted names.
    parts = module.split(".")
    if top in ("azure", "google") and len(parts) > 1:
        dist = "-".join(parts[:3] if parts[1] in ("mgmt", "cloud") else parts[:2])
    else:
        dist = top.replace("_", "-")
    return f"the program imports {module}, which is not installed for {sys.executable}: pip install {dist}"


def _program_frame(exc: BaseException, project: Project, entry: Path) -> str:
    """`file:line: ` of the innermost frame in the program's own files (never the SDK's or asyncio's); else
    the program's entry file."""
    roots = {str(project.root), str(entry.parent)}
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:  # the frame may be on a cause in the chain
        seen.add(id(current))
        frames = [f for f in traceback.extract_tb(current.__traceback__)
                  if any(f.filename.startswith(r + os.sep) for r in roots) and "site-packages" not in f.filename
                  and not f.filename.startswith(str(Path(__file__).resolve().parent))]
        if frames:
            return f"{frames[-1].filename}:{frames[-1].lineno}: "
        current = current.__cause__ or current.__context__
    return f"{entry}: "


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
