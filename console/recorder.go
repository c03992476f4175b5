package console

import (
	"sort"
	"sync"
	"time"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
)

// Recorder keeps the recent activity of every table and index for the
// throttling timeline: consumed units per second, the table bucket's
// capacity and balance, throttle events by reason, and the hottest
// partition keys. It is an emulator.Observer; its hot path takes two
// uncontended locks and allocates only when it meets a new table, a new
// second's throttle reason or a new partition key.
type Recorder struct {
	now func() time.Time

	mu     sync.RWMutex
	series map[seriesKey]*series
}

// RecorderOptions configures a Recorder.
type RecorderOptions struct {
	// Now stamps events; default time.Now. (The engine's clock may stand
	// still in tests; the timeline is about wall time.)
	Now func() time.Time
}

// NewRecorder returns an empty Recorder.
func NewRecorder(opts RecorderOptions) *Recorder {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Recorder{now: opts.Now, series: map[seriesKey]*series{}}
}

type seriesKey struct {
	ns    api.Namespace
	table string
	index string
}

// window is how many seconds of history a series keeps.
const window = 300

// maxHotKeys bounds the hot-key table of one series; past it, counts are
// halved and the coldest dropped, so it tracks recent heat.
const maxHotKeys = 1024

// maxEvents is how many throttle events a series keeps.
const maxEvents = 200

type series struct {
	mu      sync.Mutex
	secs    [window]second
	hot     map[string]*hotKey
	events  []ThrottleMark
	evStart int // ring start once events is full
}

type second struct {
	unix        int64
	read, write float64
	// rcap, wcap, rbal, wbal: the table bucket after the second's last
	// charge in that direction; hasR, hasW say whether there was one.
	rcap, wcap, rbal, wbal float64
	hasR, hasW             bool
	throttles              map[string]int
}

type hotKey struct {
	display     string
	read, write float64
	throttled   int
}

// ThrottleMark is one throttle event on the timeline.
type ThrottleMark struct {
	Time   float64 `json:"t"` // epoch seconds
	Read   bool    `json:"read"`
	Bucket string  `json:"bucket"`
	Code   string  `json:"code"`
	Reason string  `json:"reason"`
	Key    string  `json:"key,omitempty"`
}

func (r *Recorder) get(k seriesKey) *series {
	r.mu.RLock()
	s := r.series[k]
	r.mu.RUnlock()
	if s != nil {
		return s
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if s = r.series[k]; s == nil {
		s = &series{hot: map[string]*hotKey{}}
		r.series[k] = s
	}
	return s
}

// slot returns the second of unix, reset if it held an older second.
func (s *series) slot(unix int64) *second {
	sec := &s.secs[unix%window]
	if sec.unix != unix {
		*sec = second{unix: unix}
	}
	return sec
}

// Consumed implements emulator.Observer.
func (r *Recorder) Consumed(c emulator.Consumption) {
	now := r.now()
	s := r.get(seriesKey{c.Namespace, c.Table, c.Index})
	s.mu.Lock()
	defer s.mu.Unlock()
	sec := s.slot(now.Unix())
	if c.Read {
		sec.read += c.Units
		if c.Index == "" {
			sec.rcap, sec.rbal, sec.hasR = c.Capacity, c.Balance, true
		}
	} else {
		sec.write += c.Units
		if c.Index == "" {
			sec.wcap, sec.wbal, sec.hasW = c.Capacity, c.Balance, true
		}
	}
	if p := c.PartitionBytes(); len(p) > 0 {
		h, fresh := s.hotKey(p)
		if fresh {
			v, _ := c.PartitionKey()
			h.display = valueText(v)
		}
		if c.Read {
			h.read += c.Units
		} else {
			h.write += c.Units
		}
	}
}

// Throttled implements emulator.Observer.
func (r *Recorder) Throttled(t emulator.ThrottleEvent) {
	now := r.now()
	s := r.get(seriesKey{t.Namespace, t.Table, ""})
	s.mu.Lock()
	defer s.mu.Unlock()
	sec := s.slot(now.Unix())
	if sec.throttles == nil {
		sec.throttles = map[string]int{}
	}
	reason := t.Reason
	if reason == "" {
		reason = t.Code
	}
	sec.throttles[reason]++
	m := ThrottleMark{Time: float64(now.UnixMilli()) / 1000, Read: t.Read, Bucket: t.Bucket, Code: t.Code, Reason: t.Reason}
	if p := t.PartitionBytes(); len(p) > 0 {
		h, fresh := s.hotKey(p)
		if fresh {
			v, _ := t.PartitionKey()
			h.display = valueText(v)
		}
		h.throttled++
		m.Key = h.display
	}
	if len(s.events) < maxEvents {
		s.events = append(s.events, m)
	} else {
		s.events[s.evStart] = m
		s.evStart = (s.evStart + 1) % maxEvents
	}
}

// hotKey returns the entry of partition p, creating it if new (fresh: the
// caller sets its display). The caller holds s.mu.
func (s *series) hotKey(p []byte) (h *hotKey, fresh bool) {
	if h := s.hot[string(p)]; h != nil {
		return h, false
	}
	if len(s.hot) >= maxHotKeys {
		for k, h := range s.hot {
			h.read, h.write, h.throttled = h.read/2, h.write/2, h.throttled/2
			if h.read+h.write < 1 && h.throttled == 0 {
				delete(s.hot, k)
			}
		}
	}
	h = &hotKey{}
	s.hot[string(p)] = h
	return h, true
}

// hottest ranks keys by throttled requests, then by consumed units, and
// keeps n of them, always with the key of the latest throttle event (the
// one being throttled now) among them.
func hottest(keys []HotKey, events []ThrottleMark, n int) []HotKey {
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.Throttled != b.Throttled {
			return a.Throttled > b.Throttled
		}
		if a.Read+a.Write != b.Read+b.Write {
			return a.Read+a.Write > b.Read+b.Write
		}
		return a.Key < b.Key
	})
	now := ""
	for i := len(events) - 1; i >= 0 && now == ""; i-- {
		now = events[i].Key
	}
	if len(keys) > n && now != "" {
		for i := n; i < len(keys); i++ {
			if keys[i].Key == now {
				keys[n-1] = keys[i]
				break
			}
		}
	}
	return keys[:min(len(keys), n)]
}

// Point is one second of a timeline.
type Point struct {
	Time  int64   `json:"t"`
	Read  float64 `json:"read"`
	Write float64 `json:"write"`
	// ReadCapacity … WriteBalance are the table bucket's; null when no
	// request charged it that second.
	ReadCapacity  *float64       `json:"readCap,omitempty"`
	WriteCapacity *float64       `json:"writeCap,omitempty"`
	ReadBalance   *float64       `json:"readBal,omitempty"`
	WriteBalance  *float64       `json:"writeBal,omitempty"`
	Throttles     map[string]int `json:"throttles,omitempty"`
}

// HotKey is one partition key value and what it consumed recently.
type HotKey struct {
	Key       string  `json:"key"`
	Read      float64 `json:"read"`
	Write     float64 `json:"write"`
	Throttled int     `json:"throttled"`
}

// Timeline is what the throttling page draws.
type Timeline struct {
	Now     int64              `json:"now"`
	Points  []Point            `json:"points"`
	Indexes map[string][]Point `json:"indexes,omitempty"`
	Events  []ThrottleMark     `json:"events"`
	Hot     []HotKey           `json:"hot"`
	// Status is the table's buckets now.
	Status emulator.ThrottleStatus `json:"status"`
}

// Timeline returns the last seconds (at most 300) of table in ns and of
// each of its indexes.
func (r *Recorder) Timeline(ns api.Namespace, table string, seconds int) Timeline {
	seconds = min(max(seconds, 1), window)
	now := r.now().Unix()
	tl := Timeline{Now: now, Points: []Point{}, Events: []ThrottleMark{}, Hot: []HotKey{}}
	r.mu.RLock()
	var idx []seriesKey
	for k := range r.series {
		if k.ns == ns && k.table == table && k.index != "" {
			idx = append(idx, k)
		}
	}
	ts := r.series[seriesKey{ns, table, ""}]
	r.mu.RUnlock()
	if ts != nil {
		tl.Points = ts.points(now, seconds)
		ts.mu.Lock()
		tl.Events = append(tl.Events, ts.events[ts.evStart:]...)
		tl.Events = append(tl.Events, ts.events[:ts.evStart]...)
		for _, h := range ts.hot {
			tl.Hot = append(tl.Hot, HotKey{Key: h.display, Read: h.read, Write: h.write, Throttled: h.throttled})
		}
		ts.mu.Unlock()
		tl.Hot = hottest(tl.Hot, tl.Events, 10)
	}
	for _, k := range idx {
		if tl.Indexes == nil {
			tl.Indexes = map[string][]Point{}
		}
		r.mu.RLock()
		s := r.series[k]
		r.mu.RUnlock()
		tl.Indexes[k.index] = s.points(now, seconds)
	}
	return tl
}

func (s *series) points(now int64, seconds int) []Point {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Point, 0, seconds)
	for t := now - int64(seconds) + 1; t <= now; t++ {
		p := Point{Time: t}
		if sec := &s.secs[t%window]; sec.unix == t {
			p.Read, p.Write = sec.read, sec.write
			if sec.hasR {
				p.ReadCapacity, p.ReadBalance = ptr(sec.rcap), ptr(sec.rbal)
			}
			if sec.hasW {
				p.WriteCapacity, p.WriteBalance = ptr(sec.wcap), ptr(sec.wbal)
			}
			if len(sec.throttles) > 0 {
				p.Throttles = make(map[string]int, len(sec.throttles))
				for k, v := range sec.throttles {
					p.Throttles[k] = v
				}
			}
		}
		out = append(out, p)
	}
	return out
}

var _ emulator.Observer = (*Recorder)(nil)
