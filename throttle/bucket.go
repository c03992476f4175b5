package throttle

// bucket is a token bucket whose rate and ceiling its owner holds, so a
// table's partition buckets share one rate and cost 16 bytes each.
type bucket struct {
	bal  float64 // units; negative is debt
	last int64   // Unix nanoseconds of the last refill
}

// refill adds what accrued since the last refill, up to ceil. A now earlier
// than the last refill (two callers racing between reading the clock and
// taking the lock) adds nothing rather than taking capacity back.
func (b *bucket) refill(now int64, rate, ceil float64) {
	if now <= b.last {
		return
	}
	b.bal += rate * float64(now-b.last) / 1e9
	if b.bal > ceil {
		b.bal = ceil
	}
	b.last = now
}
