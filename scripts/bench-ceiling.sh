#!/usr/bin/env bash
# bench-ceiling.sh runs the ceiling (a canned 1 KB GetItem from net/http, in a
# process of its own: `loadgen -serve-canned`) and
# each of ExtendDB's operations back to back under the same load, and prints
# each operation's throughput as a share of the ceiling taken just before it. Only that share means
# anything on a shared machine: absolute figures move with the neighbours.
#
#   scripts/bench-ceiling.sh                 # put get query batchget mixed, 16 conns, 10 s each
#   OPS="put get" DURATION=5s CONNS=16 scripts/bench-ceiling.sh
#   SERVE_FLAGS="--log-level warn" scripts/bench-ceiling.sh
#   PPROF=127.0.0.1:6060 scripts/bench-ceiling.sh   # serve pprof there meanwhile
#
# It builds the binary and the generator, starts `extenddb serve
# --throttle=off` on a fresh on-disk data directory and a free loopback
# port, and stops the server itself.
set -euo pipefail

OPS=${OPS:-"put get query batchget mixed"}
CONNS=${CONNS:-16}
DURATION=${DURATION:-10s}
SERVE_FLAGS=${SERVE_FLAGS:-}
PPROF=${PPROF:-}

cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
work=$(mktemp -d)
server=
canned=
cleanup() {
	stop $server $canned
	rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/extenddb" ./cmd/extenddb
go build -o "$work/loadgen" ./internal/loadgen

pprofFlag=()
[[ -n $PPROF ]] && pprofFlag=(--pprof "$PPROF")
port=$(free_port)
addr=127.0.0.1:$port
# shellcheck disable=SC2086 # SERVE_FLAGS is a list of flags
"$work/extenddb" serve --addr "$addr" --data-dir "$work/data" --throttle=off \
	--log-format json "${pprofFlag[@]}" $SERVE_FLAGS 2>"$work/server.log" &
server=$!
wait_port "$port" "$server" "$work/server.log"

# The ceiling is a process of its own, as the server is: the generator's
# client then shares a Go runtime with neither.
"$work/loadgen" -serve-canned 127.0.0.1:0 2>"$work/canned.log" &
canned=$!
caddr=$(canned_addr "$work/canned.log")

printf 'load average: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
printf '%d connections, %s per op, server %s\n\n' "$CONNS" "$DURATION" "$addr"
# The ceiling is measured again right before each operation: the neighbours'
# load moves within a run too, and a share is only as good as the ceiling
# taken closest to it.
# cpu_us is the server's CPU time per request in the measured phase,
# ceil_us the canned server's: steadier than ops/s when neighbours load the
# machine, and the same for both sides (-pid, from /proc).
printf '%-9s %10s %9s %9s %12s %7s %7s %7s\n' op ops/s p50_ms p99_ms ceiling_ops/s share cpu_us ceil_us
for op in $OPS; do
	ceiling=$("$work/loadgen" -canned -endpoint "$caddr" -c "$CONNS" -d "$DURATION" -pid "$canned")
	base=$(field "$ceiling" ops_per_sec)
	line=$("$work/loadgen" -endpoint "http://$addr" -op "$op" -c "$CONNS" -d "$DURATION" -pid "$server" 2>>"$work/loadgen.log") || {
		echo "$op failed:" >&2; cat "$work/loadgen.log" >&2; exit 1
	}
	ops=$(field "$line" ops_per_sec)
	share=$(share "$ops" "$base")
	printf '%-9s %10s %9s %9s %12s %6s%% %7s %7s\n' "$op" "$ops" "$(field "$line" p50_ms)" "$(field "$line" p99_ms)" "$base" "$share" \
		"$(field "$line" server_cpu_us)" "$(field "$ceiling" server_cpu_us)"
done
printf '\nload average: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
