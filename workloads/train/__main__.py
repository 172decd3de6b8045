import sys

from .worker import main

sys.exit(main())
