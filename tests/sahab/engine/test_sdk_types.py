"""The engine reads an output type's fields from the provider SDK's source: the right class, and all of it."""

from __future__ import annotations

import gc
import re
import sysconfig
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from sahab.engine.sdk_types import Ref, SdkTypes

OUTPUTS = textwrap.dedent('''\
    class Cluster(dict):
        @property
        @pulumi.getter(name="clusterName")
        def cluster_name(self) -> builtins.str:
            ...
    # a comment at the left margin does not end a class

        @property
        @pulumi.getter
        def size(self) -> Optional[builtins.int]:
            ...


    @pulumi.output_type
    class ClusterAddon(dict):
        @property
        @pulumi.getter
        def enabled(self) -> builtins.bool:
            ...


    @pulumi.output_type
    class Cluster(dict):
        @property
        @pulumi.getter
        def shadowed(self) -> builtins.str:
            ...
    ''')


def test_a_class_is_read_whole_and_never_confused_with_one_its_name_begins(tmp_path):
    file = tmp_path / "pulumi_fake" / "outputs.py"
    file.parent.mkdir()
    file.write_text(OUTPUTS)
    types = SdkTypes((tmp_path,))
    cluster = types.fields(Ref(file, "Cluster"))  # the file's first line; the first class of a name wins
    assert {name: (f.type, f.optional) for name, f in cluster.items()} == {
        "clusterName": ("str", False), "size": ("int", True)}
    assert set(types.fields(Ref(file, "ClusterAddon"))) == {"enabled"}  # ends before the next decorator
    assert types.fields(Ref(file, "Clust")) is None and types.fields(Ref(file, "Missing")) is None


def test_every_output_type_of_the_largest_sdk_file_is_found():
    """The Azure SDK's network/outputs.py, megabytes of generated classes: each one is found and has getters."""
    site = Path(sysconfig.get_paths()["purelib"])
    file = site / "pulumi_azure_native" / "network" / "outputs.py"
    names = re.findall(r"^class (\w+)\(dict\):", file.read_text(encoding="utf-8"), re.M)
    assert len(names) > 300
    types = SdkTypes((site,))
    empty = [name for name in names if not types.fields(Ref(file, name))]
    assert empty == []


def test_types_are_read_on_many_threads_at_once():
    """The monitor reads types on its thread pool. On CPython 3.11 two threads parsing at once (one switched out
    mid-parse by a garbage collection, forced here) failed a plan with "AST constructor recursion depth mismatch"."""
    site = Path(sysconfig.get_paths()["purelib"])
    file = site / "pulumi_azure_native" / "network" / "outputs.py"
    names = re.findall(r"^class (\w+)\(dict\):", file.read_text(encoding="utf-8"), re.M)[:150]
    def switch(phase, info):
        time.sleep(0)

    threshold = gc.get_threshold()
    gc.callbacks.append(switch)  # the collector's own list: a replaced attribute would never be called
    gc.set_threshold(5)
    try:
        with ThreadPoolExecutor(max_workers=4) as pool:
            read = list(pool.map(lambda _: [SdkTypes((site,)).fields(Ref(file, n)) for n in names], range(4)))
    finally:
        gc.set_threshold(*threshold)
        gc.callbacks.remove(switch)
    assert all(fields for run in read for fields in run) and read[0] == read[1] == read[2] == read[3]
