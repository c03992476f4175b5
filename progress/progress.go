package progress

import (
	"sync"
	"time"
)

// DefaultEvery is how often a running job reports when Meter.Every is zero.
const DefaultEvery = 5 * time.Second

// Phase is the point of a job a Report is about.
type Phase string

// A job's phases, in the order they are reported.
const (
	Started    Phase = "started"
	InProgress Phase = "in progress"
	Finished   Phase = "finished"
)

// Report is what a Meter says about its job.
type Report struct {
	Name  string
	Unit  string // what is counted: "items", "tables"
	Phase Phase
	// Count is how many items are done; Total how many there are, 0 when
	// not known.
	Count, Total int64
	// Elapsed is the time since Start; Rate is Count per second of it (0
	// until time has passed).
	Elapsed time.Duration
	Rate    float64
}

// Message is the report as a log message: "index backfill in progress".
func (r Report) Message() string { return r.Name + " " + string(r.Phase) }

// Meter counts one job's items and reports its progress. Set its fields,
// then call Start; Add, Count and Done are safe for concurrent use. Report
// runs with the meter locked, so it must not call the meter.
type Meter struct {
	// Report receives the reports; nil reports nothing (Count still counts).
	Report func(Report)
	// Unit names what is counted, for the reports ("items", "tables").
	Unit string
	// Every is the least time between two in-progress reports; zero means
	// DefaultEvery, negative reports on every Add (tests).
	Every time.Duration
	// Now defaults to time.Now.
	Now func() time.Time
	// Quiet leaves out the started report, and the finished one of a job
	// that ended before its first in-progress report: short work says
	// nothing, long work says it is running and when it ended.
	Quiet bool

	mu           sync.Mutex
	name         string
	count, total int64
	start, last  time.Time
	reported     bool // an in-progress report was made
}

func (m *Meter) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

func (m *Meter) every() time.Duration {
	if m.Every > 0 {
		return m.Every
	}
	return DefaultEvery
}

// Start begins the job name of total items (0: unknown) and reports it.
func (m *Meter) Start(name string, total int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.name, m.total, m.count, m.start, m.last, m.reported = name, total, 0, now, now, false
	if !m.Quiet {
		m.emit(Started, now)
	}
}

// Add counts n more items done, and reports progress if Every has passed
// since the last report.
func (m *Meter) Add(n int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.count += n
	now := m.now()
	if m.Every < 0 || now.Sub(m.last) >= m.every() {
		m.last, m.reported = now, true
		m.emit(InProgress, now)
	}
}

// Count is how many items are done so far.
func (m *Meter) Count() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.count
}

// Done ends the job and reports its count, duration and rate.
func (m *Meter) Done() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.Quiet || m.reported {
		m.emit(Finished, m.now())
	}
}

// emit hands a report to m.Report; m.mu is held, so reports of one meter
// never interleave.
func (m *Meter) emit(p Phase, now time.Time) {
	if m.Report == nil {
		return
	}
	el := max(now.Sub(m.start), 0)
	r := Report{Name: m.name, Unit: m.Unit, Phase: p, Count: m.count, Total: m.total, Elapsed: el}
	if el > 0 {
		r.Rate = float64(m.count) / el.Seconds()
	}
	m.Report(r)
}
