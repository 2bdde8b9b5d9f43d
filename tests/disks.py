"""Real filesystems in trouble, for the tests: a small tmpfs that fills up, a folder remounted read-only.

Both need root (mount); a test that cannot have them fails, naming why, rather than skip.
"""

from __future__ import annotations

import errno
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

TIMEOUT = 60.0


def _mount(*args: str) -> None:
    result = subprocess.run(["mount", *args], capture_output=True, text=True, timeout=TIMEOUT)
    if result.returncode != 0:
        pytest.fail(f"mount {' '.join(args)} failed (these tests need root and mount): {result.stderr.strip()}")


def _unmount(path: Path) -> None:
    result = subprocess.run(["umount", str(path)], capture_output=True, text=True, timeout=TIMEOUT)
    if result.returncode != 0:  # a process of the test still holds a file there: detach it now, freed when closed
        subprocess.run(["umount", "--lazy", str(path)], check=True, capture_output=True, timeout=TIMEOUT)


@contextmanager
def small_disk(folder: Path, size: str = "4m") -> Iterator[Path]:
    """A tmpfs of ``size`` mounted on ``folder/disk`` while the block runs."""
    mount = folder / "disk"
    mount.mkdir()
    _mount("-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(mount))
    try:
        yield mount
    finally:
        _unmount(mount)


def fill(disk: Path) -> Path:
    """Write a file on ``disk`` until the filesystem says it is full (ENOSPC); the file, to remove to make room."""
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as file:
        for chunk in (1 << 16, 1 << 12, 1):
            while True:
                try:
                    file.write(b"\0" * chunk)
                except OSError as error:
                    assert error.errno == errno.ENOSPC, error
                    break
    return filler


@contextmanager
def read_only(folder: Path) -> Iterator[Path]:
    """``folder`` bind-mounted on itself read-only while the block runs: every write there fails with EROFS."""
    _mount("--bind", str(folder), str(folder))
    try:
        _mount("-o", "remount,bind,ro", str(folder))
        yield folder
    finally:
        _unmount(folder)
