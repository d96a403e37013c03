"""The ``capzgen`` console script and ``python -m generator``: the CLI of :mod:`generator.cli`.

``capzgen --version`` alone is answered here, before click and the command group load: it is what
scripts and CI steps run to see which build they have, and it needs nothing but the version and
the pinned releases, which :mod:`generator` keeps for this. Every other command line, including
``--version`` beside other arguments, goes to :func:`generator.cli.main`.
"""

import sys
from collections.abc import Sequence

from generator import version_text


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI on ``argv`` (default: the process's arguments) and return the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--version"]:
        print(version_text())
        return 0
    # lazy: the CLI edge - click and the command group load for every command but --version
    from generator.cli import main as cli_main

    return cli_main(args)


if __name__ == "__main__":
    sys.exit(main())
