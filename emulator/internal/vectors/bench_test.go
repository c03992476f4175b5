package vectors

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkCacheSearch768 is a top-10 search over 100,000 random vectors
// of 768 dimensions in one partition, built at run time.
func BenchmarkCacheSearch768(b *testing.B) {
	const dims, n = 768, 100000
	r := rand.New(rand.NewPCG(1, 1))
	vecs := make([][]float32, n)
	for i := range vecs {
		vecs[i] = randVec(r, dims)
	}
	q := randVec(r, dims)
	for _, dist := range []string{Cosine, Euclidean, DotProduct} {
		b.Run(dist, func(b *testing.B) {
			c := NewCache(dims, dist)
			for i, v := range vecs {
				c.Apply(1, "", fmt.Sprintf("key-%08d", i), v, nil)
			}
			b.ResetTimer()
			for b.Loop() {
				if rs := c.Search("", false, q, 10, nil); len(rs) != 10 {
					b.Fatal(len(rs))
				}
			}
			// Bytes against the vectors' float32 size (1 = no overhead).
			b.ReportMetric(float64(c.Bytes())/float64(n*dims*4), "bytes/raw")
		})
	}
}

// BenchmarkScore768 scores one pair of 768-dimension vectors.
func BenchmarkScore768(b *testing.B) {
	r := rand.New(rand.NewPCG(2, 2))
	q, v := randVec(r, 768), randVec(r, 768)
	nq, nv := Norm(q), Norm(v)
	for _, dist := range []string{Cosine, Euclidean, DotProduct} {
		b.Run(dist, func(b *testing.B) {
			for b.Loop() {
				Score(dist, q, v)
			}
		})
		b.Run(dist+"/norms", func(b *testing.B) {
			for b.Loop() {
				ScoreWithNorms(dist, q, v, nq, nv)
			}
		})
	}
}
