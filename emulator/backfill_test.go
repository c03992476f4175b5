package emulator

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/rs/zerolog"
)

// backfillTable creates table "bft" (hash key pk) holding n items that all
// carry the GSI key g, with the given transition delay.
func backfillTable(t *testing.T, n int, delay time.Duration) *testEngine {
	te := newTestEngine(t, func(o *Options) { o.TransitionDelay = delay; o.Throttle.Off = true })
	te.mustCreate(nsA, simpleTable("bft"))
	te.clock.Add(delay)
	for i := range n {
		if _, err := te.PutItem(context.Background(), nsA, &api.PutItemInput{TableName: sp("bft"),
			Item: av.Item{"pk": avS(strconv.Itoa(i)), "g": avS("x")}}); err != nil {
			t.Fatal(err)
		}
	}
	return te
}

// pauseAfterFirstChunk makes te's backfill jobs wait after their first
// chunk: reached is closed when one gets there, free lets it go on (and
// runs at the end of the test anyway, so a failing check never leaves the
// job blocked).
func pauseAfterFirstChunk(t *testing.T, te *testEngine) (reached chan struct{}, free func()) {
	reached, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	free = func() { once.Do(func() { close(release) }) }
	t.Cleanup(free)
	te.bf.afterChunk = func(visited int) {
		if visited == backfillChunk {
			close(reached)
			<-release
		}
	}
	return reached, free
}

func addGSI(t *testing.T, te *testEngine) *api.TableDescription {
	t.Helper()
	out, err := te.UpdateTable(context.Background(), nsA, &api.UpdateTableInput{TableName: sp("bft"), AttributeDefinitions: attrs("g", "S"),
		GlobalSecondaryIndexUpdates: []api.GlobalSecondaryIndexUpdate{gsiCreate("gix", keys("g", "HASH"), nil)}})
	if err != nil {
		t.Fatal(err)
	}
	return out.TableDescription
}

func gixState(t *testing.T, te *testEngine) (status string, backfilling bool, count int64) {
	t.Helper()
	d := te.describeT(nsA, "bft")
	g := d.GlobalSecondaryIndexes[0]
	return g.IndexStatus, g.Backfilling != nil && *g.Backfilling, g.ItemCount
}

func queryGix(te *testEngine) (int, error) {
	out, err := te.Query(context.Background(), nsA, &api.QueryInput{TableName: sp("bft"), IndexName: sp("gix"),
		KeyConditionExpression: sp("g = :g"), ExpressionAttributeValues: map[string]av.Value{":g": avS("x")}, Select: sp("COUNT")})
	if err != nil {
		return 0, err
	}
	return int(out.Count), nil
}

// TestBackfillStatusFollowsWork: UpdateTable answers at once, and the index
// stays CREATING with Backfilling (refusing Queries) while the job runs,
// even after the transition delay has passed; it turns ACTIVE only once
// every item is in.
func TestBackfillStatusFollowsWork(t *testing.T) {
	const n = 3 * backfillChunk
	te := backfillTable(t, n, time.Second)
	reached, free := pauseAfterFirstChunk(t, te)
	d := addGSI(t, te)
	if g := d.GlobalSecondaryIndexes[0]; g.IndexStatus != statusCreating || g.Backfilling == nil || !*g.Backfilling {
		t.Fatalf("UpdateTable answered %+v", g)
	}
	<-reached
	te.clock.Add(time.Hour) // the delay is long over; the work is not
	if st, bf, _ := gixState(t, te); st != statusCreating || !bf {
		t.Fatalf("mid-backfill: %s backfilling=%v", st, bf)
	}
	_, err := queryGix(te)
	wantErr(t, err, api.CodeValidation, "Cannot read from backfilling global secondary index: gix")
	free()
	WaitBackfills(te.Engine)
	st, bf, count := gixState(t, te)
	if st != statusActive || bf || count != n {
		t.Fatalf("after backfill: %s backfilling=%v count=%d", st, bf, count)
	}
	if got, err := queryGix(te); err != nil || got != n {
		t.Fatalf("Query: %d, %v; want %d", got, err, n)
	}
}

// TestBackfillResumesAfterRestart stops the engine part-way through a
// backfill: the index is still CREATING after the restart, the job resumes
// from its cursor, and the index ends with every item and exact stats.
func TestBackfillResumesAfterRestart(t *testing.T) {
	const n = 4 * backfillChunk
	te := backfillTable(t, n, 0)
	reached, free := pauseAfterFirstChunk(t, te)
	addGSI(t, te)
	<-reached
	te.bf.tasks.Cancel() // what Close does; the job stops after this chunk
	free()
	WaitBackfills(te.Engine)
	tm, _ := te.table(nsA, "bft")
	if got, err := te.store.Get(backfillCursorKey(tm.ID, tm.GSIs[0].ID)); err != nil || len(got) == 0 {
		t.Fatalf("no cursor saved: %v", err)
	}
	if st, bf, count := gixState(t, te); st != statusCreating || !bf || count != backfillChunk {
		t.Fatalf("stopped: %s backfilling=%v count=%d", st, bf, count)
	}

	// A restart resumes the job; count the items it visits.
	te.restart()
	WaitBackfills(te.Engine)
	st, bf, count := gixState(t, te)
	if st != statusActive || bf || count != n {
		t.Fatalf("after resume: %s backfilling=%v count=%d", st, bf, count)
	}
	if got, err := queryGix(te); err != nil || got != n {
		t.Fatalf("Query: %d, %v; want %d", got, err, n)
	}
	if _, err := te.store.Get(backfillCursorKey(tm.ID, tm.GSIs[0].ID)); err == nil {
		t.Fatal("cursor left behind")
	}
}

// syncBuffer is a log sink safe for the engine's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestBackfillLogsProgress: a backfill logs at info that it started (with
// the table's item count as its total), that it is in progress (at most
// every progressEvery, with the items copied and their rate) and that it
// finished.
func TestBackfillLogsProgress(t *testing.T) {
	const n = 3 * backfillChunk
	var logs syncBuffer
	log := zerolog.New(&logs).Level(zerolog.InfoLevel)
	te := newTestEngine(t, func(o *Options) { o.Throttle.Off = true; o.Logger = &log })
	te.mustCreate(nsA, simpleTable("bft"))
	for i := range n {
		if _, err := te.PutItem(context.Background(), nsA, &api.PutItemInput{TableName: sp("bft"),
			Item: av.Item{"pk": avS(strconv.Itoa(i)), "g": avS("x")}}); err != nil {
			t.Fatal(err)
		}
	}
	te.bf.progressEvery = time.Second
	// Each chunk takes a second of the fake clock.
	te.bf.afterChunk = func(int) { te.clock.Add(time.Second) }
	addGSI(t, te)
	WaitBackfills(te.Engine)

	type line struct {
		Level, Message, Table, Index string
		Items, Total                 int64
		Rate                         float64 `json:"items_per_second"`
	}
	var got []line
	for _, s := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var l line
		if err := json.Unmarshal([]byte(s), &l); err != nil {
			t.Fatalf("log line %q: %v", s, err)
		}
		if strings.HasPrefix(l.Message, "index backfill") {
			got = append(got, l)
		}
	}
	want := []line{
		{"info", "index backfill started", "bft", "gix", 0, n, 0},
		{"info", "index backfill in progress", "bft", "gix", 2 * backfillChunk, n, 512}, // at 1s
		{"info", "index backfill in progress", "bft", "gix", 3 * backfillChunk, n, 384}, // at 2s
		{"info", "index backfill finished", "bft", "gix", 3 * backfillChunk, n, 256},    // at 3s
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("backfill logs:\n%+v\nwant\n%+v\nall logs:\n%s", got, want, logs.String())
	}
}
