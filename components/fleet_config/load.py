"""Reading `sahab:fleet`: parse and validate it, turning pydantic's errors into ConfigErrors at config paths.

This is the only module that reads `pulumi.Config`."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from components import validation
from components.errors import ConfigError
from components.fleet_config.resolve import resolve
from components.fleet_config.root import FleetConfig
from components.fleet_config.types import ROOT, config_path


def _allowed_keys(loc: tuple[Any, ...]) -> list[str]:
    """Field names of the model that holds the unknown key at `loc` (for the error message)."""
    model: Any = FleetConfig
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        field = model.model_fields.get(part)
        if field is None:
            return []
        model = _model_in(field.annotation)
        if model is None:
            return []
    return list(model.model_fields)


def _model_in(annotation: Any) -> Any:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()) or ():
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def _from_validation_error(err: ValidationError) -> ConfigError:
    first = err.errors(include_url=False)[0]
    loc = tuple(first["loc"])
    if first["type"] == "extra_forbidden":
        allowed = ", ".join(_allowed_keys(loc))
        return ConfigError(config_path(loc), f"unknown key; allowed: {allowed}")
    if first["type"] == "missing":
        return ConfigError(config_path(loc), "required but missing")
    if first["type"] == "value_error":  # Sahab's own checks show the value themselves
        return ConfigError(config_path(loc), first["msg"].removeprefix("Value error, "))
    return ConfigError(config_path(loc), f"{first['msg']} (got {validation.shown(first.get('input'))})")


def parse_fleet(data: Any) -> FleetConfig:
    """Validate a `sahab:fleet` value; raises ConfigError naming the config path of the first problem."""
    if not isinstance(data, Mapping):
        raise ConfigError(ROOT, f"must be a mapping of fleet settings, got {type(data).__name__}")
    try:
        fleet = FleetConfig.model_validate(dict(data))
    except ValidationError as err:
        raise _from_validation_error(err) from None
    return resolve(fleet)



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

