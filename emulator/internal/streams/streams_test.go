package streams

import "testing"

func TestSequenceNumbers(t *testing.T) {
	for _, n := range []uint64{0, 1, 42, 1 << 40, ^uint64(0)} {
		s := formatSeq(n)
		if len(s) != 21 {
			t.Errorf("formatSeq(%d) = %q: %d digits", n, s, len(s))
		}
		if got, ok := parseSeq(s); !ok || got != n {
			t.Errorf("parseSeq(%q) = %d, %v", s, got, ok)
		}
		if n > 0 && formatSeq(n-1) >= s {
			t.Errorf("formatSeq not increasing at %d", n)
		}
	}
	for _, bad := range []string{"", "1", "200000000000000000001", "1000000000000000000x1", "1000000000000000000001"} {
		if _, ok := parseSeq(bad); ok {
			t.Errorf("parseSeq(%q) accepted", bad)
		}
	}
}

func FuzzDecodeIterator(f *testing.F) {
	f.Add(shardIterator{Arn: "arn:aws:dynamodb:us-east-1:1:table/T/stream/x", Shard: "s", Pos: 3, Created: 9}.encode())
	f.Add("garbage")
	f.Add("a|v1|")
	f.Fuzz(func(t *testing.T, s string) {
		it, ok := decodeIterator(s)
		if ok {
			if again, ok2 := decodeIterator(it.encode()); !ok2 || again != it {
				t.Fatalf("round trip of %q: %+v %v", s, again, ok2)
			}
		}
	})
}
