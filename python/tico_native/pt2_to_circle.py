"""Console script ``tico-pt2-to-circle``: runs the packaged ``pt2-to-circle`` (the C++ tool with
the original converter's flags, -i/-o/-c/-v). It is not installed as ``pt2-to-circle`` because
that script name belongs to the original package, which may be installed alongside."""

from __future__ import annotations

import os
import sys

from ._resources import BIN_DIR


def main() -> None:
    tool = BIN_DIR / "pt2-to-circle"
    if not os.access(tool, os.X_OK):
        sys.exit(f"tico-pt2-to-circle: the packaged tool {tool} is missing; reinstall tico-native")
    os.execv(tool, [str(tool), *sys.argv[1:]])


if __name__ == "__main__":
    main()
