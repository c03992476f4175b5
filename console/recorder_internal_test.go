package console

import (
	"fmt"
	"testing"
)

// TestHottestRanking: keys rank by throttled requests first, then by
// consumed units, and the key of the latest throttle event stays among
// those shown however low it ranks.
func TestHottestRanking(t *testing.T) {
	var keys []HotKey
	for i := range 12 {
		keys = append(keys, HotKey{Key: fmt.Sprintf("busy%02d", i), Read: float64(100 + i)})
	}
	keys = append(keys,
		HotKey{Key: "throttled", Read: 1, Throttled: 3},
		HotKey{Key: "now", Write: 0.5}, // its throttle just happened; counts halved away
	)
	events := []ThrottleMark{{Key: "throttled"}, {Key: "now"}, {}}
	got := hottest(keys, events, 10)
	if len(got) != 10 {
		t.Fatalf("%d keys shown, want 10", len(got))
	}
	if got[0].Key != "throttled" {
		t.Errorf("first %q, want the throttled key before busier ones", got[0].Key)
	}
	if got[1].Key != "busy11" || got[2].Key != "busy10" {
		t.Errorf("then %q, %q: want the most consumed", got[1].Key, got[2].Key)
	}
	if got[9].Key != "now" {
		t.Errorf("last %q, want the key being throttled now", got[9].Key)
	}
}
