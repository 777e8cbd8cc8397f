#!/usr/bin/env bash
# Install everything the checks need and run them all: ruff, mypy, and the whole test suite
# (engine, records, CLI, terminal, bots, arena, server, PostgreSQL, and the browser through
# Playwright with Debian's Chromium). Extra arguments go to pytest.
source "$(dirname "$0")/bootstrap.sh"

if [ ! -x /usr/bin/chromium ]; then
    echo "Installing Debian's Chromium for the browser tests..."
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq chromium >/dev/null
fi

run() { python3 -m uv run --locked --no-sync "$@"; }
echo "== ruff"; run ruff check .
run ruff format --check .
echo "== mypy"; run mypy
echo "== pytest"; run pytest -n 2 --dist loadfile "$@"
