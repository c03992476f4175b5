package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/extenddb/extenddb/pebblestore"
	"github.com/rs/zerolog"
)

func TestByteSize(t *testing.T) {
	for in, want := range map[string]byteSize{
		"64MiB": 64 << 20, "1GiB": 1 << 30, "512KiB": 512 << 10, "16M": 16 << 20, "2G": 2 << 30,
		"4096": 4096, "100B": 100, " 8 MiB ": 8 << 20,
	} {
		var b byteSize
		if err := b.Set(in); err != nil || b != want {
			t.Errorf("Set(%q) = %d, %v; want %d", in, b, err, want)
		}
	}
	for _, in := range []string{"", "MiB", "-1MiB", "1.5GiB", "1TiB", "99999999999GiB", "ten"} {
		var b byteSize
		if err := b.Set(in); err == nil {
			t.Errorf("Set(%q) = %d, want an error", in, b)
		}
	}
	for b, want := range map[byteSize]string{64 << 20: "64MiB", 1 << 30: "1GiB", 1536 << 10: "1536KiB", 1000: "1000"} {
		if got := b.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", int64(b), got, want)
		}
	}
}

func TestCacheAndMemTableFlags(t *testing.T) {
	c, err := parseServe(nil, env())
	if err != nil || c.cacheSize != pebblestore.DefaultCacheSize || c.memTableSize != pebblestore.DefaultMemTableSize {
		t.Fatalf("defaults: %v %v %v", c.cacheSize, c.memTableSize, err)
	}
	c, err = parseServe([]string{"--cache-size", "1GiB"}, env("EXTENDDB_MEMTABLE_SIZE", "32MiB"))
	if err != nil || c.cacheSize != 1<<30 || c.memTableSize != 32<<20 {
		t.Fatalf("set: %v %v %v", c.cacheSize, c.memTableSize, err)
	}
	for _, args := range [][]string{{"--cache-size", "0"}, {"--cache-size", "512KiB"}, {"--memtable-size", "4GiB"}, {"--memtable-size", "1KiB"}, {"--cache-size", "lots"}} {
		if _, err := parseServe(args, env()); err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(args[0], "-")) {
			t.Errorf("%v: %v, want an error naming the flag", args, err)
		}
	}
}

// TestCacheAndMemTableReachPebble: the store serve opens has the sizes
// the flags give: 1 MiB memtables flush a 2 MiB load, the default 4 MiB
// ones do not; a 1 MiB cache holds no more than that after reading it all
// back. Pebble's memtables grow 256 KiB, 512 KiB, 1 MiB, … up to the
// configured size, and it flushes once the full ones reach half of it:
// 2 MiB of writes fill 1.75 MiB of them, under the default's 2 MiB but
// over 1 MiB's 512 KiB. The flush runs in the background, so the flushing
// case waits for it; the other cannot flush whatever the timing.
func TestCacheAndMemTableReachPebble(t *testing.T) {
	for _, tc := range []struct {
		args          []string
		flushes, full bool // whether the load flushes; whether the cache ends above 1 MiB
	}{
		{nil, false, true},
		{[]string{"--cache-size", "1MiB", "--memtable-size", "1MiB"}, true, false},
	} {
		t.Run(fmt.Sprint(tc.args), func(t *testing.T) {
			cfg, err := parseServe(append([]string{"--data-dir", t.TempDir()}, tc.args...), env())
			if err != nil {
				t.Fatal(err)
			}
			_, st, err := openStore(cfg, zerolog.Nop())
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			value := bytes.Repeat([]byte("v"), 1000)
			for i := range 2048 {
				b := st.NewBatch()
				if err := b.Set(fmt.Appendf(nil, "k%06d", i), value); err != nil {
					t.Fatal(err)
				}
				if err := b.Commit(false); err != nil {
					t.Fatal(err)
				}
				_ = b.Close()
			}
			for deadline := time.Now().Add(10 * time.Second); tc.flushes && st.Metrics().Flush.Count == 0 && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
			}
			if flushed := st.Metrics().Flush.Count > 0; flushed != tc.flushes {
				t.Errorf("flushes %d after 2 MiB of writes", st.Metrics().Flush.Count)
			}
			if err := st.Flush(); err != nil {
				t.Fatal(err)
			}
			for i := range 2048 {
				if _, err := st.Get(fmt.Appendf(nil, "k%06d", i)); err != nil {
					t.Fatal(err)
				}
			}
			if size := st.Metrics().BlockCache.Size; (size > 1<<20) != tc.full {
				t.Errorf("block cache holds %d bytes after reading 2 MiB back", size)
			}
		})
	}
}
