"""``python -m generator`` runs the same CLI as the ``capzgen`` console script."""

import sys

from generator.cli import main

if __name__ == "__main__":
    sys.exit(main())
