"""Chart fact sheets: what each chart version Sahab pins runs, read from the chart's own source at that version
(components/charts/<chart>-<version>.yaml): the images its templates, subcharts and operator pull by default, how
each template joins a reference, the flags and environment it passes to the binaries Sahab pins, the service
accounts its pods run as, and (`keys`) where the chart has each values key Sahab sets. Facts about the world, each
with the file and tag it comes from; Sahab's pins (components.artifacts) and values are checked against them, and
readiness reads a release's pulls through them.

A chart version without a sheet is an error that says what to read and where: a version bump starts there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

SHEETS = Path(__file__).resolve().parent / "charts"


class MissingFactSheet(LookupError):
    """No sheet for a pinned chart version: what to read, where, and where to write it."""

    def __init__(self, chart: str, version: str):
        self.chart, self.version = chart, version
        known = sorted(SHEETS.glob(f"{chart}-*.yaml"))
        where = ""
        if known:  # the repository the chart's earlier sheet was read from, and that sheet as the model
            source = _read(known[-1]).get("source") or {}
            where = (f" in {source.get('repository')} (at its tag for {version}; the sheet for "
                     f"{known[-1].stem.removeprefix(chart + '-')} was read at {source.get('tag')}, "
                     f"{source.get('path')})")
        super().__init__(
            f"no fact sheet for chart {chart} {version}: read the chart's own source at that version{where}: its "
            f"values.yaml, templates/_helpers.tpl and every template that names an image, its subcharts at the "
            f"versions its Chart.yaml pins, and for an operator the images it derives; then write "
            f"components/charts/{chart}-{version}.yaml like the sheets beside it (images, joins, the flags and "
            f"environment passed to each binary whose tag Sahab pins, the service accounts) and align the pins in "
            f"components/artifacts.py")


def _read(path: Path) -> dict[str, Any]:
    import yaml

    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    return doc if isinstance(doc, dict) else {}


@dataclass(frozen=True)
class ImageFact:
    """One image a chart runs by default, as its sheet records it."""

    image: str  # Sahab's catalog name (components.artifacts.CATALOG)
    repository: str
    tag: str  # the default tag, as pulled
    join: str  # components.image_refs.RULES
    values: tuple[str, ...] = ()  # dotted paths of the values that set it
    when: str | None = None  # dotted values path that must be true for anything to pull it
    when_default: bool = True  # the chart's default for `when` where the values leave it out
    pulled_tag: str | None = None  # when the puller derives the tag (the driver's OS suffix)
    mirrors: tuple[str, ...] = ()  # the same image at other repositories its publisher pushes it to

    def runs(self, values: Any) -> bool:
        """Whether the chart runs it with these values (its switch, else the chart's default for it)."""
        if self.when is None:
            return True
        switch = lookup(values, self.when)
        return self.when_default if switch is None else bool(switch)

    @property
    def reference(self) -> str:
        return f"{self.repository}:{self.tag}"


@dataclass(frozen=True)
class Sheet:
    chart: str
    version: str
    source: dict[str, Any]
    images: tuple[ImageFact, ...]
    binaries: dict[str, Any] = field(default_factory=dict)
    service_accounts: tuple[dict[str, Any], ...] = ()
    kind: str = "chart"
    keys: dict[str, Any] = field(default_factory=dict)  # dotted values key: where the chart has it and what reads it

    def image(self, name: str) -> ImageFact | None:
        return next((i for i in self.images if i.image == name), None)

    def binary(self, name: str) -> dict[str, Any]:
        return self.binaries.get(name) or {}


def sheet_path(chart: str, version: str) -> Path:
    return SHEETS / f"{chart}-{version}.yaml"


@cache
def sheet(chart: str, version: str) -> Sheet:
    """The fact sheet of a chart version; MissingFactSheet when none was written."""
    path = sheet_path(chart, version)
    if not path.is_file():
        raise MissingFactSheet(chart, version)
    doc = _read(path)
    if doc.get("chart") != chart or str(doc.get("version")) != version:
        raise ValueError(f"{path.name}: says chart {doc.get('chart')} {doc.get('version')}")
    images = tuple(ImageFact(i["image"], i["repository"], str(i["tag"]), i["join"], tuple(i.get("values") or ()),
                             i.get("when"), i.get("when_default", True), i.get("pulled_tag"),
                             tuple(i.get("mirrors") or ()))
                   for i in doc.get("images") or ())
    return Sheet(chart, version, doc["source"], images, doc.get("binaries") or {},
                 tuple(doc.get("service_accounts") or ()), doc.get("kind", "chart"), doc.get("keys") or {})


def sheets() -> list[Sheet]:
    """Every sheet in the repository."""
    found = []
    for path in sorted(SHEETS.glob("*.yaml")):
        doc = _read(path)
        found.append(sheet(str(doc.get("chart")), str(doc.get("version"))))
    return found


def lookup(values: Any, dotted: str) -> Any:
    """`values` at a dotted path (`prometheusOperator.image`); None where a step is missing."""
    for key in dotted.split("."):
        if not isinstance(values, dict) or key not in values:
            return None
        values = values[key]
    return values
