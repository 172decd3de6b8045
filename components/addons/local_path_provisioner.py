"""Rancher's local-path provisioner behind the encrypted class, where Sahab provisions the kind's volumes itself
(KindSpec.storage_class.provisioner_installed; components.kubernetes.storage installs it)."""

from __future__ import annotations

from sahab.components.addons import Addon
from sahab.components.artifacts import components_of

ADDON = Addon("local-path-provisioner", wanted=lambda target: target.kind.storage_class.provisioner_installed,
              artifacts=lambda fleet, kind, clusters: components_of("storage"))
