package wire

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/extenddb/extenddb/emulator"
)

// TestBufferPoolReuses: a buffer put back is handed out again (sync.Pool
// may drop one now and then, hence the tries), and one over the bound is
// not kept.
func TestBufferPoolReuses(t *testing.T) {
	var bp bufferPool
	reused := false
	for range 20 {
		pb := bp.get()
		b := append(pb.b, make([]byte, 4096)...)
		bp.put(pb, b)
		if got := bp.get(); cap(got.b) == cap(b) && &got.b[:1][0] == &b[0] {
			reused = true
			break
		}
	}
	if !reused {
		t.Error("a buffer put back was never handed out again")
	}
	for range 20 {
		pb := bp.get()
		bp.put(pb, make([]byte, 0, maxPooledBuffer+1))
		if cap(bp.get().b) > maxPooledBuffer {
			t.Fatal("a buffer over maxPooledBuffer was kept")
		}
	}
}

// TestPooledBuffersAreNotShared: concurrent puts and gets of items of
// many sizes through the handler each get their own bytes back, so no
// request body or response buffer is reused while still in use.
func TestPooledBuffersAreNotShared(t *testing.T) {
	h := newTestHandlerEngine(t, Options{}, emulator.Options{Throttle: emulator.ThrottleOptions{Off: true}}).routes()
	if r := do(h, "POST", "DynamoDB_20120810.CreateTable", contentTypeJSON10, `{"TableName":"Tbl","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}`); r.status != 200 {
		t.Fatal(r.body)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 40 {
				key := fmt.Sprintf("g%d-%d", g, i)
				item := `{"data":{"S":"` + strings.Repeat(string(rune('a'+(g+i)%26)), 50+(g*977+i*331)%8000) + `"},"pk":{"S":"` + key + `"}}`
				if r := do(h, "POST", "DynamoDB_20120810.PutItem", contentTypeJSON10, `{"TableName":"Tbl","Item":`+item+`}`); r.status != 200 || r.body != "{}" {
					t.Errorf("put %s: %d %s", key, r.status, r.body)
					return
				}
				r := do(h, "POST", "DynamoDB_20120810.GetItem", contentTypeJSON10, `{"TableName":"Tbl","Key":{"pk":{"S":"`+key+`"}}}`)
				if want := `{"Item":` + item + `}`; r.status != 200 || r.body != want {
					t.Errorf("get %s: %d, body of %d bytes, want %d", key, r.status, len(r.body), len(want))
					return
				}
			}
		})
	}
	wg.Wait()
}
