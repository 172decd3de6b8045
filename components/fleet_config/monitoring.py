"""Monitoring on every cluster, and where Alertmanager sends alerts."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StrictBool, StrictInt, model_validator
from sahab.components import validation
from sahab.components.fleet_config.types import PORT_IN_RANGE, Name, SecretKey, _fits, _Model, duration

Email = Annotated[str, Field(pattern=r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$")]
# An https URL of URL characters only: no space, quote, brace, backtick, backslash or '$' (nothing a template or a
# shell would read), host then optional port, path and query.
HttpsUrl = Annotated[str, Field(pattern=r"^https://[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:[0-9]{1,5})?"
                                        r"(/[A-Za-z0-9._~%!&()*+,;=:@/-]*)?(\?[A-Za-z0-9._~%!&()*+,;=:@/?-]*)?$"),
                    PORT_IN_RANGE]
SmtpUser = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._%+@\\-]{0,127}$")]
SlackChannel = Annotated[str, Field(pattern=r"^[#@]?[a-z0-9][a-z0-9._-]{0,79}$")]
# An Alertmanager label name, or `...` (group by every label).
AlertLabel = Annotated[str, Field(pattern=r"^([A-Za-z_][A-Za-z0-9_]{0,127}|\.\.\.)$")]
Severity = Literal["critical", "warning", "info"]


class AlertReceiver(_Model):
    """Where Alertmanager sends alerts. Credentials never appear in the stack file in clear: each is the name of
    a secret stack setting, handed to Alertmanager as a mounted Kubernetes Secret (a file), never in Helm values."""

    name: Name
    """Receiver name, unique."""
    type: Literal["email", "webhook", "slack", "msteams"]
    """email (SMTP), webhook (generic HTTPS), slack (incoming webhook) or msteams (Teams incoming webhook)."""
    severities: tuple[Severity, ...] = ()
    """Send only alerts of these severities; empty sends every alert the routes give it. Default: empty."""
    to: tuple[Email, ...] = ()
    """email: recipients (at least one). Default: none."""
    from_address: Email | None = None
    """email: sender address (required for email). Default: unset."""
    smarthost: Annotated[str, Field(pattern=r"^[A-Za-z0-9.-]+:[0-9]{1,5}$"), PORT_IN_RANGE] | None = None
    """email: SMTP server `host:port` (port 1-65535), spoken to with STARTTLS (required for email). Default:
    unset."""
    username: SmtpUser | None = None
    """email: SMTP user. Default: unset (no SMTP authentication)."""
    password_secret: SecretKey | None = None
    """email: secret setting holding the SMTP password (needs `username`). Default: unset."""
    url: HttpsUrl | None = None
    """webhook: the endpoint, when the URL itself is no credential (must be https). Default: unset."""
    url_secret: SecretKey | None = None
    """webhook/slack/msteams: secret setting holding the URL (Slack and Teams URLs are credentials, so they must
    use this). Default: unset."""
    bearer_token_secret: SecretKey | None = None
    """webhook: secret setting holding a bearer token sent as `Authorization`. Default: unset."""
    channel: SlackChannel | None = None
    """slack: channel override (e.g. #gpu-alerts). Default: the webhook's own channel."""

    @model_validator(mode="after")
    def _fields_of_its_type(self):
        need = {"email": ("to", "from_address", "smarthost"), "slack": ("url_secret",), "msteams": ("url_secret",)}
        for field_name in need.get(self.type, ()):
            if not getattr(self, field_name):
                raise ValueError(f"{self.type} receiver {self.name!r} needs `{field_name}`")
        if self.type == "webhook" and bool(self.url) == bool(self.url_secret):
            raise ValueError(f"webhook receiver {self.name!r} needs exactly one of `url` and `url_secret`")
        allowed = {"email": {"to", "from_address", "smarthost", "username", "password_secret"},
                   "webhook": {"url", "url_secret", "bearer_token_secret"},
                   "slack": {"url_secret", "channel"}, "msteams": {"url_secret"}}[self.type]
        optional = {"to", "from_address", "smarthost", "username", "password_secret", "url", "url_secret",
                    "bearer_token_secret", "channel"}
        stray = sorted(f for f in optional - allowed if getattr(self, f))
        if stray:
            raise ValueError(f"{self.type} receiver {self.name!r} does not take {', '.join(stray)}")
        if self.password_secret and not self.username:
            raise ValueError(f"email receiver {self.name!r} sets `password_secret` without `username`")
        return self


# Alertmanager's timings: a whole number then s, m, h or d, within bounds that keep alerts flowing.
GroupWait = duration("1s", "1h")
GroupInterval = duration("1s", "1d")
RepeatInterval = duration("1m", "30d")


class Alerting(_Model):
    """Alertmanager: receivers, the default route and its grouping. Inhibition is fixed: a critical alert
    silences the warning of the same alert on the same cluster, and a node that is down silences its GPU alerts."""

    receivers: tuple[AlertReceiver, ...] = ()
    """Receivers. Default: none (alerts are only shown in Alertmanager and Grafana)."""
    default_receiver: Name | None = None
    """Receiver of the root route: it hears what no receiver's route took (every receiver hears the alerts of
    its `severities`, all when it names none). Default: the first receiver, else Alertmanager's `null`."""
    group_by: tuple[AlertLabel, ...] = ("alertname", "cluster", "namespace")
    """Labels that group alerts into one notification. Default: alertname, cluster, namespace."""
    group_wait: GroupWait = "30s"
    """Wait before the first notification of a new group, 1s to 1h. Default: 30s."""
    group_interval: GroupInterval = "5m"
    """Wait before notifying about new alerts of a group already notified, 1s to 1d. Default: 5m."""
    repeat_interval: RepeatInterval = "4h"
    """Resend a still-firing alert after this long, 1m to 30d. Default: 4h."""

    @model_validator(mode="after")
    def _names(self):
        names = [r.name for r in self.receivers]
        if len(set(names)) != len(names) or "null" in names:
            raise ValueError("receiver names must be unique and not `null`")
        if self.default_receiver is not None and self.default_receiver not in names:
            raise ValueError(f"default_receiver {self.default_receiver!r} is not a receiver; "
                             f"receivers: {', '.join(names) or 'none'}")
        return self

    def default(self) -> str | None:
        if self.default_receiver:
            return self.default_receiver
        return self.receivers[0].name if self.receivers else None


class Monitoring(_Model):
    """The monitoring stack on every cluster."""

    enabled: StrictBool = True
    """Install kube-prometheus-stack, DCGM exporter, alerts and dashboards. Default: true."""
    retention: Annotated[str, _fits(validation.prometheus_retention)] = "15d"
    """Prometheus retention. Default: 15d."""
    storage_size_gb: Annotated[StrictInt, Field(ge=1, le=10000)] = 50
    """Prometheus volume size on an encrypted storage class. Default: 50."""
    gpu_low_utilisation_percent: Annotated[StrictInt, Field(ge=1, le=100)] = 20
    """Alert when allocated GPUs stay below this utilisation for 30 minutes. Default: 20."""
    alerting: Alerting = Alerting()
    """Alertmanager receivers and routing. Default: no receivers."""
