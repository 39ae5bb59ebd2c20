"""The Docker build context of the checkout: the files ``docker build .`` sends, as ``.dockerignore`` says.

Docker's rules (moby's patternmatcher), not git's: a pattern is matched against the whole path from
the top of the context, so ``*.sqlite3`` matches at the top only and ``**/*.sqlite3`` at any depth;
``*`` and ``?`` stay within one path segment, ``**`` crosses them; a pattern that matches a folder
excludes everything in it; a line starting with ``!`` takes matching paths back in; the last matching
line decides. ``tests/test_deploy_files.py`` checks the promises (no ``.env``, no database, every file
of the package) and ``.ci/check_deploy`` builds the wheel from exactly these files.

``python .ci/docker_context.py list`` prints the paths; ``python .ci/docker_context.py copy DEST``
copies them into the folder DEST.
"""

from __future__ import annotations

import os
import posixpath
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Pattern:
    text: str
    regex: re.Pattern[str]
    exclusion: bool  # a "!" line: matching paths are taken back into the context


def _compile(pattern: str) -> re.Pattern[str]:
    out = ["^"]
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "*":
            if pattern[i + 1 : i + 2] == "*":
                i += 1
                if pattern[i + 1 : i + 2] == "/":
                    i += 1
                    out.append("(.*/)?")  # "**/": any number of folders, none too
                else:
                    out.append(".*")
            else:
                out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "\\" and i + 1 < len(pattern):
            i += 1
            out.append(re.escape(pattern[i]))
        elif char == "[":
            end = pattern.find("]", i + 1)
            if end == -1:
                out.append(re.escape(char))
            else:
                out.append(pattern[i : end + 1])  # a class, as Go's filepath.Match reads it ([^...] negates)
                i = end
        else:
            out.append(re.escape(char))
        i += 1
    out.append("$")
    return re.compile("".join(out))


def parse(text: str) -> list[Pattern]:
    """The patterns of a ``.dockerignore`` file, in order (blank lines and ``#`` comments skipped)."""
    patterns = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        exclusion = line.startswith("!")
        if exclusion:
            line = line[1:].strip()
        line = posixpath.normpath(line).lstrip("/")
        if line in ("", "."):
            continue
        patterns.append(Pattern(raw.strip(), _compile(line), exclusion))
    return patterns


def ignored(path: str, patterns: list[Pattern]) -> bool:
    """Whether ``path`` (relative, with ``/``) stays out of the context."""
    parents = path.split("/")[:-1]
    prefixes = ["/".join(parents[: i + 1]) for i in range(len(parents))]
    matched = False
    for pattern in patterns:
        if pattern.exclusion != matched:  # only a line that could change the answer is looked at
            continue
        if pattern.regex.match(path) or any(pattern.regex.match(prefix) for prefix in prefixes):
            matched = not pattern.exclusion
    return matched


def context_files(root: Path) -> list[str]:
    """Every file under ``root`` that ``docker build root`` sends, as sorted relative paths."""
    ignore_file = root / ".dockerignore"
    patterns = parse(ignore_file.read_text(encoding="utf-8")) if ignore_file.is_file() else []
    takes_back = any(pattern.exclusion for pattern in patterns)
    files = []
    for folder, dirs, names in os.walk(root):
        relative = Path(folder).relative_to(root).as_posix()
        prefix = "" if relative == "." else relative + "/"
        if not takes_back:  # nothing below an ignored folder can come back: do not walk it
            dirs[:] = [name for name in dirs if not ignored(prefix + name, patterns)]
        files.extend(prefix + name for name in names if not ignored(prefix + name, patterns))
    return sorted(files)


def main(argv: list[str]) -> int:
    root = Path(__file__).resolve().parent.parent
    if argv[:1] == ["list"] and len(argv) == 1:
        print("\n".join(context_files(root)))
        return 0
    if argv[:1] == ["copy"] and len(argv) == 2:
        dest = Path(argv[1])
        for name in context_files(root):
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / name, target)
        return 0
    print("usage: python .ci/docker_context.py list | copy DEST", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
