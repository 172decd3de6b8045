"""`python -m workloads.train.agent [torchrun flags] -m workloads.train ...`: torchrun, with the ways a node's
agent ends on rendezvous loss told apart by exit code, so the training Job's podFailurePolicy can act on them
(components/kubernetes/training_job.py).

What torch 2.13's elastic agent does (torch/distributed/launcher/api.py `launch_agent`, elastic/agent/server/
api.py `_invoke_run`, elastic/rendezvous/{dynamic_rendezvous,c10d_rendezvous_backend}.py):
- the rendezvous store lives in the agent of the pod whose index hosts it (pod 0). When that pod goes, every
  other agent's next store call fails (the heartbeat, the membership check in the monitor loop, the next round)
  and torchrun raises RendezvousConnectionError: exit 75 here (EX_TEMPFAIL), a loss that is not this node's
  fault. The Job retries the pod without counting it; the replacement waits `read_timeout` for pod 0's own
  replacement and the group resumes from the last checkpoint;
- an agent that cannot reach the store from its start within `read_timeout` raises the same error from
  `create_backend`: that is a failure of this pod (exit 1, counted), so a Job whose pod 0 never returns ends;
- a rendezvous closed before this agent joined (the agents that finished the run shut it down) raises
  RendezvousClosedError: the run is over without this node, exit 0;
- anything else (workers failed past --max-restarts, join_timeout passed) is torchrun's own exit 1.
"""

from __future__ import annotations

import sys
import traceback

EXIT_RENDEZVOUS_LOST = 75  # sysexits.h EX_TEMPFAIL: retry; pod 0, which hosted the rendezvous, went
EXIT_FAILED = 1


def _raised_while_connecting(exc: BaseException) -> bool:
    """The store could not be reached at all (c10d_rendezvous_backend.create_backend), as opposed to lost."""
    return any(frame.name == "create_backend" for frame in traceback.extract_tb(exc.__traceback__))


def main(argv: list[str] | None = None) -> int:
    from torch.distributed import run as torchrun
    from torch.distributed.elastic.rendezvous.api import RendezvousClosedError, RendezvousConnectionError

    try:
        torchrun.main(argv)
    except RendezvousClosedError:
        print("sahab: the rendezvous was closed before this node joined: the run ended without it", file=sys.stderr)
        return 0
    except RendezvousConnectionError as exc:
        if _raised_while_connecting(exc):
            print(f"error: the rendezvous store could not be reached: {exc.__cause__ or exc}", file=sys.stderr)
            return EXIT_FAILED
        print(f"sahab: lost the rendezvous store (its host, pod 0, went): {exc.__cause__ or exc}; exit "
              f"{EXIT_RENDEZVOUS_LOST} to be started again", file=sys.stderr)
        return EXIT_RENDEZVOUS_LOST
    return 0


if __name__ == "__main__":
    sys.exit(main())
