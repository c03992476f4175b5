#!/usr/bin/env bash
# bench-turns.sh compares two builds of ExtendDB (or one build with two sets
# of flags) under the same load: both servers run side by side, and the load
# generator takes each operation to one and then the other, after a ceiling
# taken just before, for ROUNDS rounds, swapping which goes first every
# other round so that neither always meets the machine in the same state.
# On a shared machine this is how a change is told from the neighbours:
# compare the two lines of a round, never figures from different runs.
#
#   scripts/bench-turns.sh c1f35ef                 # that commit (A) against the working tree (B)
#   scripts/bench-turns.sh main HEAD               # two commits
#   B_FLAGS="--memtable-size 32MiB" scripts/bench-turns.sh HEAD HEAD   # one build, two sets of flags
#   ROUNDS=4 OPS="put get" DURATION=6s CONNS=16 scripts/bench-turns.sh c1f35ef
#
# Each line: round, op, side (A or B), ops/s, share of the round's ceiling,
# p50 and p99, the server's CPU time per request (cpu_us) and the
# ceiling's (ceil_us). cpu_us is the steadiest figure.
set -euo pipefail

[[ $# -ge 1 ]] || { echo "usage: $0 REV_A [REV_B]  (REV_B: the working tree if omitted)" >&2; exit 2; }
REV_A=$1
REV_B=${2:-}
ROUNDS=${ROUNDS:-3}
OPS=${OPS:-"put get"}
CONNS=${CONNS:-16}
DURATION=${DURATION:-6s}
A_FLAGS=${A_FLAGS:-}
B_FLAGS=${B_FLAGS:-}

cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
work=$(mktemp -d)
pids=()
cleanup() {
	stop "${pids[@]}"
	git worktree prune 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

# build REV OUT builds cmd/extenddb as of REV (the working tree if empty).
build() {
	if [[ -z $1 ]]; then
		go build -o "$2" ./cmd/extenddb
		return
	fi
	local tree
	tree="$work/tree-$(basename "$2")"
	git worktree add -q --detach "$tree" "$1"
	(cd "$tree" && go build -o "$2" ./cmd/extenddb)
	git worktree remove --force "$tree"
}
build "$REV_A" "$work/extenddb-a"
build "$REV_B" "$work/extenddb-b"
go build -o "$work/loadgen" ./internal/loadgen

# start SIDE FLAGS starts that side's server; sets port_SIDE and pid_SIDE.
start() {
	local port pid
	port=$(free_port)
	# shellcheck disable=SC2086 # the flags are a list
	"$work/extenddb-$1" serve --addr "127.0.0.1:$port" --data-dir "$work/data-$1" --throttle=off \
		--log-format json $2 2>"$work/server-$1.log" &
	pid=$!
	pids+=("$pid")
	wait_port "$port" "$pid" "$work/server-$1.log"
	printf -v "port_$1" %s "$port"
	printf -v "pid_$1" %s "$pid"
}
start a "$A_FLAGS"
start b "$B_FLAGS"
"$work/loadgen" -serve-canned 127.0.0.1:0 2>"$work/canned.log" &
pids+=($!)
canned=$!
caddr=$(canned_addr "$work/canned.log")

printf 'A: %s %s\nB: %s %s\n' "${REV_A}" "$A_FLAGS" "${REV_B:-the working tree}" "$B_FLAGS"
printf 'load average: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
printf '%d connections, %s per op\n\n' "$CONNS" "$DURATION"
printf '%-5s %-9s %-4s %10s %7s %9s %9s %7s %7s\n' round op side ops/s share p50_ms p99_ms cpu_us ceil_us
for round in $(seq "$ROUNDS"); do
	sides="a b"
	((round % 2 == 0)) && sides="b a"
	for op in $OPS; do
		ceiling=$("$work/loadgen" -canned -endpoint "$caddr" -c "$CONNS" -d "$DURATION" -pid "$canned")
		base=$(field "$ceiling" ops_per_sec)
		for side in $sides; do
			port_var=port_$side pid_var=pid_$side
			line=$("$work/loadgen" -endpoint "http://127.0.0.1:${!port_var}" -op "$op" -c "$CONNS" -d "$DURATION" \
				-pid "${!pid_var}" 2>>"$work/loadgen.log") || {
				echo "$op failed on ${side^^}:" >&2; cat "$work/loadgen.log" >&2; exit 1
			}
			ops=$(field "$line" ops_per_sec)
			share=$(share "$ops" "$base")
			printf '%-5s %-9s %-4s %10s %6s%% %9s %9s %7s %7s\n' "$round" "$op" "${side^^}" "$ops" "$share" \
				"$(field "$line" p50_ms)" "$(field "$line" p99_ms)" "$(field "$line" server_cpu_us)" "$(field "$ceiling" server_cpu_us)"
		done
	done
done
printf '\nload average: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
