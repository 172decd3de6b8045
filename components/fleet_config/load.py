"""Reading `sahab:fleet`: parse and validate it, turning pydantic's errors into ConfigErrors at config paths.

This is the only module that reads `pulumi.Config`."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, get_args

from pydantic import BaseModel, ValidationError
from sahab.components import validation
from sahab.components.errors import ConfigError, ConfigErrors
from sahab.components.fleet_config import resolve, rules
from sahab.components.fleet_config.root import FleetConfig
from sahab.components.fleet_config.types import ROOT, config_path


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The models an annotation holds: one, or the members of a union such as Cluster."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in getattr(annotation, "__args__", ()) or () for m in _models_in(arg)]


def _tag(model: type[BaseModel]) -> str | None:
    """A union member's `kind` value (the tag pydantic puts in an error's location)."""
    field = model.model_fields.get("kind")
    values = get_args(field.annotation) if field else ()
    return values[0] if len(values) == 1 else None


Models = list[type[BaseModel]]


def _walk(loc: tuple[Any, ...]) -> tuple[tuple[Any, ...], Models, dict[str, type[BaseModel]], str | None]:
    """An error location as the user wrote it (without the union tags pydantic adds), the models that may hold
    its last key, the members of the last union it passed (by kind) and the kind it took there."""
    models: Models = [FleetConfig]
    parts: list[Any] = []
    members: dict[str, type[BaseModel]] = {}
    kind = None
    for part in loc:
        if isinstance(part, int):
            parts.append(part)
            continue
        tagged = {_tag(m): m for m in models} if len(models) > 1 else {}
        if part in tagged:
            models, members, kind = [tagged[part]], tagged, part
            continue
        parts.append(part)
        field = models[0].model_fields.get(part) if len(models) == 1 else None
        models = _models_in(field.annotation) if field else []
    return tuple(parts), models, members, kind


def _problem(error: Any) -> ConfigError:
    """One of pydantic's errors as a ConfigError at the config path the user wrote."""
    loc, _, _, _ = _walk(tuple(error["loc"]))
    path = config_path(loc)
    if error["type"] == "extra_forbidden":
        _, holders, members, kind = _walk(tuple(error["loc"])[:-1])
        allowed = ", ".join(holders[0].model_fields) if len(holders) == 1 else ""
        key = loc[-1]
        owners = [k for k, m in members.items() if k != kind and key in m.model_fields]
        where = f" for a cluster of kind {kind}" if kind else ""
        where += f" ({key} is a setting of kind {' and '.join(owners)})" if owners else ""
        return ConfigError(path, f"unknown key{where}; allowed: {allowed}")
    if error["type"] in ("missing", "union_tag_not_found"):
        return ConfigError(f"{path}.kind" if error["type"] == "union_tag_not_found" else path, "required but missing")
    if error["type"] == "union_tag_invalid":
        tags = ", ".join(error["ctx"]["expected_tags"].replace("'", "").split(", "))
        return ConfigError(f"{path}.kind", f"{validation.shown(error['ctx']['tag'])} is not allowed; allowed: {tags}")
    if error["type"] == "value_error":  # Sahab's own checks show the value themselves
        return ConfigError(path, error["msg"].removeprefix("Value error, "))
    return ConfigError(path, f"{error['msg']} (got {validation.shown(error.get('input'))})")


def parse_fleet(data: Any) -> FleetConfig:
    """Validate a `sahab:fleet` value; raises ConfigError naming the config path of every problem found (one
    ConfigError, or ConfigErrors holding several)."""
    if not isinstance(data, Mapping):
        raise ConfigError(ROOT, f"must be a mapping of fleet settings, got {type(data).__name__}")
    try:
        fleet = FleetConfig.model_validate(dict(data))
    except ValidationError as err:
        raise ConfigErrors.of(_unique([_problem(e) for e in err.errors(include_url=False)])) from None
    _refuse(rules.fleet(fleet))
    fleet = resolve.defaults(fleet)
    _refuse(rules.zones(fleet))
    fleet = resolve.zones(fleet)
    _refuse(rules.placement(fleet))
    return fleet


def _refuse(problems: list[ConfigError]) -> None:
    if problems:
        raise ConfigErrors.of(_unique(problems))


def _unique(problems: list[ConfigError]) -> list[ConfigError]:
    """Each problem once (pydantic may report one value against several of a field's types)."""
    seen: dict[tuple[str, str], ConfigError] = {}
    for problem in problems:
        seen.setdefault((problem.path, problem.message), problem)
    return list(seen.values())


def load_fleet_config() -> FleetConfig:
    """Read and validate `sahab:fleet` from the running stack's config."""
    import pulumi

    raw = pulumi.Config("sahab").get("fleet")
    if raw is None:
        raise ConfigError(ROOT, "missing; every stack sets its whole fleet under this key")
    try:  # structured config arrives as JSON; anything else is a plain value, refused by parse_fleet
        value = json.loads(raw)
    except ValueError:
        value = raw
    return parse_fleet(value)


def secret_config(name: str):
    """A secret stack setting (`sahab:<name>`) as a Pulumi secret Output, or None when the stack lacks it."""
    import pulumi

    return pulumi.Config("sahab").get_secret(name)

