"""`python -m sahab.stack_outputs DIR STACK`: print a stack's outputs, planned offline, as JSON.

Used by the mocks to answer a StackReference from another stack of the same project in a fresh process
(the Pulumi runtime holds one stack's state per process)."""

import json
import sys

from sahab.engine import plan
from sahab.errors import report_error


def main() -> int:
    program_dir, stack = sys.argv[1], sys.argv[2]
    try:
        result = plan(program_dir, stack)
    except Exception as exc:
        return report_error(exc)
    print(json.dumps(result.secret_outputs, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
