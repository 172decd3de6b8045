import sys

from workloads.train.worker import main

sys.exit(main())
