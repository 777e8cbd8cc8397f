# Sourced by the other scripts: make sure uv (pinned) and the locked environment are there.
# Needs only Python 3.11 and pip; uv never downloads a Python (the project pins 3.11).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export UV_PYTHON_DOWNLOADS=never
UV_VERSION=0.13.8
if ! python3 -m uv --version 2>/dev/null | grep -q "^uv $UV_VERSION"; then
    # A system Python that forbids pip outside a virtual environment (PEP 668, Debian 12's)
    # gets uv in the user's own site-packages instead: one program, none of the system's.
    python3 -m pip install --quiet --disable-pip-version-check "uv==$UV_VERSION" 2>/dev/null ||
        python3 -m pip install --quiet --disable-pip-version-check --user \
            --break-system-packages "uv==$UV_VERSION"
fi
uv() { python3 -m uv "$@"; }
# Bytecode compiled once at install: every server, bot and test process then starts fast, even
# where PYTHONDONTWRITEBYTECODE is set.
uv sync --locked --extra ai --quiet --compile-bytecode
python3 -m uv run --locked --no-sync python -m compileall -q src
