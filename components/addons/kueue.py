"""Kueue: the queues every cluster's training Jobs wait in (components.kubernetes.kueue)."""

from __future__ import annotations

from sahab.components.addons import Addon
from sahab.components.artifacts import components_of

ADDON = Addon("kueue", wanted=lambda target: True, artifacts=lambda fleet, kind, clusters: components_of("kueue"))
