"""Memory of a process tree, read from /proc: a server's master and its workers, a Celery
worker and its pool. Linux only."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")


@dataclass(frozen=True)
class TreeMemory:
    processes: int
    rss_kib: int  # resident set: pages shared after fork count once per process
    pss_kib: int  # proportional set: a shared page split between its sharers; 0 if unreadable


def _parents() -> dict[int, int]:
    """pid -> parent pid of every process now running."""
    parents = {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # it exited while we looked
            continue
        # The command name (field 2) is in parentheses and may hold spaces: split after it.
        fields = stat[stat.rindex(")") + 2 :].split()
        parents[int(entry.name)] = int(fields[1])
    return parents


def tree_pids(root_pid: int) -> list[int]:
    """The root and every descendant of it."""
    children: dict[int, list[int]] = {}
    for pid, parent in _parents().items():
        children.setdefault(parent, []).append(pid)
    found, todo = [], [root_pid]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def _kib(path: Path, key: str) -> int:
    try:
        for line in path.read_text().splitlines():
            if line.startswith(key):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_memory(root_pid: int) -> TreeMemory:
    pids = [pid for pid in tree_pids(root_pid) if (PROC / str(pid)).exists()]
    return TreeMemory(
        processes=len(pids),
        rss_kib=sum(_kib(PROC / str(pid) / "status", "VmRSS:") for pid in pids),
        pss_kib=sum(_kib(PROC / str(pid) / "smaps_rollup", "Pss:") for pid in pids),
    )


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
