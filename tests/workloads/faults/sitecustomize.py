"""Test-only fault injection, on the path of the loopback fleet's pods (tests/workloads/fleet.py).

A torchrun worker (it alone has TORCHELASTIC_RESTART_COUNT) of a pod started with SAHAB_TEST_FAIL_BEFORE_JOIN=1
exits on its first start before it joins the process group, as one whose CUDA init or model build failed.
"""

import os

if os.environ.get("SAHAB_TEST_FAIL_BEFORE_JOIN") == "1" and os.environ.get("TORCHELASTIC_RESTART_COUNT") == "0":
    os._exit(1)
