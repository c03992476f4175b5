package metrics

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkNew: what building the metrics costs serve at start, with and
// without the Go runtime's and the process's collectors.
func BenchmarkNew(b *testing.B) {
	for _, goRuntime := range []bool{false, true} {
		name := "app"
		if goRuntime {
			name = "app+go+process"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				New(Options{GoRuntime: goRuntime})
			}
		})
	}
}

// TestRuntimeCollectorsOnFirstScrape: the Go runtime's metrics, registered
// on the first scrape, are in it; without GoRuntime they never are.
func TestRuntimeCollectorsOnFirstScrape(t *testing.T) {
	for _, goRuntime := range []bool{true, false} {
		m := New(Options{GoRuntime: goRuntime})
		for scrape := range 2 {
			rec := httptest.NewRecorder()
			m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
			if got := strings.Contains(rec.Body.String(), "\ngo_goroutines "); got != goRuntime {
				t.Errorf("GoRuntime %v, scrape %d: go_goroutines served: %v", goRuntime, scrape+1, got)
			}
		}
	}
}
