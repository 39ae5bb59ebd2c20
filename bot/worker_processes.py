"""What every worker process the bot forks runs first: it ends when the bot ends, however the bot ends.

A worker forked by the bot (a render worker, a computing worker) is an ordinary child process: when the
bot exits cleanly it stops its pools, but when the bot is killed (``kill -9``, the out-of-memory killer,
a crash of the interpreter) nothing stops them, and a service manager that restarts the bot would pile
up orphans of a few hundred megabytes each. So each worker watches its parent from a daemon thread and
exits as soon as it has been re-parented (its parent's pid is no longer its parent). Polling the
parent's pid works whatever thread forked the worker (Linux's ``PR_SET_PDEATHSIG`` fires when the
forking *thread* ends, which in a thread pool is not the bot's death) and on every POSIX system.
"""

from __future__ import annotations

import os
import threading
import time

#: Seconds between two looks at the parent: a worker outlives a killed bot by at most about this long.
PARENT_POLL = 0.2


def die_with_parent(parent: int | None = None, poll: float = PARENT_POLL) -> None:
    """Start the watch in this (child) process: it exits at once when ``parent`` (the pid the bot
    passed it when it forked the worker; by default the present parent) is no longer its parent. Pass
    the pid from the parent: a bot killed between the fork and this call would otherwise be missed."""
    if parent is None:
        parent = os.getppid()
    if os.getppid() != parent:
        os._exit(0)

    def watch() -> None:
        while True:
            time.sleep(poll)
            if os.getppid() != parent:
                os._exit(0)  # no clean-up to do: the worker only computed for the bot

    threading.Thread(target=watch, name="ringside-die-with-parent", daemon=True).start()
