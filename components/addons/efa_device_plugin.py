"""The AWS EFA device plugin: on the kinds that name it, whether or not a pool has EFA yet (a burst stack's may
come later; it runs on no node until one does). components.kubernetes.efa_device_plugin."""

from __future__ import annotations

from sahab.components.addons import Addon, of_kind
from sahab.components.artifacts import components_of

NAME = "efa-device-plugin"
ADDON = Addon(NAME, wanted=of_kind(NAME), artifacts=lambda fleet, kind, clusters: components_of(NAME))
