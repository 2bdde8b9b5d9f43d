#!/usr/bin/env bash
# Idempotent set-up for a fresh Debian 12 / Raspberry Pi OS Bookworm machine:
# Debian packages the project needs, then .venv with `pip install -e '.[test]'`.
# Safe to run again and again: each step is skipped when it is already done.
set -euo pipefail

# Debian packages the project needs. ONE list, so later work only adds here.
# mosquitto: the broker (the demo's and the tests'); xvfb, xauth and the Mesa GL
# libraries: the Kivy touchscreen on a virtual screen; libmtdev1: Kivy's touch input;
# systemd: systemd-analyze, which checks deploy/systemd's units (a minimal image has no init);
# chromium (headless, over the DevTools protocol) and fonts-liberation: the venue board's tests and screenshots.
# nats-server: the venue on a NATS cluster (tests/venue/test_nats.py, bench/venue_nats.py, install.sh --engine nats).
# cage, xwayland and grim: the TV kiosk unit (devetka-board.service) booted under cage's headless backend and its
# picture taken (tests/venue/test_kiosk.py); Debian's cage 0.1.4 will not start without Xwayland, though it does not depend on it.
APT_PACKAGES="mosquitto mosquitto-clients openssl xvfb xauth libgl1 libgl1-mesa-dri libegl1 libmtdev1 fonts-dejavu-core systemd chromium fonts-liberation nats-server cage xwayland grim"

# The distribution's Python (/usr/bin/python3), as on the Pi, where it is there:
# Debian builds it with profile-guided and link-time optimisation, which a
# hand-built Python on PATH (pyenv) may lack: replay runs ~15% faster on it.
# PYTHON=... chooses another.
if [[ -z ${PYTHON:-} ]]; then
    if [[ -x /usr/bin/python3 ]]; then PYTHON=/usr/bin/python3; else PYTHON=python3; fi
fi

# Work from the repo root whatever the caller's directory.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd -P)
VENV=.venv
STAMP=$VENV/.devetka-setup   # what the last successful install was made from

say() { printf 'setup: %s\n' "$*" >&2; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

is_installed() {  # is Debian package $1 installed?
    [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" == "install ok installed" ]]
}

venv_works() {  # a venv here must have a working pip, or pip install fails later
    [[ -x $VENV/bin/python ]] && "$VENV/bin/python" -m pip --version >/dev/null 2>&1
}

# --- Decide what is missing ---------------------------------------------------
wanted=()
command -v "$PYTHON" >/dev/null || wanted+=(python3)
for pkg in $APT_PACKAGES; do
    is_installed "$pkg" || wanted+=("$pkg")
done

# The venv is tied to the repo path (script shebangs) and to the interpreter:
# rebuild it when either changed, e.g. the checkout was moved.
venv_id=""
if command -v "$PYTHON" >/dev/null; then
    venv_id="root=$ROOT python=$("$PYTHON" -c 'import sys; print(sys.executable, *sys.version_info[:2])')"
fi
rebuild_venv=0
if ! venv_works; then
    rebuild_venv=1
elif [[ -f $STAMP && "$(sed -n 1p "$STAMP")" != "$venv_id" ]]; then
    rebuild_venv=1
fi

# Debian's python3 ships without ensurepip, so `python3 -m venv` makes a venv with
# no pip until python3-venv is installed. Detect rather than assume: a pyenv or
# python.org build already has it.
if (( rebuild_venv )) && command -v "$PYTHON" >/dev/null \
        && ! "$PYTHON" -c 'import ensurepip, venv' >/dev/null 2>&1; then
    wanted+=(python3-venv)
fi

# --- Debian packages ----------------------------------------------------------
if (( ${#wanted[@]} )); then
    command -v apt-get >/dev/null || die "please install these packages: ${wanted[*]} (no apt-get here)"
    sudo=()
    if (( EUID != 0 )); then
        command -v sudo >/dev/null || die "not root and no sudo: as root run: apt-get install ${wanted[*]}"
        sudo=(sudo)
    fi
    say "installing Debian packages: ${wanted[*]}"
    # `env` because sudo drops DEBIAN_FRONTEND; noninteractive: no stdin in CI.
    apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -o Dpkg::Use-Pty=0)
    "${apt[@]}" update -qq
    "${apt[@]}" install -y -qq "${wanted[@]}" >/dev/null
fi

# --- Python and the venv ----------------------------------------------------
command -v "$PYTHON" >/dev/null || die "$PYTHON not found"
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || die "Python 3.11 or newer needed, $PYTHON is $("$PYTHON" -V 2>&1)"

if (( rebuild_venv )); then
    say "creating $VENV"
    # --clear: a half-made .venv (e.g. from before python3-venv) is replaced.
    "$PYTHON" -m venv --clear "$VENV"
    venv_works || die "$VENV has no working pip (is python3-venv installed?)"
fi

# Reinstall only when pyproject.toml changed (new dependencies, entry points):
# keeps repeat runs fast and offline. DEVETKA_SETUP_PIP_COMPILE=no skips compiling the installed packages'
# modules (pip --no-compile): scripts/test.sh says so, since its run keeps compiled modules in a cache of its own
# (PYTHONPYCACHEPREFIX), where Python never reads the venv's (3.3 s of a fresh clone's 12.8 s pip install).
deps_id="pyproject=$(sha256sum pyproject.toml | cut -d' ' -f1)"
if (( rebuild_venv )) || [[ ! -f $STAMP ]] || [[ "$(sed -n 2p "$STAMP")" != "$deps_id" ]]; then
    say "installing devetka and its test dependencies into $VENV"
    rm -f "$STAMP"   # so an interrupted install is redone next time
    compile=()
    [[ ${DEVETKA_SETUP_PIP_COMPILE:-yes} == no ]] && compile=(--no-compile)
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "${compile[@]}" \
        -e '.[test]'
    printf '%s\n%s\n' "$venv_id" "$deps_id" > "$STAMP"
fi
