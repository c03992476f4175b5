#!/usr/bin/env bash
# bench-peers.sh measures, side by side in one run, what a test suite feels
# of ExtendDB (in memory and on disk), dynalite and moto: the p50 of
# PutItem, GetItem and Query on one keep-alive connection (`loadgen -c 1`,
# 1 KB items), the time from exec to the first answered request (and the
# CPU time the server used by then: steadier on a busy machine) and the
# resident memory of an idle empty server (`memprobe -start`: the median
# of STARTS starts; RSS, and its anonymous and file-backed parts). The
# canned ceiling (`loadgen -serve-canned`) is measured first. A peer that
# is not installed is skipped with a message. scripts/bench-suite.sh runs
# the test-suite workload against the same servers.
#
#   scripts/bench-peers.sh
#   DURATION=3s STARTS=5 PEERS="memory disk" scripts/bench-peers.sh
#   EXTENDDB=/tmp/extenddb-old scripts/bench-peers.sh   # a binary built elsewhere (an older commit)
#
# dynalite and moto are found as scripts/bench-suite.sh finds them
# (DYNALITE, MOTO, else PATH).
set -euo pipefail

DURATION=${DURATION:-3s}
STARTS=${STARTS:-5}
PEERS=${PEERS:-memory disk dynalite moto}

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

# The binary is copied with cat, whatever built it: how many of its pages
# an idle server maps (file_mb) depends on the page-cache folios its
# writer left (the linker's writes leave 2 MB ones, mapped whole), and a
# copy through cat gives every build the same.
if [[ -z ${EXTENDDB:-} ]]; then
	go build -o "$work/extenddb.built" ./cmd/extenddb
	EXTENDDB=$work/extenddb.built
fi
cat "$EXTENDDB" >"$work/extenddb"
chmod +x "$work/extenddb"
go build -o "$work/loadgen" ./internal/loadgen
go build -o "$work/memprobe" ./scripts/memprobe
DYNALITE=${DYNALITE:-$(command -v dynalite || true)}
MOTO=${MOTO:-$(command -v moto_server || true)}

# command PEER prints the command line that serves PEER on {port} / {dir}.
command_of() {
	case $1 in
	memory) echo "$work/extenddb serve --addr 127.0.0.1:{port} --in-memory --throttle=off --log-level warn" ;;
	disk) echo "$work/extenddb serve --addr 127.0.0.1:{port} --data-dir {dir} --throttle=off --log-level warn" ;;
	dynalite) echo "$DYNALITE --host 127.0.0.1 --port {port} --createTableMs 0 --deleteTableMs 0 --updateTableMs 0" ;;
	moto) echo "$MOTO -H 127.0.0.1 -p {port}" ;;
	esac
}

load() { # load PORT OP [PID]
	local line
	line=$("$work/loadgen" -endpoint "http://127.0.0.1:$1" -op "$2" -c 1 -d "$DURATION" -partitions 100 2>/dev/null) || true
	field "$line" p50_ms
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); loadgen -c 1 -d $DURATION, 1 KB items; $STARTS starts each"
printf '%-10s %9s %9s %9s %13s %10s %8s %8s %8s\n' server put_p50 get_p50 query_p50 first_answer start_cpu rss_mb anon_mb file_mb
port=$(free_port)
"$work/loadgen" -serve-canned "127.0.0.1:$port" 2>"$work/canned.log" &
server=$!
wait_port "$port" "$server" "$work/canned.log"
canned=$("$work/loadgen" -canned -endpoint "http://127.0.0.1:$port" -c 1 -d "$DURATION")
stop "$server"
server=
printf '%-10s %9s %9s %9s %13s %10s %8s %8s %8s\n' canned "" "$(field "$canned" p50_ms)" "" "" "" "" "" ""
for peer in $PEERS; do
	case $peer in
	dynalite) [[ -n $DYNALITE ]] || { echo "dynalite: not installed (npm install dynalite, then DYNALITE=node_modules/.bin/dynalite); skipped"; continue; } ;;
	moto) [[ -n $MOTO ]] || { echo "moto: not installed (pip install 'moto[server]'); skipped"; continue; } ;;
	memory | disk) ;;
	*) echo "unknown peer $peer (memory, disk, dynalite or moto)" >&2; exit 2 ;;
	esac
	cmd=$(command_of "$peer")
	# Start-up and idle memory first, on fresh servers.
	# shellcheck disable=SC2086 # cmd is a command line
	start=$("$work/memprobe" -start ${cmd%% *} -runs "$STARTS" -idle 2s -- ${cmd#* } | tail -1)
	first=$(sed -n 's/^first answer ms: median \([0-9.]*\).*/\1/p' <<<"$start")
	cpu=$(sed -n 's/.*CPU ms by then: median \([0-9.]*\).*/\1/p' <<<"$start")
	rss=$(sed -n 's/.*RSS median \([0-9.]*\).*/\1/p' <<<"$start")
	anon=$(sed -n 's/.*anonymous median \([0-9.]*\).*/\1/p' <<<"$start")
	file=$(sed -n 's/.*file-backed median \([0-9.]*\).*/\1/p' <<<"$start")
	# Then the requests, on one server.
	port=$(free_port)
	mkdir -p "$work/data"
	c=${cmd//\{port\}/$port}
	# shellcheck disable=SC2086 # c is a command line
	${c//\{dir\}/$work/data} >"$work/$peer.log" 2>&1 &
	server=$!
	wait_port "$port" "$server" "$work/$peer.log"
	put=$(load "$port" put)
	get=$(load "$port" get)
	query=$(load "$port" query)
	stop "$server"
	server=
	rm -rf "$work/data"
	printf '%-10s %9s %9s %9s %13s %10s %8s %8s %8s\n' "$peer" "$put" "$get" "$query" "$first" "$cpu" "$rss" "$anon" "$file"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); p50s, first_answer and start_cpu (the server's CPU time by then) in ms"
