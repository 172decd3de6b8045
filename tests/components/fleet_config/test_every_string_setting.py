"""Every string setting of `sahab:fleet`, found by walking the schema's pydantic models (not listed by hand), fed
a Jinja expression, other template syntaxes, a newline and a YAML document: each is refused with a ConfigError
naming that setting, which the CLI turns into exit 2 (shown through `sahab check` for the issue's proofs).

A new string field fails `test_the_base_fleets_cover_every_string_field` until the base fleet below gives it a
value, so no field escapes the sweep.
"""

from __future__ import annotations

import copy
import json
import types
import typing
from typing import Annotated, Any, Literal, get_args, get_origin

import pytest
import yaml
from pydantic import BaseModel
from sahab.components.errors import ConfigError
from sahab.components.fleet import credential_less_kubeconfig
from sahab.components.fleet_config import FleetConfig, config_path, parse_fleet

from sahab.cli import main
from tests.fleets import ROOT

JINJA = "{{ lookup('pipe', 'id') }}"
PAYLOADS = {
    "jinja": JINJA,
    "jinja statement": "{% for x in range(9) %}{% endfor %}",
    "jinja comment": "{# x #}",
    "go template": "{{ .Values.token }}",
    "actions expression": "${{ secrets.PULUMI_ACCESS_TOKEN }}",
    "shell substitution": "$(id)",
    "backticks": "`id`",
    "variable": "${HOME}",
    "newline": "x\ny",
    "carriage return": "x\r\ny",
    "line separator": "x\u2028y",
    "yaml document": "a: b\n---\nkind: Secret",
    "yaml flow mapping": "{a: b}",
    "yaml tag": "!!python/object/apply:os.system ['id']",
    "ipv6 zone": "%{{ lookup('pipe', 'id') }}",
    # A whole IPv6 address with a zone id: an address field whose own value is IPv4 would never see one otherwise.
    "ipv6 address with a zone": "fe80::1%{{ lookup('pipe', 'id') }}",
}


HOST_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGr1"


def full_fleet() -> dict:
    """One fleet that sets every model of the schema, and every string field of each, at least once."""
    return {
        "name": "sahab", "environment": "prod",
        "residency": {"allowed_regions": ["me-central-1", "uaenorth", "uaecentral"], "allowed_countries": ["AE"]},
        "clouds": {"aws": {"region": "me-central-1", "account_id": "111122223333", "vpc_cidr": "10.40.0.0/16",
                           "hybrid_hub": "transit-gateway",
                           "admin_principals": ["arn:aws:iam::111122223333:role/platform-admins"]},
                   "azure": {"location": "uaenorth", "vnet_cidr": "10.50.0.0/16",
                             "subscription_id": "00000000-0000-0000-0000-000000000000",
                             "admin_group_ids": ["11111111-2222-3333-4444-555555555555"], "kubelogin": "azurecli",
                             "gpu_maintenance": {"day": "Friday"}}},
        "registries": {
            "eks": {"host": "111122223333.dkr.ecr.me-central-1.amazonaws.com",
                    "upstream_credentials": {"docker.io": "dockerHubPull"}},
            "aks": {"host": "sahabprod.azurecr.io", "location": "uaenorth",
                    "upstream_credentials": {"docker.io": "dockerHubPull"}},
            "onprem": {"host": "registry.sahab.example.ae:5000"}},
        "sites": [{
            "name": "auh", "country": "AE", "emirate": "abu-dhabi", "city": "Abu Dhabi", "ssh_user": "sahab",
            "ssh_private_key_secret": "onpremSshPrivateKey",
            "hosts": [{"name": f"cp{i}", "address": f"10.0.0.{i}", "port": 22, "cpus": 16, "memory_gib": 64,
                       "ssh_host_keys": [HOST_KEY]} for i in (1, 2, 3)]
                     + [{"name": "gpu1", "address": "10.0.0.10", "cpus": 64, "memory_gib": 512,
                         "data_disk": "/dev/disk/by-id/nvme-gpu1-data", "ssh_host_keys": [HOST_KEY],
                         "gpus": {"accelerator": "h100", "count": 8}}],
            "networks": ["10.0.0.0/16"], "node_networks": ["10.0.0.0/24"], "dns": {"software": "bind"},
            "gateway": {"public_ip": "198.51.100.30", "terminates_on": "host", "ipsec_backend": "kernel",
                        "host": {"name": "vpn1", "address": "10.0.0.2"}},
            "links": [{"cloud": "aws", "type": "direct-connect",
                       "direct_connect_gateway_id": "0a1b2c3d-4e5f-6789-abcd-ef0123456789"},
                      {"cloud": "azure", "type": "expressroute", "routing": "bgp",
                       "expressroute_circuit_id": "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/"
                                                  "rg/providers/Microsoft.Network/expressRouteCircuits/auh",
                       "authorization_key_secret": "auhCircuitKey"}],
            "object_store": {"endpoint": "https://s3.auh.example.ae", "addresses": ["10.10.5.0/28"],
                             "bucket": "sahab-checkpoints", "region": "auh-1",
                             "team_credentials": {"research": {"access_key_id_secret": "auhResearchKeyId",
                                                               "secret_access_key_secret": "auhResearchKey"}}},
        }],
        "clusters": [
            {"name": "onprem", "kind": "onprem", "site": "auh", "control_plane_hosts": ["cp1", "cp2", "cp3"],
             "control_plane_vip": "10.0.0.100", "kubernetes_version": "1.34"},
            {"name": "eks", "kind": "eks", "location": "me-central-1"},
            {"name": "aks", "kind": "aks", "public_endpoint": True, "public_endpoint_cidrs": ["203.0.113.0/24"]},
            {"name": "shared", "kind": "eks", "stack_reference": "organization/sahab/prod"},
        ],
        "node_pools": [
            {"name": "gpu", "cluster": "onprem", "accelerator": "h100", "hosts": ["gpu1"], "mig_strategy": "single",
             "gpu_driver": "preinstalled",
             "labels": {"example.com/team": "vision"},
             "extra_taints": [{"key": "example.com/dedicated", "value": "vision", "effect": "NoSchedule"}]},
            {"name": "eks-gpu", "cluster": "eks", "accelerator": "a10g", "instance_type": "g5.2xlarge",
             "min_size": 0, "max_size": 4, "zones": ["mec1-az1"]},
            {"name": "aks-cpu", "cluster": "aks", "min_size": 1, "max_size": 3},
        ],
        "storage": {"buckets": [{"name": "data", "cloud": "aws", "replicate_to": "me-central-1", "purpose": "datasets"},
                                {"name": "azdata", "cloud": "azure"}]},
        "monitoring": {"retention": "15d", "alerting": {
            "default_receiver": "ops", "group_by": ["alertname", "cluster"], "group_wait": "30s",
            "group_interval": "5m", "repeat_interval": "4h",
            "receivers": [
                {"name": "ops", "type": "email", "severities": ["critical"], "to": ["ops@example.ae"],
                 "from_address": "alerts@example.ae", "smarthost": "smtp.example.ae:587", "username": "alerts",
                 "password_secret": "smtpPassword"},
                {"name": "hook", "type": "webhook", "url": "https://hooks.example.ae/sahab",
                 "bearer_token_secret": "hookToken"},
                {"name": "chat", "type": "slack", "url_secret": "slackUrl", "channel": "#gpu-alerts"},
                {"name": "teams", "type": "msteams", "url_secret": "teamsUrl"}]}},
        "workload": {"image": "registry.sahab.example.ae:5000/sahab/workload:0.1.0", "team": "research",
                     "teams": [{"name": "research", "pod_security": "restricted", "priority": "critical"},
                               {"name": "ml-training"}], "model": "tiny"},
        "burst": {"manager": "onprem", "workers": ["eks"], "nodes_per_job": 2},
        "deployer": {"site": "auh", "cidrs": ["10.0.0.0/24"]},
    }


# ---- the walk -------------------------------------------------------------------------------------------------


def _strip(annotation: Any) -> Any:
    """The annotation without Annotated[...] and without None in a union."""
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    if get_origin(annotation) in (typing.Union, types.UnionType):
        rest = [a for a in get_args(annotation) if a is not type(None)]
        return _strip(rest[0]) if len(rest) == 1 else annotation
    return annotation


def _is_text(annotation: Any) -> bool:
    annotation = _strip(annotation)
    return annotation is str or (get_origin(annotation) is Literal and all(isinstance(a, str) for a in get_args(
        annotation)))


def _model(annotation: Any, data: Any = None) -> type[BaseModel] | None:
    """The model an annotation holds; of a union told apart by `kind` (clusters), the member `data` is."""
    annotation = _strip(annotation)
    if get_origin(annotation) in (typing.Union, types.UnionType) and isinstance(data, dict):
        return next((m for m in _members(annotation) if data.get("kind") in get_args(
            m.model_fields["kind"].annotation)), None)
    return annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None


def _owner(model: type[BaseModel], name: str) -> str:
    """The model that declares a field (the kinds of cluster share theirs through base models): one sweep each."""
    return next(m.__name__ for m in reversed(model.__mro__) if name in getattr(m, "__annotations__", {}))


def _members(annotation: Any) -> list[type[BaseModel]]:
    """The models an annotation holds: itself, or every member of a union of models."""
    annotation = _strip(annotation)
    if get_origin(annotation) in (typing.Union, types.UnionType):
        return [m for arg in get_args(annotation) for m in _members(arg)]
    return [annotation] if isinstance(annotation, type) and issubclass(annotation, BaseModel) else []


def shapes(annotation: Any) -> list[str]:
    """How a field holds text: itself, items of a sequence, keys or values of a mapping."""
    annotation = _strip(annotation)
    if _is_text(annotation):
        return ["text"]
    origin, args = get_origin(annotation), get_args(annotation)
    if origin in (tuple, list) and args and _is_text(args[0]):
        return ["item"]
    if origin is dict:
        return (["key"] if _is_text(args[0]) else []) + (["value"] if _is_text(args[1]) else [])
    return []


def string_fields(model: type[BaseModel] = FleetConfig, seen: set | None = None) -> set[tuple[str, str, str]]:
    """(model name, field name, shape) of every text-holding field reachable from `model`."""
    seen = set() if seen is None else seen
    if model in seen:
        return set()
    seen.add(model)
    found = set()
    for name, info in model.model_fields.items():
        found |= {(_owner(model, name), name, shape) for shape in shapes(info.annotation)}
        annotation = _strip(info.annotation)
        for inner in (annotation, *get_args(annotation)):
            for member in _members(inner):
                found |= string_fields(member, seen)
    return found


def instances(data: Any, model: type[BaseModel], loc: tuple = ()) -> list[tuple[tuple, type[BaseModel], dict]]:
    """Every place in the fleet data that holds an instance of a model: (location, model, its dict)."""
    found = [(loc, model, data)]
    for name, info in model.model_fields.items():
        if name not in data:
            continue
        annotation, value = _strip(info.annotation), data[name]
        inner = _model(annotation)
        if inner and isinstance(value, dict):
            found += instances(value, inner, (*loc, name))
            continue
        args = get_args(annotation)
        if get_origin(annotation) in (tuple, list) and args and _members(args[0]):
            for i, item in enumerate(value):
                if _model(args[0], item):
                    found += instances(item, _model(args[0], item), (*loc, name, i))
        if get_origin(annotation) is dict and len(args) == 2 and _model(args[1]):
            for key, item in value.items():
                found += instances(item, _model(args[1]), (*loc, name, key))
    return found


def placements(data: dict) -> dict[tuple[str, str, str], tuple]:
    """For each text field, where to put a hostile value: an instance that sets the field, if any does."""
    chosen: dict[tuple[str, str, str], tuple] = {}
    for loc, model, holder in instances(data, FleetConfig):
        for name, info in model.model_fields.items():
            for shape in shapes(info.annotation):
                key = (_owner(model, name), name, shape)
                if name in holder and holder[name] not in (None, [], {}) and key not in chosen:
                    chosen[key] = (*loc, name)
    return chosen


def with_value(data: dict, where: tuple, shape: str, value: str) -> tuple[dict, str]:
    """A copy of `data` with `value` at `where`, and the config path the error must name."""
    data = copy.deepcopy(data)
    parent = data
    for part in where[:-1]:
        parent = parent[part]
    name = where[-1]
    if shape == "text":
        parent[name] = value
    elif shape == "item":
        parent[name] = [value, *list(parent[name])[1:]]
    elif shape == "value":
        first = next(iter(parent[name]))
        parent[name] = {**parent[name], first: value}
    else:  # a key
        first = next(iter(parent[name]))
        items = dict(parent[name])
        parent[name] = {value: items.pop(first), **items}
    return data, config_path(where)


# ---- the tests ----------------------------------------------------------------------------------------------


def test_the_base_fleet_is_valid():
    parse_fleet(full_fleet())


def test_the_base_fleets_cover_every_string_field():
    covered = set(placements(full_fleet()))
    missing = sorted(string_fields() - covered)
    assert not missing, f"give these fields a value in full_fleet() so the sweep reaches them: {missing}"
    assert len(covered) > 60  # the walk found the schema, not a handful of fields


FIELDS = sorted(string_fields())


@pytest.mark.parametrize("field", FIELDS, ids=[f"{m}.{n}[{shape}]" for m, n, shape in FIELDS])
def test_a_hostile_string_in_any_field_is_refused_naming_it(field):
    """Each payload alone, and after the field's own valid value (`10.0.0.1%{{ ... }}`, `research\ny`)."""
    base = full_fleet()
    where = placements(base)[field]
    current = base
    for part in where:
        current = current[part]
    valid = current if field[2] == "text" else next(iter(current.values() if field[2] == "value" else current))
    accepted = []
    for kind, payload in PAYLOADS.items():
        for value in (payload, f"{valid}{payload}"):
            data, path = with_value(base, where, field[2], value)
            try:
                parse_fleet(data)
            except ConfigError as refused:
                assert refused.path.startswith(path), (value, refused.path, path)
                assert not any(c in str(refused) for c in "\n\r\u2028"), str(refused)
                continue
            accepted.append((kind, value))
    assert not accepted, f"{config_path(where)} accepted {accepted}"


# ---- through the CLI, and where values land -------------------------------------------------------------------


def _program(tmp_path, fleet: dict):
    import shutil

    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    (tmp_path / "stacks").mkdir()
    shutil.copy(ROOT / "stacks" / "__main__.py", tmp_path / "stacks" / "__main__.py")
    doc = yaml.safe_load((ROOT / "stacks" / "Pulumi.dev.yaml").read_text())
    doc["config"]["sahab:fleet"] = fleet
    (tmp_path / "stacks" / "Pulumi.dev.yaml").write_text(yaml.safe_dump(doc))
    return tmp_path


@pytest.mark.parametrize(("where", "value"), [
    (("sites", 0, "hosts", 0, "address"), "fe80::1%{{ lookup('pipe', 'id') }}"),  # the proof
    (("clusters", 0, "control_plane_vip"), "fe80::1%{{ lookup('pipe', 'id') }}"),
    (("sites", 0, "hosts", 0, "address"), "10.0.0.1\n---\nkind: Secret"),
])
def test_the_check_refuses_a_hostile_address_at_exit_2_naming_it(tmp_path, capsys, where, value):
    fleet = yaml.safe_load((ROOT / "stacks" / "Pulumi.dev.yaml").read_text())["config"]["sahab:fleet"]
    fleet["clusters"] = [c if c.get("kind") != "onprem" else {**c, "control_plane_vip": "10.20.0.200"}
                         for c in fleet["clusters"]]
    onprem = next(i for i, c in enumerate(fleet["clusters"]) if c["kind"] == "onprem")
    where = where if where[0] != "clusters" else ("clusters", onprem, *where[2:])
    data, path = with_value(fleet, where, "text", value)
    code = main(["check", "--stack", "dev", "--program", str(_program(tmp_path, data)), "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    (line,) = err.strip().splitlines()
    assert line.startswith(f"error: {path}: ") and "Traceback" not in err


@pytest.mark.parametrize("name", ["onprem", "a-b"])
@pytest.mark.parametrize("endpoint", ["10.0.0.1:6443", "[fe80::1]:6443", "x\n  token: stolen", JINJA + ":1"])
def test_the_credential_less_kubeconfig_carries_its_values_literally(name, endpoint):
    doc = yaml.safe_load(credential_less_kubeconfig(name, endpoint))
    assert doc["clusters"] == [{"name": name, "cluster": {"server": f"https://{endpoint}"}}]
    assert doc["users"] == [{"name": name, "user": {}}]
    assert json.dumps(doc).count("token") == (1 if "token" in endpoint else 0)
