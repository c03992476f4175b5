package kvtest

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/extenddb/extenddb/kv"
)

// Opener returns a new, empty store. The suite closes it and fails if Close
// reports an error (for example a leaked iterator or snapshot).
type Opener func(t *testing.T) kv.Store

// Reopener returns an open function that opens the same durable store on
// every call. The suite closes each store before opening it again.
type Reopener func(t *testing.T) func(t *testing.T) kv.Store

// RunConformance runs every behaviour of the kv contract against stores made
// by open, each case in its own subtest on a fresh store.
func RunConformance(t *testing.T, open Opener) {
	t.Helper()
	cases := []struct {
		name string
		fn   func(t *testing.T, s kv.Store)
	}{
		{"GetMissing", testGetMissing},
		{"SetGetOverwrite", testSetGetOverwrite},
		{"EmptyValue", testEmptyValue},
		{"GetReturnsCopy", testGetReturnsCopy},
		{"AppendValue", testAppendValue},
		{"BatchCopiesArguments", testBatchCopiesArguments},
		{"BatchInvisibleUntilCommit", testBatchInvisibleUntilCommit},
		{"BatchEmpty", testBatchEmpty},
		{"BatchCloseDiscards", testBatchCloseDiscards},
		{"BatchCommitSync", testBatchCommitSync},
		{"Delete", testDelete},
		{"DeleteRange", testDeleteRange},
		{"BatchOrder", testBatchOrder},
		{"BatchAtomicity", testBatchAtomicity},
		{"IterForward", testIterForward},
		{"IterBackward", testIterBackward},
		{"IterBounds", testIterBounds},
		{"IterSeek", testIterSeek},
		{"IterDirectionChange", testIterDirectionChange},
		{"IterConsistentView", testIterConsistentView},
		{"BinaryKeyOrder", testBinaryKeyOrder},
		{"SnapshotIsolation", testSnapshotIsolation},
		{"ConcurrentWriters", testConcurrentWriters},
		{"UpdateCommits", testUpdateCommits},
		{"UpdateErrorDiscards", testUpdateErrorDiscards},
		{"UpdateReadsExcludeOwnWrites", testUpdateReadsExcludeOwnWrites},
		{"SharedUpdateCounter", testSharedUpdateCounter},
		{"SharedUpdateCreateIfAbsent", testSharedUpdateCreateIfAbsent},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := open(t)
			c.fn(t, s)
			if err := s.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
		})
	}
	t.Run("Closed", func(t *testing.T) { testClosed(t, open(t)) })
}

// RunPersistence checks that committed writes, synced or not, survive a
// clean Close and reopen.
func RunPersistence(t *testing.T, reopener Reopener) {
	t.Helper()
	t.Run("ReopenAfterClose", func(t *testing.T) {
		open := reopener(t)
		s := open(t)
		for _, sync := range []bool{false, true} {
			b := s.NewBatch()
			must(t, b.Set(fmt.Appendf(nil, "k-%v", sync), []byte("v")))
			must(t, b.Set([]byte("gone"), []byte("x")))
			must(t, b.Set([]byte("r1"), []byte("x")))
			must(t, b.Set([]byte("r2"), []byte("x")))
			must(t, b.Commit(sync))
			must(t, b.Close())
		}
		b := s.NewBatch()
		must(t, b.Delete([]byte("gone")))
		must(t, b.DeleteRange([]byte("r"), []byte("s")))
		must(t, b.Commit(false))
		must(t, b.Close())
		must(t, s.Close())

		s = open(t)
		defer func() { must(t, s.Close()) }()
		wantValue(t, s, "k-false", "v")
		wantValue(t, s, "k-true", "v")
		wantMissing(t, s, "gone")
		wantKeys(t, s, nil, nil, "k-false", "k-true")
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// put commits key=value pairs (alternating strings) in one batch.
func put(t *testing.T, s kv.Store, kvs ...string) {
	t.Helper()
	b := s.NewBatch()
	defer b.Close()
	for i := 0; i+1 < len(kvs); i += 2 {
		must(t, b.Set([]byte(kvs[i]), []byte(kvs[i+1])))
	}
	must(t, b.Commit(false))
}

func wantValue(t *testing.T, r kv.Reader, key, want string) {
	t.Helper()
	got, err := r.Get([]byte(key))
	if err != nil {
		t.Fatalf("Get(%q): %v; want %q", key, err, want)
	}
	if string(got) != want {
		t.Fatalf("Get(%q) = %q; want %q", key, got, want)
	}
}

func wantMissing(t *testing.T, r kv.Reader, key string) {
	t.Helper()
	got, err := r.Get([]byte(key))
	if !errors.Is(err, kv.ErrNotFound) {
		t.Fatalf("Get(%q) = %q, %v; want kv.ErrNotFound", key, got, err)
	}
}

// scan returns the keys of [lower, upper) forward (or backward), checking
// that each key's value equals what Get returns.
func scan(t *testing.T, r kv.Reader, lower, upper []byte, backward bool) []string {
	t.Helper()
	it, err := r.NewIter(lower, upper)
	if err != nil {
		t.Fatalf("NewIter: %v", err)
	}
	defer func() { must(t, it.Close()) }()
	var keys []string
	ok := it.First()
	if backward {
		ok = it.Last()
	}
	for ; ok; ok = step(it, backward) {
		if !it.Valid() {
			t.Fatal("positioning returned true but Valid is false")
		}
		keys = append(keys, string(it.Key()))
	}
	if it.Valid() {
		t.Fatal("positioning returned false but Valid is true")
	}
	must(t, it.Error())
	return keys
}

func step(it kv.Iterator, backward bool) bool {
	if backward {
		return it.Prev()
	}
	return it.Next()
}

func wantKeys(t *testing.T, r kv.Reader, lower, upper []byte, want ...string) {
	t.Helper()
	if got := scan(t, r, lower, upper, false); !equal(got, want) {
		t.Fatalf("forward [%q, %q) = %q; want %q", lower, upper, got, want)
	}
	rev := make([]string, len(want))
	for i, k := range want {
		rev[len(want)-1-i] = k
	}
	if got := scan(t, r, lower, upper, true); !equal(got, rev) {
		t.Fatalf("backward [%q, %q) = %q; want %q", lower, upper, got, rev)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func testGetMissing(t *testing.T, s kv.Store) {
	wantMissing(t, s, "nope")
	put(t, s, "a", "1")
	wantMissing(t, s, "a\x00")
	wantMissing(t, s, "")
}

func testSetGetOverwrite(t *testing.T, s kv.Store) {
	put(t, s, "a", "1", "b", "2")
	wantValue(t, s, "a", "1")
	wantValue(t, s, "b", "2")
	put(t, s, "a", "3")
	wantValue(t, s, "a", "3")
	wantKeys(t, s, nil, nil, "a", "b")
}

func testEmptyValue(t *testing.T, s kv.Store) {
	put(t, s, "e", "")
	got, err := s.Get([]byte("e"))
	if err != nil || len(got) != 0 {
		t.Fatalf("Get of an empty value = %q, %v; want empty, nil", got, err)
	}
	wantKeys(t, s, nil, nil, "e")
}

func testGetReturnsCopy(t *testing.T, s kv.Store) {
	put(t, s, "k", "value")
	got, err := s.Get([]byte("k"))
	must(t, err)
	copy(got, "XXXXX")
	wantValue(t, s, "k", "value")
	// Later writes must not show through an earlier result either.
	got, err = s.Get([]byte("k"))
	must(t, err)
	put(t, s, "k", "other")
	if string(got) != "value" {
		t.Fatalf("earlier Get result changed to %q after a write", got)
	}
}

// testAppendValue checks kv.ValueAppender, where the store (and its
// snapshots and transactions) implements it: the value appended to the
// caller's buffer, ErrNotFound with the buffer unchanged, and nothing of
// the store's shown through the buffer after a later write.
func testAppendValue(t *testing.T, s kv.Store) {
	put(t, s, "k", "value", "e", "")
	check := func(what string, r kv.Reader) {
		t.Helper()
		a, ok := r.(kv.ValueAppender)
		if !ok {
			return
		}
		buf, err := a.AppendValue([]byte("pre:"), []byte("k"))
		if err != nil || string(buf) != "pre:value" {
			t.Fatalf("%s: AppendValue = %q, %v; want \"pre:value\"", what, buf, err)
		}
		if buf, err = a.AppendValue(buf[:0], []byte("e")); err != nil || len(buf) != 0 {
			t.Fatalf("%s: AppendValue of an empty value = %q, %v", what, buf, err)
		}
		if buf, err = a.AppendValue([]byte("x"), []byte("missing")); !errors.Is(err, kv.ErrNotFound) || string(buf) != "x" {
			t.Fatalf("%s: AppendValue of a missing key = %q, %v; want \"x\", ErrNotFound", what, buf, err)
		}
	}
	check("store", s)
	snap := s.NewSnapshot()
	defer snap.Close()
	check("snapshot", snap)
	must(t, s.Update(false, func(tx kv.Txn) error {
		check("transaction", tx)
		return nil
	}))
	if _, ok := kv.Store(s).(kv.ValueAppender); ok {
		buf, err := s.(kv.ValueAppender).AppendValue(nil, []byte("k"))
		must(t, err)
		put(t, s, "k", "other")
		if string(buf) != "value" {
			t.Fatalf("an earlier AppendValue result changed to %q after a write", buf)
		}
	}
}

func testBatchCopiesArguments(t *testing.T, s kv.Store) {
	key, val := []byte("key"), []byte("val")
	b := s.NewBatch()
	defer b.Close()
	must(t, b.Set(key, val))
	copy(key, "KEY")
	copy(val, "VAL")
	must(t, b.Commit(false))
	wantValue(t, s, "key", "val")
	wantMissing(t, s, "KEY")
}

func testBatchInvisibleUntilCommit(t *testing.T, s kv.Store) {
	b := s.NewBatch()
	defer b.Close()
	must(t, b.Set([]byte("a"), []byte("1")))
	wantMissing(t, s, "a")
	wantKeys(t, s, nil, nil)
	must(t, b.Commit(false))
	wantValue(t, s, "a", "1")
}

func testBatchEmpty(t *testing.T, s kv.Store) {
	b := s.NewBatch()
	defer b.Close()
	if !b.Empty() {
		t.Fatal("new batch not Empty")
	}
	must(t, b.Delete([]byte("x")))
	if b.Empty() {
		t.Fatal("batch with a Delete is Empty")
	}
	// Committing an empty batch is allowed and changes nothing.
	e := s.NewBatch()
	must(t, e.Commit(true))
	must(t, e.Close())
}

func testBatchCloseDiscards(t *testing.T, s kv.Store) {
	b := s.NewBatch()
	must(t, b.Set([]byte("a"), []byte("1")))
	must(t, b.Close())
	must(t, b.Close()) // a second Close is safe
	wantMissing(t, s, "a")
	// Close after Commit is safe and keeps the writes.
	c := s.NewBatch()
	must(t, c.Set([]byte("b"), []byte("2")))
	must(t, c.Commit(false))
	must(t, c.Close())
	wantValue(t, s, "b", "2")
}

func testBatchCommitSync(t *testing.T, s kv.Store) {
	b := s.NewBatch()
	defer b.Close()
	must(t, b.Set([]byte("s"), []byte("1")))
	must(t, b.Commit(true))
	wantValue(t, s, "s", "1")
}

func testDelete(t *testing.T, s kv.Store) {
	put(t, s, "a", "1", "b", "2")
	b := s.NewBatch()
	defer b.Close()
	must(t, b.Delete([]byte("a")))
	must(t, b.Delete([]byte("absent"))) // deleting a missing key is fine
	must(t, b.Commit(false))
	wantMissing(t, s, "a")
	wantValue(t, s, "b", "2")
	wantKeys(t, s, nil, nil, "b")
}

func testDeleteRange(t *testing.T, s kv.Store) {
	put(t, s, "a", "1", "b", "2", "b\x00", "3", "ba", "4", "c", "5", "d", "6")
	b := s.NewBatch()
	defer b.Close()
	must(t, b.DeleteRange([]byte("b"), []byte("c"))) // start included, end excluded
	must(t, b.Commit(false))
	wantKeys(t, s, nil, nil, "a", "c", "d")
	wantMissing(t, s, "b")
	wantMissing(t, s, "ba")
	wantValue(t, s, "c", "5")
	// A key written after the range delete is visible again.
	put(t, s, "bb", "7")
	wantKeys(t, s, nil, nil, "a", "bb", "c", "d")

	// A range whose start sorts after its end is refused; a nil end is the
	// empty key, not an open end. An empty range deletes nothing.
	b2 := s.NewBatch()
	defer b2.Close()
	if err := b2.DeleteRange([]byte("c"), []byte("b")); err == nil {
		t.Error("DeleteRange(c, b) accepted")
	}
	if err := b2.DeleteRange([]byte("c"), nil); err == nil {
		t.Error("DeleteRange(c, nil) accepted")
	}
	must(t, b2.DeleteRange([]byte("c"), []byte("c")))
	must(t, b2.Commit(false))
	wantKeys(t, s, nil, nil, "a", "bb", "c", "d")
}

func testBatchOrder(t *testing.T, s kv.Store) {
	// Within a batch, later operations win.
	b := s.NewBatch()
	defer b.Close()
	must(t, b.Set([]byte("a"), []byte("1")))
	must(t, b.Delete([]byte("a")))
	must(t, b.Delete([]byte("b")))
	must(t, b.Set([]byte("b"), []byte("2")))
	must(t, b.Set([]byte("c1"), []byte("x")))
	must(t, b.DeleteRange([]byte("c"), []byte("d")))
	must(t, b.Set([]byte("c2"), []byte("y")))
	// The same key twice in a row: the second write wins.
	must(t, b.Set([]byte("e"), []byte("1")))
	must(t, b.Set([]byte("f"), []byte("x")))
	must(t, b.Set([]byte("e"), []byte("2")))
	must(t, b.Delete([]byte("f")))
	must(t, b.Delete([]byte("f")))
	must(t, b.Commit(false))
	wantKeys(t, s, nil, nil, "b", "c2", "e")
	wantValue(t, s, "e", "2")
}

func testBatchAtomicity(t *testing.T, s kv.Store) {
	// A writer commits generations of n keys; readers must never see a mix.
	const n, gens = 20, 200
	key := func(i int) []byte { return fmt.Appendf(nil, "atom/%02d", i) }
	done := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		defer close(done)
		for g := range gens {
			b := s.NewBatch()
			for i := range n {
				if err := b.Set(key(i), fmt.Appendf(nil, "%d", g)); err != nil {
					errc <- err
					return
				}
			}
			err := b.Commit(false)
			b.Close()
			if err != nil {
				errc <- err
				return
			}
		}
	}()
	check := func(r kv.Reader) {
		it, err := r.NewIter([]byte("atom/"), []byte("atom0"))
		must(t, err)
		defer func() { must(t, it.Close()) }()
		var first []byte
		count := 0
		for ok := it.First(); ok; ok = it.Next() {
			v := it.Value()
			if first == nil {
				first = append([]byte(nil), v...)
			} else if !bytes.Equal(v, first) {
				t.Fatalf("iterator saw generations %s and %s together", first, v)
			}
			count++
		}
		must(t, it.Error())
		if count != 0 && count != n {
			t.Fatalf("iterator saw %d of the %d keys of one batch", count, n)
		}
	}
	for {
		select {
		case <-done:
			select {
			case err := <-errc:
				t.Fatal(err)
			default:
			}
			check(s)
			wantValue(t, s, "atom/00", fmt.Sprint(gens-1))
			return
		default:
		}
		check(s)
		snap := s.NewSnapshot()
		check(snap)
		must(t, snap.Close())
	}
}

func testIterForward(t *testing.T, s kv.Store) {
	wantKeys(t, s, nil, nil)
	put(t, s, "c", "3", "a", "1", "b", "2")
	it, err := s.NewIter(nil, nil)
	must(t, err)
	defer func() { must(t, it.Close()) }()
	if it.Valid() {
		t.Fatal("new iterator is Valid before positioning")
	}
	for i, want := range []string{"a", "b", "c"} {
		var ok bool
		if i == 0 {
			ok = it.First()
		} else {
			ok = it.Next()
		}
		if !ok || string(it.Key()) != want || string(it.Value()) != fmt.Sprint(i+1) {
			t.Fatalf("step %d: ok=%v key=%q value=%q; want %q", i, ok, it.Key(), it.Value(), want)
		}
	}
	if it.Next() || it.Valid() {
		t.Fatal("Next past the last key returned true")
	}
	must(t, it.Error())
}

func testIterBackward(t *testing.T, s kv.Store) {
	put(t, s, "c", "3", "a", "1", "b", "2")
	it, err := s.NewIter(nil, nil)
	must(t, err)
	defer func() { must(t, it.Close()) }()
	for i, want := range []string{"c", "b", "a"} {
		var ok bool
		if i == 0 {
			ok = it.Last()
		} else {
			ok = it.Prev()
		}
		if !ok || string(it.Key()) != want {
			t.Fatalf("step %d: ok=%v key=%q; want %q", i, ok, it.Key(), want)
		}
	}
	if it.Prev() || it.Valid() {
		t.Fatal("Prev before the first key returned true")
	}
}

func testIterBounds(t *testing.T, s kv.Store) {
	put(t, s, "a", "", "b", "", "b1", "", "c", "", "d", "")
	b := func(s string) []byte { return []byte(s) }
	wantKeys(t, s, nil, nil, "a", "b", "b1", "c", "d")
	wantKeys(t, s, b("b"), nil, "b", "b1", "c", "d")
	wantKeys(t, s, nil, b("c"), "a", "b", "b1")
	wantKeys(t, s, b("b"), b("c"), "b", "b1")
	wantKeys(t, s, b("b0"), b("c0"), "b1", "c")
	wantKeys(t, s, b("x"), b("z"))
	wantKeys(t, s, b("b"), b("b"))
	// Bounds slices may be reused by the caller once NewIter returns.
	lo, hi := []byte("b"), []byte("c")
	it, err := s.NewIter(lo, hi)
	must(t, err)
	defer func() { must(t, it.Close()) }()
	copy(lo, "a")
	copy(hi, "z")
	var got []string
	for ok := it.First(); ok; ok = it.Next() {
		got = append(got, string(it.Key()))
	}
	if !equal(got, []string{"b", "b1"}) {
		t.Fatalf("after the caller reused its bound slices: %q; want [b b1]", got)
	}
}

func testIterSeek(t *testing.T, s kv.Store) {
	put(t, s, "b", "", "d", "", "f", "", "h", "")
	it, err := s.NewIter([]byte("c"), []byte("g"))
	must(t, err)
	defer func() { must(t, it.Close()) }()
	cases := []struct {
		ge   bool
		seek string
		want string // "" means not valid
	}{
		{true, "a", "d"}, // below the lower bound: clamps
		{true, "d", "d"},
		{true, "d\x00", "f"},
		{true, "e", "f"},
		{true, "f", "f"},
		{true, "f\x00", ""}, // h is beyond the upper bound
		{true, "z", ""},
		{false, "z", "f"}, // above the upper bound: clamps
		{false, "f", "d"},
		{false, "e", "d"},
		{false, "d", ""}, // b is below the lower bound
		{false, "a", ""},
	}
	for _, c := range cases {
		var ok bool
		if c.ge {
			ok = it.SeekGE([]byte(c.seek))
		} else {
			ok = it.SeekLT([]byte(c.seek))
		}
		name := map[bool]string{true: "SeekGE", false: "SeekLT"}[c.ge]
		if c.want == "" {
			if ok || it.Valid() {
				t.Errorf("%s(%q) on %q; want not valid", name, c.seek, it.Key())
			}
			continue
		}
		if !ok || string(it.Key()) != c.want {
			t.Errorf("%s(%q) = %v %q; want %q", name, c.seek, ok, it.Key(), c.want)
		}
	}
}

func testIterDirectionChange(t *testing.T, s kv.Store) {
	put(t, s, "a", "", "b", "", "c", "")
	it, err := s.NewIter(nil, nil)
	must(t, err)
	defer func() { must(t, it.Close()) }()
	steps := []struct {
		op   func() bool
		want string
	}{
		{it.First, "a"}, {it.Next, "b"}, {it.Prev, "a"}, {it.Next, "b"},
		{it.Next, "c"}, {it.Prev, "b"}, {it.Last, "c"},
	}
	for i, st := range steps {
		if !st.op() || string(it.Key()) != st.want {
			t.Fatalf("step %d: key %q; want %q", i, it.Key(), st.want)
		}
	}
}

func testIterConsistentView(t *testing.T, s kv.Store) {
	put(t, s, "a", "1", "c", "3")
	it, err := s.NewIter(nil, nil)
	must(t, err)
	put(t, s, "b", "2", "a", "changed")
	var got []string
	for ok := it.First(); ok; ok = it.Next() {
		got = append(got, string(it.Key())+"="+string(it.Value()))
	}
	must(t, it.Error())
	must(t, it.Close())
	if !equal(got, []string{"a=1", "c=3"}) {
		t.Fatalf("iterator saw a later write: %q", got)
	}
}

func testBinaryKeyOrder(t *testing.T, s kv.Store) {
	keys := []string{"\x00", "\x00\x00", "\x00\x01", "\x01", "\x7f", "\x80", "\xfe", "\xff", "\xff\xff"}
	b := s.NewBatch()
	defer b.Close()
	for i := len(keys) - 1; i >= 0; i-- {
		must(t, b.Set([]byte(keys[i]), []byte{byte(i)}))
	}
	must(t, b.Commit(false))
	wantKeys(t, s, nil, nil, keys...)
	wantKeys(t, s, []byte("\x00\x01"), []byte("\xff"), keys[2:7]...)
}

func testSnapshotIsolation(t *testing.T, s kv.Store) {
	put(t, s, "a", "1", "b", "2", "r1", "x", "r2", "y")
	snap := s.NewSnapshot()
	b := s.NewBatch()
	must(t, b.Set([]byte("a"), []byte("changed")))
	must(t, b.Delete([]byte("b")))
	must(t, b.DeleteRange([]byte("r"), []byte("s")))
	must(t, b.Set([]byte("new"), []byte("n")))
	must(t, b.Commit(true))
	must(t, b.Close())

	wantValue(t, snap, "a", "1")
	wantValue(t, snap, "b", "2")
	wantMissing(t, snap, "new")
	wantKeys(t, snap, nil, nil, "a", "b", "r1", "r2")

	wantValue(t, s, "a", "changed")
	wantMissing(t, s, "b")
	wantKeys(t, s, nil, nil, "a", "new")
	must(t, snap.Close())
}

func testConcurrentWriters(t *testing.T, s kv.Store) {
	const writers, each = 4, 100
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				b := s.NewBatch()
				err := b.Set(fmt.Appendf(nil, "w%d/%03d", w, i), []byte("v"))
				if err == nil {
					err = b.Commit(i%10 == 0)
				}
				b.Close()
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := len(scan(t, s, nil, nil, false)); n != writers*each {
		t.Fatalf("%d keys after concurrent writes; want %d", n, writers*each)
	}
}

func testClosed(t *testing.T, s kv.Store) {
	put(t, s, "a", "1")
	pending := s.NewBatch()
	must(t, pending.Set([]byte("b"), []byte("2")))
	must(t, s.Close())

	if _, err := s.Get([]byte("a")); !errors.Is(err, kv.ErrClosed) {
		t.Errorf("Get after Close: %v; want kv.ErrClosed", err)
	}
	if _, err := s.NewIter(nil, nil); !errors.Is(err, kv.ErrClosed) {
		t.Errorf("NewIter after Close: %v; want kv.ErrClosed", err)
	}
	if err := pending.Commit(false); !errors.Is(err, kv.ErrClosed) {
		t.Errorf("Commit after Close: %v; want kv.ErrClosed", err)
	}
	must(t, pending.Close())
	b := s.NewBatch()
	if err := b.Commit(true); !errors.Is(err, kv.ErrClosed) {
		t.Errorf("Commit of a batch made after Close: %v; want kv.ErrClosed", err)
	}
	must(t, b.Close())
	snap := s.NewSnapshot()
	if _, err := snap.Get([]byte("a")); !errors.Is(err, kv.ErrClosed) {
		t.Errorf("snapshot Get after Close: %v; want kv.ErrClosed", err)
	}
	must(t, snap.Close())
	if err := s.Close(); !errors.Is(err, kv.ErrClosed) {
		t.Errorf("second Close: %v; want kv.ErrClosed", err)
	}
}

func testUpdateCommits(t *testing.T, s kv.Store) {
	put(t, s, "a", "1", "gone", "x")
	must(t, s.Update(true, func(tx kv.Txn) error {
		v, err := tx.Get([]byte("a"))
		if err != nil {
			return err
		}
		if err := tx.Batch().Set([]byte("b"), append(v, '2')); err != nil {
			return err
		}
		return tx.Batch().Delete([]byte("gone"))
	}))
	wantValue(t, s, "b", "12")
	wantMissing(t, s, "gone")
	// An Update that writes nothing commits nothing and succeeds.
	must(t, s.Update(false, func(kv.Txn) error { return nil }))
}

func testUpdateErrorDiscards(t *testing.T, s kv.Store) {
	errStop := errors.New("stop")
	err := s.Update(false, func(tx kv.Txn) error {
		if err := tx.Batch().Set([]byte("k"), []byte("v")); err != nil {
			return err
		}
		return errStop
	})
	if !errors.Is(err, errStop) {
		t.Fatalf("Update returned %v; want fn's error", err)
	}
	wantMissing(t, s, "k")
}

func testUpdateReadsExcludeOwnWrites(t *testing.T, s kv.Store) {
	put(t, s, "k", "old")
	must(t, s.Update(false, func(tx kv.Txn) error {
		if err := tx.Batch().Set([]byte("k"), []byte("new")); err != nil {
			return err
		}
		wantValue(t, tx, "k", "old")
		return nil
	}))
	wantValue(t, s, "k", "new")
}

// shared skips a case that only a store shared by several processes must
// pass: an unshared store's Update relies on its caller's locks.
func shared(t *testing.T, s kv.Store) {
	t.Helper()
	if !kv.IsShared(s) {
		t.Skip("not a shared store (kv.IsShared): Update is atomic only under the caller's locks")
	}
}

// Concurrent read-increment-write Updates of one key, with no lock of the
// caller's, lose no increment: the store itself makes each atomic.
func testSharedUpdateCounter(t *testing.T, s kv.Store) {
	shared(t, s)
	const workers, each = 8, 50
	key := []byte("counter")
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Go(func() {
			for range each {
				err := s.Update(false, func(tx kv.Txn) error {
					n := 0
					v, err := tx.Get(key)
					switch {
					case errors.Is(err, kv.ErrNotFound):
					case err != nil:
						return err
					default:
						if _, err := fmt.Sscan(string(v), &n); err != nil {
							return err
						}
					}
					return tx.Batch().Set(key, fmt.Append(nil, n+1))
				})
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	wantValue(t, s, "counter", fmt.Sprint(workers*each))
}

// Updates racing to create a key only if it is absent (DynamoDB's
// attribute_not_exists) have exactly one winner per round, and the key
// holds the winner's value.
func testSharedUpdateCreateIfAbsent(t *testing.T, s kv.Store) {
	shared(t, s)
	const rounds, racers = 25, 4
	errExists := errors.New("exists")
	for r := range rounds {
		key := fmt.Appendf(nil, "once/%03d", r)
		var wg sync.WaitGroup
		start := make(chan struct{})
		won := make([]bool, racers)
		errs := make([]error, racers)
		for i := range racers {
			wg.Go(func() {
				<-start
				err := s.Update(false, func(tx kv.Txn) error {
					if _, err := tx.Get(key); err == nil {
						return errExists
					} else if !errors.Is(err, kv.ErrNotFound) {
						return err
					}
					return tx.Batch().Set(key, fmt.Append(nil, i))
				})
				switch {
				case err == nil:
					won[i] = true
				case !errors.Is(err, errExists):
					errs[i] = err
				}
			})
		}
		close(start)
		wg.Wait()
		winner := -1
		for i := range racers {
			if errs[i] != nil {
				t.Fatalf("round %d: racer %d: %v", r, i, errs[i])
			}
			if won[i] {
				if winner >= 0 {
					t.Fatalf("round %d: racers %d and %d both created %q", r, winner, i, key)
				}
				winner = i
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: no racer created %q", r, key)
		}
		wantValue(t, s, string(key), fmt.Sprint(winner))
	}
}
