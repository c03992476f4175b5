# lib.sh: shell functions the measuring scripts share. Source it.

# free_port prints a loopback TCP port nothing listens on.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_port PORT PID LOG waits until 127.0.0.1:PORT accepts connections.
# The server is given its port rather than asked for it in its log, so
# this works at any --log-level. If PID exits first, or after 20 s, LOG is
# printed and the script stops.
wait_port() {
	for _ in $(seq 400); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then
			return
		fi
		kill -0 "$2" 2>/dev/null || { echo "the server exited:" >&2; cat "$3" >&2; exit 1; }
		sleep 0.05
	done
	echo "nothing listens on port $1:" >&2
	cat "$3" >&2
	exit 1
}

# canned_addr LOG prints the URL `loadgen -serve-canned` logged.
canned_addr() {
	local a=
	for _ in $(seq 200); do
		a=$(grep -o 'http://[0-9.:]*' "$1" | head -1) || true
		[[ -n $a ]] && { echo "$a"; return; }
		sleep 0.05
	done
	echo "the canned server never said where it is" >&2
	cat "$1" >&2
	exit 1
}

# stop PID... interrupts each server still running and waits for it to exit
# (they are this shell's children).
stop() {
	local pid
	for pid in "$@"; do
		if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
			kill -INT "$pid"
			wait "$pid" || true
		fi
	done
}

# field LINE KEY prints KEY's value from loadgen's key=value summary LINE.
field() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p"; }

# share OPS CEILING prints OPS as a whole percentage of CEILING.
share() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", (b > 0 ? 100 * a / b : 0) }'; }
