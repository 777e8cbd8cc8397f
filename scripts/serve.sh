#!/usr/bin/env bash
# Install what the game server needs (a locked environment) and start it.
# Extra arguments go to `nimmt serve`, e.g. `bash scripts/serve.sh --host 0.0.0.0 --port 8080`.
source "$(dirname "$0")/bootstrap.sh"
exec python3 -m uv run --locked --no-sync nimmt serve "$@"
