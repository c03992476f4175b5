#!/usr/bin/env bash
# memory.sh measures extenddb's resident memory (RSS): idle, while and after
# loading ITEMS items of about 1 KB through BatchWriteItem, and while and
# after a full Scan of them (scripts/memprobe). It builds the binary, starts
# `extenddb serve --throttle=off` on a fresh on-disk data directory and a
# free loopback port, and deletes the directory at the end.
#
#   scripts/memory.sh                                  # 1,000,000 items
#   ITEMS=100000 scripts/memory.sh                     # fewer
#   SERVE_FLAGS="--cache-size 16MiB" scripts/memory.sh
#   CGO_ENABLED=0 scripts/memory.sh                    # as the Docker image is built
set -euo pipefail

ITEMS=${ITEMS:-1000000}
ITEM_SIZE=${ITEM_SIZE:-1024}
SERVE_FLAGS=${SERVE_FLAGS:-}

cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
work=$(mktemp -d)
server=
cleanup() {
	if [[ -n $server ]] && kill -0 "$server" 2>/dev/null; then
		kill -INT "$server"
		wait "$server" || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/extenddb" ./cmd/extenddb
go build -o "$work/memprobe" ./scripts/memprobe

port=$(free_port)
addr=127.0.0.1:$port
# shellcheck disable=SC2086 # SERVE_FLAGS is a list of flags
"$work/extenddb" serve --addr "$addr" --data-dir "$work/data" --throttle=off \
	--log-format json $SERVE_FLAGS 2>"$work/server.log" &
server=$!
wait_port "$port" "$server" "$work/server.log"

echo "extenddb serve $SERVE_FLAGS (CGO_ENABLED=$(go env CGO_ENABLED)), $ITEMS items of about $ITEM_SIZE bytes"
"$work/memprobe" -endpoint "http://$addr" -pid "$server" -items "$ITEMS" -item-size "$ITEM_SIZE"
echo "data directory: $(du -sh "$work/data" | cut -f1)"
