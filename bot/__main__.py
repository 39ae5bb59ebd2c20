"""``python -m bot``: run the bot (the wiring is ``app``; this entry stays where the README says)."""

from __future__ import annotations

import sys

from app.main import main

if __name__ == "__main__":
    sys.exit(main())
