"""``python -m allockit.cli``: the same as the ``allockit`` command."""

import sys

from allockit.cli import main

if __name__ == "__main__":
    sys.exit(main())
