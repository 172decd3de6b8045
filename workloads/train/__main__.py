import os
import sys

from ..errors import WorkloadError, report_error
from .worker import main

try:
    code = main()
except WorkloadError as exc:  # a setting the pod's owner can fix: one `error:` line, as the CLI says it
    sys.exit(report_error(exc))
if code == 0 and int(os.environ.get("WORLD_SIZE", "1")) > 1:
    # The run is done: every checkpoint written, the summary printed, the process group destroyed. A torchrun
    # worker ends here, without the interpreter's teardown, where gloo's threads have aborted the process
    # ("terminate called without an active exception") under load, and where a worker of a loopback fleet once
    # stayed after its peers had gone: either would turn a finished run into a failed or never-ending pod.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
sys.exit(code)
