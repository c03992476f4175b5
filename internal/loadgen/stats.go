package main

import (
	"fmt"
	"slices"
	"time"
)

// result is one run's outcome.
type result struct {
	op        string
	ops       int           // successful requests
	errors    int           // requests that failed (transport error or non-200)
	elapsed   time.Duration // wall time of the measured phase
	p50, p99  time.Duration
	firstFail string // the first failure, to say why
	// serverCPU is the CPU time the -pid process used in the measured
	// phase; cpuMeasured says whether it was measured.
	serverCPU   time.Duration
	cpuMeasured bool
}

// cpuPerOp is the server's CPU time per request of the measured phase,
// failed ones included: they cost the server too.
func (r result) cpuPerOp() time.Duration {
	if n := r.ops + r.errors; n > 0 {
		return r.serverCPU / time.Duration(n)
	}
	return 0
}

// opsPerSec is successful requests per second of the measured phase.
func (r result) opsPerSec() float64 {
	if r.elapsed <= 0 {
		return 0
	}
	return float64(r.ops) / r.elapsed.Seconds()
}

// line is the one-line summary; scripts/bench-ceiling.sh reads its key=value
// fields, so their names are stable.
func (r result) line() string {
	s := fmt.Sprintf("op=%s ops=%d errors=%d seconds=%.2f ops_per_sec=%.0f p50_ms=%.3f p99_ms=%.3f",
		r.op, r.ops, r.errors, r.elapsed.Seconds(), r.opsPerSec(), ms(r.p50), ms(r.p99))
	if r.cpuMeasured {
		s += fmt.Sprintf(" server_cpu_us=%.1f", float64(r.cpuPerOp())/float64(time.Microsecond))
	}
	return s
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// percentile is the nearest-rank q-th percentile (0 < q <= 100) of sorted
// latencies; zero for none. Nearest rank keeps p99 an observed latency.
func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(q/100*float64(len(sorted)) + 0.999999999)
	rank = max(1, min(rank, len(sorted)))
	return sorted[rank-1]
}

// summarize merges the workers' latencies and fills p50 and p99.
func summarize(r *result, perWorker [][]time.Duration) {
	var all []time.Duration
	for _, l := range perWorker {
		all = append(all, l...)
	}
	slices.Sort(all)
	r.p50 = percentile(all, 50)
	r.p99 = percentile(all, 99)
}
