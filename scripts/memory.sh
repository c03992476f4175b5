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

# shellcheck disable=SC2086 # SERVE_FLAGS is a list of flags
"$work/extenddb" serve --addr 127.0.0.1:0 --data-dir "$work/data" --throttle=off \
	--log-format json $SERVE_FLAGS 2>"$work/server.log" &
server=$!
addr=
for _ in $(seq 200); do
	addr=$(grep -o '"addr":"[^"]*"' "$work/server.log" | head -1 | cut -d'"' -f4) || true
	[[ -n $addr ]] && break
	kill -0 "$server" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
	sleep 0.05
done
[[ -n $addr ]] || { echo "server never logged its address" >&2; cat "$work/server.log" >&2; exit 1; }

echo "extenddb serve $SERVE_FLAGS (CGO_ENABLED=$(go env CGO_ENABLED)), $ITEMS items of about $ITEM_SIZE bytes"
"$work/memprobe" -endpoint "http://$addr" -pid "$server" -items "$ITEMS" -item-size "$ITEM_SIZE"
echo "data directory: $(du -sh "$work/data" | cut -f1)"
