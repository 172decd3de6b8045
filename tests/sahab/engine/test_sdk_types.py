"""The engine reads an output type's fields from the provider SDK's source: the right class, and all of it."""

from __future__ import annotations

import re
import sysconfig
import textwrap
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
