package vectors

// The loops every score spends its time in. They take float32 vectors (or
// a query already widened to float64) and sum in float64, eight elements a
// round into four sums, so that a stored vector scores the same whether the
// query is float32 or float64 (the widening is exact) and Score and Cache
// agree to the bit. The re-slicing lets the compiler drop the bounds checks.

// dot is the dot product of q and v (len(v) >= len(q)).
func dot[T float32 | float64](q []T, v []float32) float64 {
	n := len(q)
	v = v[:n]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+8 <= n; i += 8 {
		a := q[i : i+8 : i+8]
		b := v[i : i+8 : i+8]
		s0 += float64(a[0]) * float64(b[0])
		s1 += float64(a[1]) * float64(b[1])
		s2 += float64(a[2]) * float64(b[2])
		s3 += float64(a[3]) * float64(b[3])
		s0 += float64(a[4]) * float64(b[4])
		s1 += float64(a[5]) * float64(b[5])
		s2 += float64(a[6]) * float64(b[6])
		s3 += float64(a[7]) * float64(b[7])
	}
	for ; i < n; i++ {
		s0 += float64(q[i]) * float64(v[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// l2sq is the squared L2 distance between q and v (len(v) >= len(q)).
func l2sq[T float32 | float64](q []T, v []float32) float64 {
	n := len(q)
	v = v[:n]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+8 <= n; i += 8 {
		a := q[i : i+8 : i+8]
		b := v[i : i+8 : i+8]
		d0 := float64(a[0]) - float64(b[0])
		d1 := float64(a[1]) - float64(b[1])
		d2 := float64(a[2]) - float64(b[2])
		d3 := float64(a[3]) - float64(b[3])
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
		d0 = float64(a[4]) - float64(b[4])
		d1 = float64(a[5]) - float64(b[5])
		d2 = float64(a[6]) - float64(b[6])
		d3 = float64(a[7]) - float64(b[7])
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
	}
	for ; i < n; i++ {
		d := float64(q[i]) - float64(v[i])
		s0 += d * d
	}
	return (s0 + s1) + (s2 + s3)
}
