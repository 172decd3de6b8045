import sys

from ..errors import WorkloadError, report_error
from .worker import main

try:
    code = main()  # a distributed run that finished ends the process inside main (worker.py)
except WorkloadError as exc:  # a setting the pod's owner can fix: one `error:` line, as the CLI says it
    sys.exit(report_error(exc))
sys.exit(code)
