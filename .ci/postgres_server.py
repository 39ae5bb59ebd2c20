"""A throwaway PostgreSQL server from Debian's package, for CI, the tests and ``bench/cluster.py``.

    python .ci/postgres_server.py start DIR    # prints the server's URL; the server runs on
    python .ci/postgres_server.py stop DIR     # stops it (fast shutdown); DIR may then be deleted
    python .ci/postgres_server.py restart DIR  # stops and starts it again on the same port

``initdb`` refuses to run as root, so as root the data directory is made for the ``postgres`` user
and every server command runs as that user (``runuser -u postgres``). The server listens on
127.0.0.1 on a free port, with its socket in DIR, trusting local connections: it is for tests only.
The package is installed with apt-get when no PostgreSQL is found (CI runs as root).
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

DATABASE = "ringside"


def binaries() -> Path:
    """The folder of PostgreSQL's server programs (installing Debian's package if there is none)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "postgresql"],
            check=True,
            env=env,
            stdout=subprocess.DEVNULL,
        )
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        raise SystemExit("error: no PostgreSQL server programs found (/usr/lib/postgresql/*/bin)")
    return Path(found[-1]).parent


def _as_owner(command: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def url_of(folder: Path) -> str:
    port = (folder / "port").read_text().strip()
    return f"postgresql://postgres@127.0.0.1:{port}/{DATABASE}"


def start(folder: Path) -> str:
    """Create (first time) and start the server in ``folder``; its URL, once it accepts connections."""
    bin_dir = binaries()
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / "data"
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    if not data.exists():
        subprocess.run(
            _as_owner(
                [str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8"]
            ),
            check=True,
            stdout=subprocess.DEVNULL,
        )
        (folder / "port").write_text(str(_free_port()))
    port = (folder / "port").read_text().strip()
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300"
    subprocess.run(
        _as_owner(
            [
                str(bin_dir / "pg_ctl"),
                "-D",
                str(data),
                "-l",
                str(folder / "server.log"),
                "-o",
                options,
                "-w",
                "start",
            ]
        ),
        check=True,
        stdout=subprocess.DEVNULL,
    )
    for _ in range(100):
        made = subprocess.run(
            _as_owner(
                [
                    str(bin_dir / "psql"),
                    "-h",
                    str(folder),
                    "-p",
                    port,
                    "-U",
                    "postgres",
                    "-tAc",
                    f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE}'",
                ]
            ),
            capture_output=True,
            text=True,
        )
        if made.returncode == 0:
            if made.stdout.strip() != "1":
                subprocess.run(
                    _as_owner(
                        [str(bin_dir / "createdb"), "-h", str(folder), "-p", port, "-U", "postgres", DATABASE]
                    ),
                    check=True,
                )
            return url_of(folder)
        time.sleep(0.1)
    raise SystemExit(f"error: PostgreSQL did not start; see {folder / 'server.log'}")


def stop(folder: Path, mode: str = "fast") -> None:
    data = folder / "data"
    if data.exists():
        subprocess.run(
            _as_owner([str(binaries() / "pg_ctl"), "-D", str(data), "-m", mode, "-w", "stop"]),
            check=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("start", "stop", "restart"):
        print(__doc__, file=sys.stderr)
        return 2
    verb, folder = argv[0], Path(argv[1]).resolve()
    if verb in ("stop", "restart"):
        stop(folder)
    if verb in ("start", "restart"):
        print(start(folder))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
