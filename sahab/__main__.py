import sys

from sahab.cli import main

sys.exit(main())
