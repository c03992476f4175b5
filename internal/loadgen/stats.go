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
	return fmt.Sprintf("op=%s ops=%d errors=%d seconds=%.2f ops_per_sec=%.0f p50_ms=%.3f p99_ms=%.3f",
		r.op, r.ops, r.errors, r.elapsed.Seconds(), r.opsPerSec(), ms(r.p50), ms(r.p99))
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
