"""``deploy/install.sh --root DIR``, run for real into a temporary staging root, and what the tests read back."""

from __future__ import annotations

import grp
import hashlib
import os
import pwd
import subprocess
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
INSTALL = REPO / "deploy" / "install.sh"
MANIFEST = "opt/devetka/install-manifest"


@dataclass(frozen=True)
class Run:
    """One run of install.sh: its exit status and what it printed."""

    returncode: int
    stdout: str
    stderr: str


def install(root: Path, *args: str) -> Run:
    out = subprocess.run(["bash", str(INSTALL), "--root", str(root), *args], capture_output=True, text=True,
                         timeout=120, stdin=subprocess.DEVNULL)
    return Run(out.returncode, out.stdout, out.stderr)


def tree(root: Path) -> dict[str, tuple[str, str, str]]:
    """Every path under ``root`` (as on the machine: ``/etc/...``) -> (mode, owner:group, sha256 or '-')."""
    found = {}
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "-"
        found["/" + str(path.relative_to(root))] = (f"{info.st_mode & 0o7777:04o}", owner_of(info), digest)
    return found


def owner_of(info: os.stat_result) -> str:
    return f"{pwd.getpwuid(info.st_uid).pw_name}:{grp.getgrgid(info.st_gid).gr_name}"


def manifest(root: Path) -> dict[str, tuple[str, str, str, str]]:
    """The manifest's lines: path -> (kind, mode, owner:group, sha256 or '-')."""
    entries = {}
    for line in (root / MANIFEST).read_text().splitlines():
        if not line.startswith("#"):
            path, kind, mode, owner, digest = line.split("\t")
            entries[path] = (kind, mode, owner, digest)
    return entries


def exists_here(owner: str) -> bool:
    """Do the user and group of ``owner:group`` exist on this machine (so install.sh could chown to them)?"""
    user, group = owner.split(":")
    try:
        pwd.getpwnam(user)
        grp.getgrnam(group)
    except KeyError:
        return False
    return True


def credentials(root: Path) -> dict[str, str]:
    """The generated MQTT passwords: user -> password."""
    lines = (root / "etc/devetka/mqtt-credentials").read_text().splitlines()
    return dict(line.split(" ", 1) for line in lines if line and not line.startswith("#"))
