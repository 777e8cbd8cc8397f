#!/usr/bin/env bash
# Install everything the checks need and run them all: ruff, mypy, eslint and node's test runner
# for the browser client (package.json, tests/js), and the whole test suite (engine, records,
# CLI, terminal, bots, arena, server, PostgreSQL, and the browser through Playwright with
# Debian's Chromium, several server processes on PostgreSQL and Redis, and the proxy set-ups of
# docs/deploy.md through Debian's nginx and Caddy).
# Extra arguments go to pytest.
source "$(dirname "$0")/bootstrap.sh"

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/bin/redis-server ] || missing+=(redis-server)
[ -x /usr/sbin/nginx ] || missing+=(nginx)
[ -x /usr/bin/caddy ] || missing+=(caddy)
command -v npm >/dev/null || missing+=(npm) # with node, for the client's eslint and node --test
if [ ${#missing[@]} -gt 0 ]; then
    echo "Installing Debian's ${missing[*]} for the browser, multi-process, proxy, client tests..."
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
    # apt may start the services it installed: the tests start their own servers and proxies.
    for service in redis-server nginx caddy; do
        $sudo_cmd service "$service" stop >/dev/null 2>&1 || true
    done
fi

run() { python3 -m uv run --locked --no-sync "$@"; }
echo "== ruff"; run ruff check .
run ruff format --check .
echo "== mypy"; run mypy
# The client's checks (dev dependencies only, pinned in package-lock.json): installed again only
# when the lock changed since the last install.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --silent --no-audit --no-fund
fi
echo "== eslint"; npx --no-install eslint src/nimmt/web/static tests/js eslint.config.js
echo "== node --test"; node --test tests/js/
echo "== pytest"; run pytest -n 2 --dist loadfile "$@"
