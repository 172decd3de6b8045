import sys

from ..errors import WorkloadError, report_error
from .worker import main

try:
    sys.exit(main())
except WorkloadError as exc:  # a setting the pod's owner can fix: one `error:` line, as the CLI says it
    sys.exit(report_error(exc))
