#!/usr/bin/env bash
# bench-multiprocess.sh measures PutItem, GetItem and Query throughput of
# PROCS extenddb processes serving one store, with the load generator's
# connections split evenly over them, next to the ceiling (a canned 1 KB
# GetItem served by net/http in a process of its own) taken right before
# each operation, as scripts/bench-ceiling.sh does. Only the share of the
# ceiling means anything on a shared machine.
#
#   scripts/bench-multiprocess.sh                          # Pebble, 1 process
#   STORE='postgres://…' PROCS=1 scripts/bench-multiprocess.sh
#   STORE='postgres://…' PROCS=2 scripts/bench-multiprocess.sh
#   OPS="put get" DURATION=5s CONNS=16 STORE=… PROCS=2 scripts/bench-multiprocess.sh
#   PPROF=127.0.0.1:6060 STORE=… scripts/bench-multiprocess.sh   # pprof on process 1
#
# STORE unset: Pebble on a fresh data directory (one process only: Pebble is
# opened by one process). STORE set: every process gets `--store STORE`;
# give it an empty database (the loader's tables are named per run, so a
# used one works too). Each process's generator makes its own table.
set -euo pipefail

OPS=${OPS:-"put get query"}
CONNS=${CONNS:-16}
DURATION=${DURATION:-10s}
PROCS=${PROCS:-1}
STORE=${STORE:-}
SERVE_FLAGS=${SERVE_FLAGS:-}
PPROF=${PPROF:-}

if [[ -z $STORE && $PROCS -ne 1 ]]; then
	echo "PROCS=$PROCS needs STORE: one Pebble directory serves one process" >&2
	exit 2
fi

cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
work=$(mktemp -d)
servers=()
canned=
cleanup() {
	stop "${servers[@]}" $canned
	rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/extenddb" ./cmd/extenddb
go build -o "$work/loadgen" ./internal/loadgen

addrs=()
for p in $(seq "$PROCS"); do
	storeFlags=(--data-dir "$work/data")
	[[ -n $STORE ]] && storeFlags=(--store "$STORE")
	pprofFlag=()
	[[ -n $PPROF && $p -eq 1 ]] && pprofFlag=(--pprof "$PPROF")
	port=$(free_port)
	# shellcheck disable=SC2086 # SERVE_FLAGS is a list of flags
	"$work/extenddb" serve --addr "127.0.0.1:$port" "${storeFlags[@]}" --throttle=off \
		--log-format json "${pprofFlag[@]}" $SERVE_FLAGS 2>"$work/server$p.log" &
	servers+=($!)
	wait_port "$port" $! "$work/server$p.log"
	addrs+=("127.0.0.1:$port")
done

"$work/loadgen" -serve-canned 127.0.0.1:0 2>"$work/canned.log" &
canned=$!
caddr=$(canned_addr "$work/canned.log")

per=$((CONNS / PROCS))
printf 'load average: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
label=pebble
[[ -n $STORE ]] && label=postgres
printf 'store %s, %d process(es), %d connections each, %s per op\n\n' "$label" "$PROCS" "$per" "$DURATION"
printf '%-6s %10s %9s %9s %12s %7s\n' op ops/s p50_ms p99_ms ceiling_ops/s share
for op in $OPS; do
	ceiling=$("$work/loadgen" -canned -endpoint "$caddr" -c "$CONNS" -d "$DURATION")
	base=$(field "$ceiling" ops_per_sec)
	# One generator per process, all at once; each loads its own table
	# first, so the measured phases overlap (the loads are a few seconds).
	gens=()
	for p in $(seq "$PROCS"); do
		"$work/loadgen" -endpoint "http://${addrs[$((p - 1))]}" -op "$op" -c "$per" -d "$DURATION" \
			>"$work/$op.$p.out" 2>>"$work/loadgen.log" &
		gens+=($!)
	done
	for g in "${gens[@]}"; do
		wait "$g" || { echo "$op failed:" >&2; cat "$work/loadgen.log" >&2; exit 1; }
	done
	ops=0 p50=0 p99=0
	for p in $(seq "$PROCS"); do
		line=$(cat "$work/$op.$p.out")
		ops=$(awk -v a="$ops" -v b="$(field "$line" ops_per_sec)" 'BEGIN { printf "%.0f", a + b }')
		p50=$(awk -v a="$p50" -v b="$(field "$line" p50_ms)" 'BEGIN { print (b > a ? b : a) }')
		p99=$(awk -v a="$p99" -v b="$(field "$line" p99_ms)" 'BEGIN { print (b > a ? b : a) }')
	done
	share=$(share "$ops" "$base")
	printf '%-6s %10s %9s %9s %12s %6s%%\n' "$op" "$ops" "$p50" "$p99" "$base" "$share"
done
printf '\nload average: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
