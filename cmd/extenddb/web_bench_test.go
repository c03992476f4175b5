package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/pebblestore"
	"github.com/extenddb/extenddb/wire"
)

// BenchmarkWebIdle: PutItem and GetItem through the whole HTTP handler with
// the console and /metrics off, and on but with nobody watching (the
// recorder and the metrics observe every request; nothing is rendered).
func BenchmarkWebIdle(b *testing.B) {
	for _, mode := range []string{"off", "on"} {
		b.Run("web="+mode, func(b *testing.B) {
			st, err := pebblestore.Open(pebblestore.Options{InMemory: true})
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			w := newWeb(webConfig{console: mode, metrics: mode}, false)
			// Refusals off: the benchmark measures the hooks, not the buckets.
			eng, err := emulator.New(emulator.Options{Store: st, Observer: w.observer(), Throttle: emulator.ThrottleOptions{Off: true}})
			if err != nil {
				b.Fatal(err)
			}
			defer eng.Close()
			ns := api.Namespace{Account: wire.DefaultAccount, Region: wire.DefaultRegion}
			var o wire.Options
			if err := w.mount(eng, st, ns, nil, &o); err != nil {
				b.Fatal(err)
			}
			h := wire.NewHandler(eng, o)
			call := func(target, body string) {
				r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
				r.Header.Set("X-Amz-Target", "DynamoDB_20120810."+target)
				r.Header.Set("Content-Type", "application/x-amz-json-1.0")
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, r)
				if rec.Code != http.StatusOK {
					b.Fatalf("%s: %d %s", target, rec.Code, rec.Body)
				}
			}
			call("CreateTable", `{"TableName":"bench","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}`)
			put := `{"TableName":"bench","Item":{"pk":{"S":"k"},"v":{"S":"` + strings.Repeat("x", 100) + `"}}}`
			get := `{"TableName":"bench","Key":{"pk":{"S":"k"}}}`
			b.Run("PutItem", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					call("PutItem", put)
				}
			})
			b.Run("GetItem", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					call("GetItem", get)
				}
			})
		})
	}
}
