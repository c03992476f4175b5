#!/usr/bin/env bash
# memory.sh measures extenddb's resident memory (RSS): idle, while and after
# loading ITEMS items of about 1 KB through BatchWriteItem, and while and
# after a full Scan of them (scripts/memprobe); then it restarts the server
# on the loaded store and times the start-up (exec to the first answered
# health check) and what it read (/proc/PID/io). It builds the binary, starts
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
	stop "$server"
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

# Start-up on the loaded store must not read the items: it opens Pebble and
# reads the table metadata. rchar counts every byte read(2) returned, from
# the page cache or the disk. The first restart also replays the write-ahead
# log of the memtables the load left unflushed, and Pebble's compactions
# start reading at once; the second has neither.
for restart in first second; do
	stop "$server"
	start=$(date +%s%N)
	# shellcheck disable=SC2086 # SERVE_FLAGS is a list of flags
	"$work/extenddb" serve --addr "$addr" --data-dir "$work/data" --throttle=off \
		--log-format json $SERVE_FLAGS 2>"$work/server.log" &
	server=$!
	until curl -sf -o /dev/null "http://$addr/"; do
		kill -0 "$server" 2>/dev/null || { echo "the server exited:" >&2; cat "$work/server.log" >&2; exit 1; }
		sleep 0.002
	done
	ms=$((($(date +%s%N) - start) / 1000000))
	read_kb=$(($(awk '/^rchar/ {print $2}' "/proc/$server/io") / 1024))
	rss_mb=$(($(awk '/^VmRSS/ {print $2}' "/proc/$server/status") / 1024))
	echo "$restart restart on the loaded store: first health check answered after $ms ms; $read_kb KB read by then; RSS $rss_mb MB"
	sleep 2
done
