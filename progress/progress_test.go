package progress

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// fakeClock is a timeline a test moves by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// meter returns a meter on a fake clock and the reports it makes, one
// "phase count/total rate" string each.
func meter(every time.Duration, quiet bool) (*Meter, *fakeClock, *[]string) {
	c := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	var got []string
	m := &Meter{Every: every, Now: c.now, Quiet: quiet, Report: func(r Report) {
		got = append(got, fmt.Sprintf("%s %d/%d %.0f/s %s", r.Message(), r.Count, r.Total, r.Rate, r.Elapsed))
	}}
	return m, c, &got
}

func TestMeterReportsAtMostEveryInterval(t *testing.T) {
	m, c, got := meter(5*time.Second, false)
	m.Start("job", 1000)
	for range 10 {
		c.t = c.t.Add(time.Second)
		m.Add(100)
	}
	m.Done()
	want := []string{
		"job started 0/1000 0/s 0s",
		"job in progress 500/1000 100/s 5s",
		"job in progress 1000/1000 100/s 10s",
		"job finished 1000/1000 100/s 10s",
	}
	if strings.Join(*got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("reports:\n%s\nwant:\n%s", strings.Join(*got, "\n"), strings.Join(want, "\n"))
	}
	if m.Count() != 1000 {
		t.Fatalf("Count = %d", m.Count())
	}
}

func TestMeterDefaultEvery(t *testing.T) {
	m, c, got := meter(0, false)
	m.Start("job", 0)
	c.t = c.t.Add(DefaultEvery - time.Millisecond)
	m.Add(1)
	if len(*got) != 1 {
		t.Fatalf("reported before DefaultEvery: %q", *got)
	}
	c.t = c.t.Add(time.Millisecond)
	m.Add(1)
	if len(*got) != 2 || (*got)[1] != "job in progress 2/0 0/s 5s" {
		t.Fatalf("reports %q", *got)
	}
}

func TestMeterNegativeEveryReportsEachAdd(t *testing.T) {
	m, _, got := meter(-1, true)
	m.Start("job", 2)
	m.Add(1)
	m.Add(1)
	m.Done()
	want := []string{"job in progress 1/2 0/s 0s", "job in progress 2/2 0/s 0s", "job finished 2/2 0/s 0s"}
	if strings.Join(*got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("reports %q, want %q", *got, want)
	}
}

func TestMeterQuiet(t *testing.T) {
	for _, tc := range []struct {
		name string
		work time.Duration // between Start and the one Add
		want []string
	}{
		{"short work says nothing", time.Second, nil},
		{"long work says it ran and when it ended", 6 * time.Second,
			[]string{"job in progress 3/3 0/s 6s", "job finished 3/3 0/s 6s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, c, got := meter(5*time.Second, true)
			m.Start("job", 3)
			c.t = c.t.Add(tc.work)
			m.Add(3)
			m.Done()
			if strings.Join(*got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("reports %q, want %q", *got, tc.want)
			}
		})
	}
}

func TestMeterRestart(t *testing.T) {
	m, c, got := meter(time.Second, false)
	m.Start("a", 0)
	c.t = c.t.Add(2 * time.Second)
	m.Add(4)
	m.Done()
	m.Start("b", 0)
	c.t = c.t.Add(time.Second)
	m.Done()
	if last := (*got)[len(*got)-1]; last != "b finished 0/0 0/s 1s" {
		t.Fatalf("a restarted meter kept the old job's count: %q", last)
	}
}

func TestMeterWithoutReportCounts(t *testing.T) {
	var m Meter
	m.Start("job", 0)
	m.Add(2)
	m.Add(3)
	m.Done()
	if m.Count() != 5 {
		t.Fatalf("Count = %d", m.Count())
	}
}

// BenchmarkMeterAdd is the cost Add puts on a job's loop between reports.
func BenchmarkMeterAdd(b *testing.B) {
	m := &Meter{Report: func(Report) {}}
	m.Start("bench", 0)
	for b.Loop() {
		m.Add(1)
	}
}
