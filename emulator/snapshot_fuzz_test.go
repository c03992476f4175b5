package emulator

import (
	"context"
	"encoding/binary"
	"hash/crc32"
	"testing"

	"github.com/extenddb/extenddb/pebblestore"
)

// FuzzParseSnapshot: any bytes (an upload to /_extenddb/restore) are
// refused or parsed without panicking, and a parsed snapshot's keys can be
// walked.
func FuzzParseSnapshot(f *testing.F) {
	st, err := pebblestore.Open(pebblestore.Options{InMemory: true})
	if err != nil {
		f.Fatal(err)
	}
	e, err := New(Options{Store: st, TTLInterval: -1})
	if err != nil {
		f.Fatal(err)
	}
	if _, err := e.CreateTable(context.Background(), nsA, simpleTable("fuzz")); err != nil {
		f.Fatal(err)
	}
	snap, err := e.Snapshot(context.Background())
	if err != nil {
		f.Fatal(err)
	}
	_ = e.Close()
	_ = st.Close()
	f.Add(snap.Bytes())
	f.Add(snapshotMagic)
	f.Add([]byte("not a snapshot"))
	f.Fuzz(func(t *testing.T, b []byte) {
		check := func(b []byte) {
			s, err := ParseSnapshot(b)
			if err != nil {
				return
			}
			n := 0
			if err := s.each(func(k, v []byte) error { n++; return nil }); err != nil || n != s.Keys() {
				t.Fatalf("a parsed snapshot walks %d keys (%v), says %d", n, err, s.Keys())
			}
		}
		check(b)
		// The same bytes with a good checksum, so the records' decoding
		// is reached.
		if len(b) >= 4 {
			body := append([]byte(nil), b[:len(b)-4]...)
			check(binary.BigEndian.AppendUint32(body, crc32.Checksum(body, castagnoli)))
		}
	})
}
