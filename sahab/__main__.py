import sys

from sahab.cli import entry

sys.exit(entry())
