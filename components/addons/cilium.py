"""Cilium: the pod network of clusters that bring none of their own (kubeadm's), installed by Fleet before the
platform (components.kubernetes.cilium)."""

from __future__ import annotations

from sahab.components.addons import Addon, of_kind
from sahab.components.artifacts import components_of

NAME = "cilium"
ADDON = Addon(NAME, wanted=of_kind(NAME), artifacts=lambda fleet, kind, clusters: components_of(NAME))
