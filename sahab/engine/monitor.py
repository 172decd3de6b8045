"""The engine side of a program's run: Pulumi's ResourceMonitor and Engine gRPC services, recording what the
program registers.

What the Pulumi CLI would register is what is recorded, from the very requests the program's SDK sends:
engine-format (camelCase) inputs, parent, provider reference, dependencies and the source position of the code
that constructed the resource. Transforms run where the engine runs them, before the provider sees the resource:
the resource's own, its ancestors', then the stack's, each called back through the program's Callbacks service.
Providers answer through `outputs` (resources) and `invokes` (functions); a StackReference reads another local
stack (`stack_refs`); the objects of a Kubernetes `yaml/v2` component are decoded here (`kubernetes`).

Every handler runs on a gRPC server thread of Sahab's process; the program is a separate process.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from sahab.engine import inventory, kubernetes
from sahab.engine.invokes import Invokes
from sahab.engine.outputs import ProviderOutputs, kubernetes_state
from sahab.engine.plan_types import PREVIEW, UNKNOWN, UNREADABLE, Plan, PlannedResource
from sahab.engine.values import Owner, short_hash
from sahab.engine.wire import (
    carried,
    from_struct,
    holds_secret,
    mark_secrets,
    provider_inputs,
    provider_view,
    struct,
    to_plain,
)

STACK_TYPE = "pulumi:pulumi:Stack"
STACK_REFERENCE = "pulumi:pulumi:StackReference"

# Reads a local stack named by a StackReference: its plan (as deployed), or None when it is not here.
ReadStack = Callable[[str], Plan | None]


@dataclass
class Recording:
    """Everything one run of a program told the engine."""

    stack: str
    project: str
    resources: list[PlannedResource] = field(default_factory=list)
    stack_urn: str | None = None
    stack_outputs: dict[str, Any] = field(default_factory=dict)  # wire format: secrets still marked
    errors: list[str] = field(default_factory=list)  # what the program (or its executor) logged as errors
    warnings: list[str] = field(default_factory=list)
    versions: dict[str, str] = field(default_factory=dict)  # package -> the SDK version the program runs
    places: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)  # see Plan.places
    fatal: BaseException | None = None  # an engine-side failure the run ends with (a stack reference cycle)


class Monitor:
    """The state of one run, and the answers to its requests."""

    def __init__(self, recording: Recording, phase: str, outputs: ProviderOutputs, existing: list[inventory.Existing],
                 read_stack: ReadStack, program_dir: Path, on_resource: Callable[[str, str], None] | None):
        self.recording = recording
        self.phase = phase
        self.outputs = outputs
        self.existing = existing
        self.read_stack = read_stack
        self.program_dir = program_dir
        self.on_resource = on_resource
        self.invokes = Invokes(outputs.types, outputs.where, existing, self._place_of)
        self._lock = threading.Lock()
        self._state: dict[str, tuple[str, dict[str, Any]]] = {}  # urn -> (id, wire state)
        self._providers: dict[str, dict[str, Any]] = {}  # provider URN -> its inputs
        self._places = recording.places  # a resource's names, ids and ARNs -> its place
        self._groups: dict[str, str] = {}  # Azure resource group name -> location, for groups this program creates
        self._transforms_of: dict[str, list[Any]] = {}
        self._parent_of: dict[str, str] = {}
        self._stack_transforms: list[Any] = []
        self._invoke_transforms: list[Any] = []
        self._channels: dict[str, Any] = {}
        self._unknowable: set[str] = set()  # URNs whose outputs nobody can know offline (a stack not here)

    def close(self) -> None:
        for channel in self._channels.values():
            channel.close()

    # ---- URNs and places ---------------------------------------------------------------------------------
    def make_urn(self, parent: str, type_: str, name: str) -> str:
        # Children of the root stack carry no qualified type; deeper ones carry their ancestors' types.
        if parent and parent.split("::")[2].split("$")[-1] != STACK_TYPE:
            type_ = parent.split("::")[2] + "$" + type_
        return f"urn:pulumi:{self.recording.stack}::{self.recording.project}::{type_}::{name}"

    def _provider_settings(self, ref: str) -> dict[str, Any]:
        return self._providers.get(ref.rsplit("::", 1)[0], {}) if ref else {}

    def _place_of(self, name: str) -> tuple[str | None, str | None] | None:
        return self._places.get(name)

    def _remember_place(self, owner: Owner, token: str, inputs: dict[str, Any], rid: str | None,
                        state: dict[str, Any]) -> None:
        place = (owner.region, owner.location)
        kind = token.rsplit(":", 1)[-1]
        own = ("name", "bucket", "resourceName", "accountName", "vaultName", f"{kind[:1].lower()}{kind[1:]}Name")
        names = [rid, *(state.get(k) for k in ("arn", "id", "name")), *(inputs.get(k) for k in own)]
        with self._lock:
            for n in names:
                if isinstance(n, str) and n and n != UNKNOWN:
                    self._places.setdefault(n, place)
            if kind == "ResourceGroup" and token.startswith("azure-native:") and owner.location:
                group = inputs.get("resourceGroupName") or state.get("name")
                if isinstance(group, str):
                    self._groups[group] = owner.location

    def _group_location(self, group: str) -> str | None:
        return self._groups.get(group)

    # ---- transforms (called back in the program) -----------------------------------------------------------
    def _callback(self, callback: Any, request: Any, response_type: Any) -> Any:
        import grpc
        from pulumi.runtime.proto import callback_pb2, callback_pb2_grpc

        with self._lock:
            channel = self._channels.get(callback.target)
            if channel is None:
                channel = self._channels[callback.target] = grpc.insecure_channel(callback.target)
        stub = callback_pb2_grpc.CallbacksStub(channel)
        answer = stub.Invoke(callback_pb2.CallbackInvokeRequest(token=callback.token,
                                                                request=request.SerializeToString()))
        return response_type.FromString(answer.response)

    def _apply_transforms(self, request: Any, wire: dict[str, Any]) -> tuple[dict[str, Any], str]:
        from pulumi.runtime.proto import resource_pb2

        chain = list(request.transforms)
        parent = request.parent
        while parent:
            chain.extend(self._transforms_of.get(parent, ()))
            parent = self._parent_of.get(parent, "")
        chain.extend(self._stack_transforms)
        provider = request.provider
        for callback in chain:
            options = resource_pb2.TransformResourceOptions(
                depends_on=list(request.dependencies), protect=request.protect,
                ignore_changes=list(request.ignoreChanges), provider=provider, version=request.version,
                retain_on_delete=request.retainOnDelete, providers=dict(request.providers))
            message = resource_pb2.TransformRequest(type=request.type, name=request.name, custom=request.custom,
                                                    parent=request.parent, properties=struct(wire), options=options)
            response = self._callback(callback, message, resource_pb2.TransformResponse)
            if response.HasField("options") and response.options.provider:
                provider = response.options.provider
            wire = from_struct(response.properties)
        return wire, provider

    # ---- ResourceMonitor ----------------------------------------------------------------------------------
    def register(self, request: Any) -> tuple[str, str, dict[str, Any]]:
        """A RegisterResource request: (urn, id, wire state)."""
        urn = self.make_urn(request.parent, request.type, request.name)
        if self.on_resource is not None:
            self.on_resource(request.type, request.name)
        if request.type == STACK_TYPE:
            self.recording.stack_urn = urn
            self._record(PlannedResource(urn, request.type, request.name, None, None, {}, custom=False))
            return urn, "", {}
        package = request.type.split(":", 1)[0]
        if request.version and package not in self.recording.versions:
            self.recording.versions[package] = request.version
        with self._lock:
            self._transforms_of[urn] = list(request.transforms)
            if request.parent:
                self._parent_of[urn] = request.parent
        wire = from_struct(request.object)
        for key, deps in request.propertyDependencies.items():
            if key in wire and self._unknowable & set(deps.urns):
                wire[key] = UNKNOWN  # built from what a stack that is not here exports: unknown, whatever it reads
        wire, provider = self._apply_transforms(request, wire)
        inputs, secret_keys = provider_inputs(wire)
        if request.type.startswith("pulumi:providers:"):
            with self._lock:
                self._providers[urn] = inputs
            rid = f"{short_hash(request.type, request.name, n=8)}-{short_hash(request.name, n=4)}-provider"
            state = inputs
        elif not request.custom:
            rid, state = "", inputs  # a component: its outputs are what it registers as outputs
        else:
            owner = self.outputs.owner(request.type, request.name, inputs, self._provider_settings(provider),
                                       self._group_location)
            rid, state = self.outputs.resource(request.type, request.name, inputs, owner, self.phase,
                                               request.importId or None)
            self._remember_place(owner, request.type, inputs, rid, state)
        state = mark_secrets(state, secret_keys)
        with self._lock:
            self._state[urn] = (rid, state)
        self._record(self._planned(request, urn, rid or None, state, bool(request.custom), wire, provider))
        if request.remote and not request.custom:
            self._expand(request, urn, inputs)
        return urn, rid, state

    def read(self, request: Any) -> tuple[str, dict[str, Any]]:
        """A ReadResource request (`Resource.get`, StackReference): (urn, wire state)."""
        urn = self.make_urn(request.parent, request.type, request.name)
        wire = from_struct(request.properties)
        inputs, secret_keys = provider_inputs(wire)
        if request.type == STACK_REFERENCE:
            state = self._stack_reference(str(inputs.get("name") or request.name), request.name, urn)
        else:
            owner = self.outputs.owner(request.type, request.name, inputs, self._provider_settings(request.provider),
                                       self._group_location)
            declared = inventory.match_read(self.existing, request.type, request.id)
            # An existing resource is where the stack's inventory says, else nowhere known.
            owner = Owner(owner.package, owner.service, owner.kind, request.id.rsplit("/", 1)[-1],
                          declared.region if declared else None, declared.location if declared else None,
                          f"{request.type}/{request.id}", owner.resource_group)
            _, state = self.outputs.resource(request.type, request.name, inputs, owner, "update", request.id)
            state = mark_secrets(state, secret_keys)
        with self._lock:
            self._state[urn] = (request.id, state)
            if request.parent:
                self._parent_of[urn] = request.parent
        self._record(self._planned(request, urn, request.id, state, True, wire, request.provider))
        return urn, state

    def invoke(self, request: Any) -> dict[str, Any]:
        args, _ = provider_view(from_struct(request.args))
        if request.tok == "pulumi:pulumi:getResource":
            rid, state = self._state.get(str(args.get("urn")), ("", {}))
            return {"urn": args.get("urn"), "id": rid, "state": state}
        if self._invoke_transforms:
            args = self._transform_invoke(request, args)
        return self.invokes.answer(request.tok, args, self._provider_settings(request.provider))

    def _transform_invoke(self, request: Any, args: dict[str, Any]) -> dict[str, Any]:
        from pulumi.runtime.proto import resource_pb2

        for callback in self._invoke_transforms:
            options = resource_pb2.TransformInvokeOptions(provider=request.provider, version=request.version)
            message = resource_pb2.TransformInvokeRequest(token=request.tok, args=struct(args), options=options)
            response = self._callback(callback, message, resource_pb2.TransformInvokeResponse)
            args = from_struct(response.args)
        return args

    def register_outputs(self, urn: str, outputs: dict[str, Any]) -> None:
        if urn == self.recording.stack_urn:
            self.recording.stack_outputs = outputs

    def register_stack_transform(self, callback: Any) -> None:
        self._stack_transforms.append(callback)

    def register_invoke_transform(self, callback: Any) -> None:
        self._invoke_transforms.append(callback)

    # ---- what only the engine knows ---------------------------------------------------------------------
    def _stack_reference(self, reference: str, name: str, urn: str) -> dict[str, Any]:
        """A StackReference reads the outputs of a local stack (planned offline too); a stack that is not here
        has outputs nobody can know offline. In a preview they are unknown; in the update the SDK takes no unknown,
        so they are marked UNREADABLE (the program's executor answers every name with UNKNOWABLE), and whatever
        the program builds from them is recorded as unknown."""
        referenced = self.read_stack(reference)
        if referenced is None:
            if self.phase == PREVIEW:
                return {"name": name}
            with self._lock:
                self._unknowable.add(urn)
            return {"name": name, "outputs": {UNREADABLE: True}}
        with self._lock:  # what that stack creates is where its plan puts it
            for key, place in referenced.places.items():
                self._places.setdefault(key, place)
        outputs = referenced.secret_outputs
        secret = sorted(k for k, v in outputs.items() if holds_secret(v))
        return {"name": name, "outputs": outputs, "secretOutputNames": secret}

    def _expand(self, request: Any, urn: str, inputs: dict[str, Any]) -> None:
        """The children a provider's own component (kubernetes yaml/v2) would register, decoded locally."""
        provider = request.provider.rsplit("::", 1)[0] if request.provider else None
        for type_, name, obj in kubernetes.children_of(request.type, request.name, inputs, self.program_dir):
            _, state = kubernetes_state(type_, name, obj)
            self._record(PlannedResource(urn=self.make_urn(urn, type_, name), type=type_, name=name, parent=urn,
                                         provider=provider or None, inputs=obj, custom=True, outputs=state,
                                         dependencies=[urn]))

    def _planned(self, request: Any, urn: str, id_: str | None, state: dict[str, Any], custom: bool,
                 wire: dict[str, Any], provider: str) -> PlannedResource:
        prop_deps = {k: list(v.urns) for k, v in getattr(request, "propertyDependencies", {}).items()}
        return PlannedResource(
            urn=urn, type=request.type, name=request.name, parent=request.parent or None,
            provider=provider.rsplit("::", 1)[0] if provider else None, inputs=to_plain(wire), custom=custom,
            id=id_, outputs=to_plain(state), dependencies=list(getattr(request, "dependencies", [])),
            property_dependencies=prop_deps, source=_source(getattr(request, "sourcePosition", None)))

    def _record(self, resource: PlannedResource) -> None:
        with self._lock:
            self.recording.resources.append(resource)


def _source(position: Any) -> tuple[str, int] | None:
    if not position or not position.uri:
        return None
    return unquote(urlparse(position.uri).path), int(position.line)


def servicers(monitor: Monitor):
    """The gRPC servicers (ResourceMonitor, Engine) that answer a program's SDK from `monitor`."""
    import grpc
    from google.protobuf import empty_pb2
    from pulumi.runtime.proto import engine_pb2, engine_pb2_grpc, provider_pb2, resource_pb2, resource_pb2_grpc

    recording = monitor.recording
    features = {"secrets", "resourceReferences", "aliasSpecs", "deletedWith", "replaceWith", "transforms",
                "invokeTransforms", "parameterization", "resourceHooks", "errorHooks"}
    feature_ids = [resource_pb2.RESOURCE_MONITOR_FEATURE_SECRETS,
                   resource_pb2.RESOURCE_MONITOR_FEATURE_RESOURCE_REFERENCES,
                   resource_pb2.RESOURCE_MONITOR_FEATURE_ALIAS_SPECS,
                   resource_pb2.RESOURCE_MONITOR_FEATURE_REPLACEMENT_TRIGGER,
                   resource_pb2.RESOURCE_MONITOR_FEATURE_DELETED_WITH,
                   resource_pb2.RESOURCE_MONITOR_FEATURE_REPLACE_WITH,
                   resource_pb2.RESOURCE_MONITOR_FEATURE_TRANSFORMS,
                   resource_pb2.RESOURCE_MONITOR_FEATURE_INVOKE_TRANSFORMS,
                   resource_pb2.RESOURCE_MONITOR_FEATURE_PARAMETERIZATION,
                   resource_pb2.RESOURCE_MONITOR_FEATURE_RESOURCE_HOOKS,
                   resource_pb2.RESOURCE_MONITOR_FEATURE_ERROR_HOOKS]

    def guarded(handler):
        """An engine-side failure ends the run: the program sees an error, the plan reports the failure."""

        def call(self, request, context):
            try:
                return handler(request)
            except Exception as exc:
                if recording.fatal is None:
                    recording.fatal = exc
                context.abort(grpc.StatusCode.UNKNOWN, str(exc))

        return call

    class ResourceMonitor(resource_pb2_grpc.ResourceMonitorServicer):
        def SupportsFeature(self, request, context):
            return resource_pb2.SupportsFeatureResponse(hasSupport=request.id in features)

        def GetDeploymentInfo(self, request, context):
            return resource_pb2.DeploymentInfo(supportedFeatures=feature_ids)

        # In a preview an unknown output is the SDK's unknown; in the update, and in any lookup's answer, the
        # program must receive a value it can carry (see model.UNKNOWABLE).
        @guarded
        def RegisterResource(request):
            urn, rid, state = monitor.register(request)
            shown = state if monitor.phase == PREVIEW else carried(state)
            return resource_pb2.RegisterResourceResponse(urn=urn, id=rid, object=struct(shown))

        @guarded
        def ReadResource(request):
            urn, state = monitor.read(request)
            return resource_pb2.ReadResourceResponse(urn=urn, properties=struct(carried(state)))

        @guarded
        def Invoke(request):
            return resource_pb2.ResourceInvokeResponse(**{"return": struct(carried(monitor.invoke(request)))})

        def Call(self, request, context):
            return provider_pb2.CallResponse()

        @guarded
        def RegisterResourceOutputs(request):
            monitor.register_outputs(request.urn, from_struct(request.outputs))
            return empty_pb2.Empty()

        def RegisterStackTransform(self, request, context):
            monitor.register_stack_transform(request)
            return empty_pb2.Empty()

        def RegisterStackInvokeTransform(self, request, context):
            monitor.register_invoke_transform(request)
            return empty_pb2.Empty()

        def RegisterResourceHook(self, request, context):
            return empty_pb2.Empty()

        def RegisterErrorHook(self, request, context):
            return empty_pb2.Empty()

        def RegisterPackage(self, request, context):
            ref = f"{request.name}-{short_hash(request.name, request.version)}"
            return resource_pb2.RegisterPackageResponse(ref=ref)

        def SignalAndWaitForShutdown(self, request, context):
            return empty_pb2.Empty()

    class Engine(engine_pb2_grpc.EngineServicer):
        def Log(self, request, context):
            # Errors and warnings are kept; the executor drops debug lines before they are sent (drop_debug_lines).
            if request.severity == engine_pb2.ERROR:
                recording.errors.append(request.message)
            elif request.severity == engine_pb2.WARNING:
                recording.warnings.append(request.message)
            return empty_pb2.Empty()

        def GetRootResource(self, request, context):
            return engine_pb2.GetRootResourceResponse(urn=recording.stack_urn or "")

        def SetRootResource(self, request, context):
            recording.stack_urn = request.urn
            return engine_pb2.SetRootResourceResponse()

        def StartDebugging(self, request, context):
            return empty_pb2.Empty()

        def RequirePulumiVersion(self, request, context):
            return engine_pb2.RequirePulumiVersionResponse()

    return ResourceMonitor(), Engine()

