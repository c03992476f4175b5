package ttl

import (
	"testing"
	"time"

	"github.com/extenddb/extenddb/emulator/av"
)

func TestTTLExpired(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	n := func(s string) av.Item { return av.Item{"e": {Type: av.TypeN, S: s}} }
	for _, tc := range []struct {
		name string
		item av.Item
		want bool
	}{
		{"past", n("1699999999"), true},
		{"fraction past", n("1699999999.9"), true},
		{"now", n("1700000000"), false},
		{"future", n("1700000001"), false},
		{"exponent past", n("1.6E9"), true},
		{"under five years past", n("1545000000"), true},
		{"over five years past", n("1540000000"), false},
		{"ancient", n("100"), false},
		{"negative", n("-5"), false},
		{"missing", av.Item{}, false},
		{"string", av.Item{"e": {Type: av.TypeS, S: "1"}}, false},
	} {
		if got := Expired(tc.item, "e", now); got != tc.want {
			t.Errorf("%s: Expired = %v, want %v", tc.name, got, tc.want)
		}
	}
}
