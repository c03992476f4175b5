#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster for the PostgreSQL store's tests
# (pgstore, kv/kvtest through internal/pgtest) and prints the line to export:
#
#   EXTENDDB_TEST_POSTGRES=postgres://postgres@127.0.0.1:PORT/postgres?sslmode=disable
#
# The cluster lives in a temporary directory (printed on stderr, with the
# command that stops it) on a free loopback port, with trust authentication
# and fsync off: it is for tests, never for data. initdb is taken from PATH
# or /usr/lib/postgresql/*/bin. initdb refuses to run as root, so as root the
# cluster belongs to the user postgres.
#
#   eval "export $(scripts/pg-test-cluster.sh)"
#   go test -p 1 ./pgstore/
#   DIR/stop                    # DIR as printed on stderr
#
# With PG_TEST_CLUSTER_DIR set, the cluster goes in that (empty) directory.
set -euo pipefail

bindir=""
if command -v initdb >/dev/null 2>&1; then
  bindir=$(dirname "$(command -v initdb)")
else
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    [ -x "$d/initdb" ] && bindir=$d && break
  done
fi
if [ -z "$bindir" ]; then
  echo "pg-test-cluster: no initdb on PATH or under /usr/lib/postgresql/*/bin (apt-get install postgresql)" >&2
  exit 1
fi

# A free loopback port: bind port 0 and read back what the kernel chose.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
  echo $((20000 + RANDOM % 20000)))

dir=${PG_TEST_CLUSTER_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/extenddb-pg.XXXXXX")}
run=()
if [ "$(id -u)" -eq 0 ]; then
  id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
  chown postgres "$dir"
  run=(runuser -u postgres --)
fi

"${run[@]}" "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust --no-sync -E UTF8 >"$dir/initdb.log" 2>&1 || {
  cat "$dir/initdb.log" >&2; exit 1
}
# The socket goes in the cluster's directory: /var/run/postgresql may not
# exist or belong to someone else.
"${run[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=on -c full_page_writes=off -c max_connections=200" \
  start >/dev/null || { cat "$dir/postgres.log" >&2; exit 1; }

printf '#!/bin/sh\nexec %s %q -D %q -m fast stop\n' "${run[*]}" "$bindir/pg_ctl" "$dir/data" >"$dir/stop"
chmod +x "$dir/stop"
echo "pg-test-cluster: data in $dir/data; stop with: $dir/stop" >&2
echo "EXTENDDB_TEST_POSTGRES=postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
