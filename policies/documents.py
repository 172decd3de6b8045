"""Destinations inside a document a resource takes as text: a Step Functions state machine's definition (Amazon
States Language) and an OpenSearch Ingestion pipeline's configuration (Data Prepper YAML). The egress model reads
typed inputs only; what these documents name is where the service sends data, so it is read here, by the
document's own grammar.

Each destination is `(path, kind, value, bucket)`, the path going into the document (`definition.States.Post.Parameters.
ApiEndpoint`). A value chosen at run time (a JSONPath `Field.$`, a JSONata `{% ... %}` expression) is RUN_TIME:
nothing in the program shows where it goes. A value unknown until the update runs (a document, or a value of a
map input, built from outputs) is UNKNOWN, placed by the resources of the program its input comes from.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from .core import UNKNOWN, is_unknown
from .places import _unwrap


class _RunTime:
    def __repr__(self) -> str:
        return "<chosen at run time>"


RUN_TIME = _RunTime()

# A free-form value (a connector's setting, a job's argument) that is shaped as a reference: a URL of any scheme, a
# JDBC URL or an ARN; `python`, `true`, `pyarrow==14.0.1` are not.
REFERENCE_SHAPE = re.compile(r"^\s*(?:jdbc:)?(?:[a-z][a-z0-9+.-]*://|arn:)", re.I)

Found = Iterator[tuple[str, str, Any, bool]]  # (path, kind, value, names an S3 bucket)

# Step Functions service integrations that send a task's data somewhere: an HTTP task posts to `ApiEndpoint`;
# an S3 call other than a read or a delete writes into `Bucket` (the SDK integration and the optimised one, and a
# Distributed Map's `ResultWriter`).
_HTTP_TASK = re.compile(r"^arn:aws[\w-]*:states:::http:invoke\b")
_S3_TASK = re.compile(r"^arn:aws[\w-]*:states:::(?:aws-sdk:)?s3:(\w+)")
_S3_READS = ("get", "list", "head", "delete", "restore", "select")


def _task_fields(resource: str) -> list[tuple[str, str]]:
    if _HTTP_TASK.match(resource):
        return [("ApiEndpoint", "webhook")]
    s3 = _S3_TASK.match(resource)
    if s3 and not s3.group(1).lower().startswith(_S3_READS):
        return [("Bucket", "export")]
    return []


def _dynamic(value: Any) -> bool:
    return isinstance(value, str) and value.strip().startswith("{%")


def _state_machine(doc: Any, path: str) -> Found:
    if isinstance(doc, dict):
        resource = doc.get("Resource")
        if isinstance(resource, str):
            for block in ("Parameters", "Arguments"):
                args = doc.get(block)
                if not isinstance(args, dict):
                    continue
                for field, kind in _task_fields(resource):
                    if f"{field}.$" in args:
                        yield f"{path}.{block}.{field}.$", kind, RUN_TIME, field == "Bucket"
                    elif field in args:
                        value = args[field]
                        yield (f"{path}.{block}.{field}", kind, RUN_TIME if _dynamic(value) else value,
                               field == "Bucket")
        for key, child in doc.items():
            yield from _state_machine(child, f"{path}.{key}")
    elif isinstance(doc, list):
        for i, child in enumerate(doc):
            yield from _state_machine(child, f"{path}[{i}]")


# Data Prepper sinks: the fields of a sink (or of its dead-letter queue) that name where records are written.
_SINK_BUCKET_KEYS = {"bucket", "bucket_name"}
_SINK_HOST_KEYS = {"hosts", "host", "url", "uri", "endpoint", "endpoint_url"}
_INTERNAL_SINKS = {"pipeline", "stdout"}  # another sub-pipeline of the same pipeline; the pipeline's own log


def _sink_fields(config: Any, path: str) -> Found:
    if isinstance(config, dict):
        for key, value in config.items():
            where = f"{path}.{key}"
            if key in _SINK_BUCKET_KEYS and isinstance(value, str):
                yield where, "export", value, True
            elif key in _SINK_HOST_KEYS:
                for i, host in enumerate(value if isinstance(value, list) else [value]):
                    if isinstance(host, str):
                        yield (f"{where}[{i}]" if isinstance(value, list) else where), "delivery", host, False
            else:
                yield from _sink_fields(value, where)
    elif isinstance(config, list):
        for i, child in enumerate(config):
            yield from _sink_fields(child, f"{path}[{i}]")


def _pipeline(doc: Any, path: str) -> Found:
    if not isinstance(doc, dict):
        return
    for name, pipeline in doc.items():
        sinks = pipeline.get("sink") if isinstance(pipeline, dict) else None
        for i, sink in enumerate(sinks if isinstance(sinks, list) else []):
            for kind, config in (sink.items() if isinstance(sink, dict) else ()):
                if kind not in _INTERNAL_SINKS:
                    yield from _sink_fields(config, f"{path}.{name}.sink[{i}].{kind}")


# MSK Connect: a sink connector copies topics out of the cluster into what its configuration names; a source
# connector copies what its configuration names into the Kafka cluster it is given. The plugin's own keys are
# free-form, so a sink's values are read where they are shaped as a reference (REFERENCE_SHAPE) or where the key
# names a bucket. A class that says neither is both (fails closed).
_BUCKET_KEY = re.compile(r"(?:^|[._-])bucket(?:[._-]?name)?$", re.I)
_CONNECTOR_CONFIG = "connectorConfiguration"
_BOOTSTRAP = ("kafkaCluster", "apacheKafkaCluster", "bootstrapServers")


def _connector(props: dict) -> Found:
    config = _unwrap(props.get(_CONNECTOR_CONFIG))
    if is_unknown(config):
        yield _CONNECTOR_CONFIG, "delivery", UNKNOWN, False
        return
    if not isinstance(config, dict):
        return
    cls = config.get("connector.class")
    words = set(re.findall(r"sink|source", cls.lower())) if isinstance(cls, str) else set()
    if words != {"source"}:
        for key, value in config.items():
            where = f"{_CONNECTOR_CONFIG}.{key}"
            bucket = bool(_BUCKET_KEY.search(key))
            if is_unknown(value):
                yield where, "delivery", UNKNOWN, bucket
            elif isinstance(value, str) and (REFERENCE_SHAPE.match(value) or bucket):
                yield where, "delivery", value, bucket
    if words != {"sink"}:
        cluster: Any = props
        for step in _BOOTSTRAP:
            cluster = _unwrap(cluster.get(step)) if isinstance(cluster, dict) else None
        if cluster is not None:
            yield ".".join(_BOOTSTRAP), "delivery", UNKNOWN if is_unknown(cluster) else cluster, False


# A DMS endpoint's extra connection attributes (`bucketName=...;bucketFolder=...`) name the target as its settings
# blocks do; a source endpoint's name where data is read from.
_DMS_ATTRIBUTES = {"bucketname": True, "servername": False, "broker": False, "endpointuri": False,
                   "streamarn": False}


def _dms_endpoint(props: dict) -> Found:
    end = _unwrap(props.get("endpointType"))
    if isinstance(end, str) and end.lower() == "source":
        return
    text = _unwrap(props.get("extraConnectionAttributes"))
    if is_unknown(text):
        yield "extraConnectionAttributes", "delivery", UNKNOWN, False
        return
    for part in text.split(";") if isinstance(text, str) else ():
        key, sep, value = part.partition("=")
        bucket = _DMS_ATTRIBUTES.get(key.strip().lower())
        if sep and bucket is not None and value.strip():
            yield f"extraConnectionAttributes.{key.strip()}", "delivery", value.strip(), bucket


def _yaml(text: str) -> Any:
    import yaml

    return yaml.safe_load(text)


DOCUMENTS: dict[str, tuple[str, Callable[[str], Any], Callable[[Any, str], Found]]] = {
    "aws:sfn/stateMachine:StateMachine": ("definition", json.loads, _state_machine),
    "aws:opensearchingest/pipeline:Pipeline": ("pipelineConfigurationBody", _yaml, _pipeline),
}


READERS: dict[str, Callable[[dict], Found]] = {
    "aws:mskconnect/connector:Connector": _connector,
    "aws:dms/endpoint:Endpoint": _dms_endpoint,
}


def document_destinations(resource_type: str, props: dict) -> Found:
    """Every destination the resource's document names (see the module's doc)."""
    if resource_type in READERS:
        yield from READERS[resource_type](props)
    if resource_type not in DOCUMENTS:
        return
    name, parse, read = DOCUMENTS[resource_type]
    text = _unwrap(props.get(name))
    if is_unknown(text):
        yield name, "delivery", UNKNOWN, False
        return
    if isinstance(text, (dict, list)):
        yield from read(text, name)
        return
    if not isinstance(text, str) or not text.strip():
        return
    try:
        doc = parse(text)
    except Exception:  # a document the service would refuse to run moves no data
        return
    yield from read(doc, name)
