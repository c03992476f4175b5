// Command loadgen drives a DynamoDB endpoint with raw JSON 1.0 requests over
// keep-alive HTTP and prints the throughput and latency percentiles, so the
// server's speed can be compared with a ceiling measured in the same run:
//
//	go run ./internal/loadgen -endpoint http://127.0.0.1:8000 -op get -c 16 -d 10s
//	go run ./internal/loadgen -canned -c 16 -d 10s   # the ceiling
//
// -canned serves a fixed 1 KB GetItem response with net/http on a loopback
// port in this process and loads it the same way: what a Go HTTP server and
// this client can do on this machine with no DynamoDB work at all. Only the
// ratio of an operation to the ceiling within one run means anything on a
// shared machine; scripts/bench-ceiling.sh runs both back to back.
//
// It is a main package under internal/ rather than a subcommand of extenddb
// so the shipped binary carries no load generator and the generator imports
// nothing of ours: it sees the server only as a client does, over HTTP.
// The requests carry the headers the SDK sends (X-Amz-Target, Content-Type,
// X-Amz-Date and an Authorization header whose credential scope names the
// Region); the signature is not a real one, as ExtendDB does not check it.
package main
