package kv

import (
	"bytes"
	"testing"
)

func TestPrefixEnd(t *testing.T) {
	for _, c := range []struct{ p, want []byte }{
		{[]byte("a"), []byte("b")},
		{[]byte{1, 0xff}, []byte{2}},
		{[]byte{1, 2, 0xff, 0xff}, []byte{1, 3}},
		{[]byte{0xff, 0xff}, nil},
		{nil, nil},
	} {
		p := bytes.Clone(c.p)
		if got := PrefixEnd(p); !bytes.Equal(got, c.want) || (got == nil) != (c.want == nil) {
			t.Errorf("PrefixEnd(%x) = %x, want %x", c.p, got, c.want)
		}
		if !bytes.Equal(p, c.p) {
			t.Errorf("PrefixEnd modified its argument: %x", p)
		}
	}
}
