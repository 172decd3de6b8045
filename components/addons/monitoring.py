"""kube-prometheus-stack with Sahab's rules and dashboards, where the fleet monitors
(components.kubernetes.monitoring)."""

from __future__ import annotations

from sahab.components.addons import Addon
from sahab.components.artifacts import components_of

ADDON = Addon("monitoring", wanted=lambda target: target.monitoring,
              artifacts=lambda fleet, kind, clusters: components_of("monitoring"))
