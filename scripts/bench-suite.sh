#!/usr/bin/env bash
# bench-suite.sh runs the test-suite workload (`loadgen -op suite`: per
# test, CreateTable with a GSI, 100 PutItems, 10 Queries, 10 UpdateItems,
# a TransactWriteItems, DeleteTable) against ExtendDB in memory and on
# disk, dynalite and moto, one after another, each on a fresh server of
# its own: TESTS tests on one connection, then TESTS split over four. A
# peer that is not installed is skipped with a message.
#
#   scripts/bench-suite.sh                       # 200 tests
#   TESTS=30 scripts/bench-suite.sh              # quicker
#   PEERS="memory disk" scripts/bench-suite.sh   # ExtendDB only
#   DYNALITE=/path/to/node_modules/.bin/dynalite MOTO=moto_server scripts/bench-suite.sh
#   EXTENDDB=/tmp/extenddb-old PEERS="memory disk" scripts/bench-suite.sh   # a binary built elsewhere
#
# dynalite is `npm install dynalite` (DYNALITE, else `dynalite` on PATH),
# run in memory with its transition delays at 0, as test suites run it;
# it has no TransactWriteItems, so its tests leave the transaction out
# (transact=unsupported). moto is `pip install 'moto[server]'` (MOTO,
# else `moto_server` on PATH). moto takes about a second a test here.
set -euo pipefail

TESTS=${TESTS:-200}
PEERS=${PEERS:-memory disk dynalite moto}
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

if [[ -n ${EXTENDDB:-} ]]; then
	cp "$EXTENDDB" "$work/extenddb"
else
	go build -o "$work/extenddb" ./cmd/extenddb
fi
go build -o "$work/loadgen" ./internal/loadgen
DYNALITE=${DYNALITE:-$(command -v dynalite || true)}
MOTO=${MOTO:-$(command -v moto_server || true)}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $TESTS tests per run"
printf '%-10s %5s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n' server conns seconds ms/test create del put query update txn describe
for peer in $PEERS; do
	port=$(free_port)
	log=$work/$peer.log
	case $peer in
	memory | disk)
		dirflag=(--in-memory)
		[[ $peer == disk ]] && dirflag=(--data-dir "$work/data")
		# shellcheck disable=SC2086 # SERVE_FLAGS is a list of flags
		"$work/extenddb" serve --addr "127.0.0.1:$port" "${dirflag[@]}" --throttle=off --log-level warn $SERVE_FLAGS 2>"$log" &
		;;
	dynalite)
		if [[ -z $DYNALITE ]]; then
			echo "dynalite: not installed (npm install dynalite, then DYNALITE=node_modules/.bin/dynalite); skipped"
			continue
		fi
		"$DYNALITE" --host 127.0.0.1 --port "$port" --createTableMs 0 --deleteTableMs 0 --updateTableMs 0 >"$log" 2>&1 &
		;;
	moto)
		if [[ -z $MOTO ]]; then
			echo "moto: not installed (pip install 'moto[server]'); skipped"
			continue
		fi
		"$MOTO" -H 127.0.0.1 -p "$port" >"$log" 2>&1 &
		;;
	*)
		echo "unknown peer $peer (memory, disk, dynalite or moto)" >&2
		exit 2
		;;
	esac
	server=$!
	wait_port "$port" "$server" "$log"
	for c in 1 4; do
		# A failed test is reported (stderr) and the run goes on.
		line=$("$work/loadgen" -endpoint "http://127.0.0.1:$port" -op suite -tests "$TESTS" -c "$c") || true
		txn=$(field "$line" TransactWriteItems_p50_ms)
		[[ $line == *transact=unsupported* ]] && txn=none
		printf '%-10s %5s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n' "$peer" "$c" "$(field "$line" seconds)" "$(field "$line" ms_per_test)" \
			"$(field "$line" CreateTable_p50_ms)" "$(field "$line" DeleteTable_p50_ms)" "$(field "$line" PutItem_p50_ms)" \
			"$(field "$line" Query_p50_ms)" "$(field "$line" UpdateItem_p50_ms)" "$txn" "$(field "$line" DescribeTable_p50_ms)"
	done
	stop "$server"
	server=
	rm -rf "$work/data"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); the columns after ms/test are p50s in ms"
