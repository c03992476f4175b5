package globaltables

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

func TestMembershipJoinAddLeave(t *testing.T) {
	now := time.Unix(1000, 0)
	var m Membership
	m.Join("a", TableID{1})
	m.Join("a", TableID{1}) // once only
	m.AddReplica(&Replica{Region: "b", ID: TableID{2}, Seeding: true})
	if len(m.Group) != 2 || m.Member("a").ID != (TableID{1}) {
		t.Fatalf("group %+v", m.Group)
	}
	if s := m.GroupStatus("a", now); s != statusUpdating {
		t.Errorf("source while b seeds: %q", s)
	}
	if s := m.GroupStatus("b", now); s != statusCreating {
		t.Errorf("seeding replica: %q", s)
	}
	// Leaving with a delay lists the member DELETING until it passes.
	m.Leave("a", m.Member("b"), now, time.Minute)
	if r := m.Member("b"); r == nil || r.Status(now) != statusDeleting || r.Seeding {
		t.Fatalf("after a delayed leave: %+v", r)
	}
	if got := m.Replicas("a", now.Add(time.Minute)); len(got) != 0 {
		t.Errorf("replicas once the delay passed: %+v", got)
	}
	// A new replica in that Region replaces the gone entry.
	m.AddReplica(&Replica{Region: "b", ID: TableID{3}})
	if len(m.Group) != 2 || m.Member("b").ID != (TableID{3}) {
		t.Fatalf("group %+v", m.Group)
	}
	// Leaving at once drops a group of one.
	m.Leave("a", m.Member("b"), now, 0)
	if m.Group != nil {
		t.Errorf("group of one kept: %+v", m.Group)
	}
}

// drainCore is the part of Core Drain uses.
type drainCore struct {
	Core
	now     time.Time
	queued  []Queued
	dropped [][]byte
	applied []string
}

func (c *drainCore) Now() time.Time                  { return c.now }
func (c *drainCore) Logger() *zerolog.Logger         { l := zerolog.Nop(); return &l }
func (c *drainCore) ReplicationDelay() time.Duration { return time.Second }
func (c *drainCore) Destinations() Destinations      { return c }
func (c *drainCore) DropQueued(key []byte) error {
	c.dropped = append(c.dropped, key)
	return nil
}

func (c *drainCore) Outbox(after []byte, n int) ([]Queued, error) {
	if after != nil {
		return nil, nil
	}
	return c.queued, nil
}

func (c *drainCore) Apply(dst TableID, en *Entry, key []byte) error {
	c.applied = append(c.applied, string(key))
	return nil
}

func TestDrainHoldsBackAndDropsUnreadable(t *testing.T) {
	now := time.Unix(1000, 0)
	entry := func(at time.Time) []byte {
		b, _ := json.Marshal(&Entry{Key: []byte("k"), TS: 1, Origin: "a", At: at})
		return b
	}
	c := &drainCore{now: now, queued: []Queued{
		{Key: []byte("due"), Value: entry(now.Add(-2 * time.Second))},
		{Key: []byte("held"), Value: entry(now.Add(-500 * time.Millisecond))},
		{Key: []byte("bad"), Value: []byte("{")},
	}}
	var r Replicator
	next, err := r.Drain(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if want := now.Add(500 * time.Millisecond); !next.Equal(want) {
		t.Errorf("next %v, want %v", next, want)
	}
	if len(c.applied) != 1 || c.applied[0] != "due" {
		t.Errorf("applied %q", c.applied)
	}
	if len(c.dropped) != 1 || string(c.dropped[0]) != "bad" {
		t.Errorf("dropped %q", c.dropped)
	}
}
