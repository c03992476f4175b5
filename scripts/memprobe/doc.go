// Command memprobe measures the resident memory of a running extenddb:
// idle, while and after loading N items through BatchWriteItem, and while
// and after a full Scan of them. It samples /proc/PID/status (VmRSS) every
// 100 ms and reads the server's /metrics (Go heap, Pebble block cache and
// memtables) at the end of each phase. scripts/memory.sh runs it against a
// fresh server; run by hand:
//
//	go run ./scripts/memprobe -endpoint http://127.0.0.1:8000 -pid PID -items 1000000
package main
