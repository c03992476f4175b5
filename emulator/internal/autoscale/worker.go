package autoscale

// The worker: target tracking on the consumed capacity the throttle
// manager sees, as Application Auto Scaling does with CloudWatch alarms on
// the service.
//
// Each pass samples, for every PROVISIONED table and GSI capacity with
// settings (settings.go), the running total of units charged to its
// bucket (throttle's Consumed) and turns what was consumed since the last
// sample into one datapoint per whole minute of the engine's clock
// (the engine's Options.AutoScaleDatapoint), in units per second. Then,
// like the service's two alarms:
//   - scale-out: the last 2 datapoints both above the target utilisation of
//     the current capacity raise it to what would put the latest at the
//     target, at most MaximumUnits;
//   - scale-in (unless DisableScaleIn): the last 15 datapoints all below it
//     lower it to what would put the highest of them at the target, at
//     least MinimumUnits;
//   - a capacity outside [MinimumUnits, MaximumUnits] is brought inside at
//     once, as registering a scalable target does.
//
// A change is an UpdateTable of the table's ProvisionedThroughput (or one
// GSI's), so it is validated, counted against the day's decrease budget,
// persisted, described and applied to the throttle buckets exactly as a
// user's would be; a refusal (the table busy, the decrease budget spent)
// leaves the datapoints to try again at the next pass. After a change the
// datapoints start over, as the service's alarms re-evaluate against the
// new capacity. The datapoints are memory only: after a restart a capacity
// needs 2 (or 15) fresh minutes before it scales.

import (
	"context"
	"errors"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/throttle"
)

// The alarms' evaluation periods, in one-minute datapoints.
const (
	scaleOutPoints = 2
	scaleInPoints  = 15
)

// State is the worker's state; its zero value is a worker with no
// datapoints.
type State struct {
	// mu serialises passes (the worker's and tests') and guards series.
	mu     sync.Mutex
	series map[key]*series
}

// key names one auto scaled capacity.
type key struct {
	ns           api.Namespace
	table, index string
	d            throttle.Direction
}

// series is one capacity's datapoints.
type series struct {
	src     Consumer // the throttle handle sampled; another starts the series over
	table   [16]byte
	at      time.Time
	used    float64
	points  []float64 // units per second, oldest first, at most scaleInPoints
	lastOut time.Time // the last scale-out and scale-in, for the cooldowns
	lastIn  time.Time
}

// target is one auto scaled capacity as a pass sees it.
type target struct {
	key key
	c   *Capacity
	s   *Settings
	cur int64
}

// change is the new capacities of one table or GSI: both directions of
// one change go in one UpdateTable.
type change struct {
	c       *Capacity
	read    int64
	write   int64
	out, in []key
}

// Pass runs one auto scaling pass at the engine clock's now, one
// datapoint per period of the clock, and returns how many capacities it
// changed.
func (s *State) Pass(ctx context.Context, c Core, period time.Duration) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := c.Now()
	targets := targets(c.Capacities(now))
	if s.series == nil {
		s.series = map[key]*series{}
	}
	live := make(map[key]bool, len(targets))
	var order []string
	changes := map[string]*change{}
	for _, g := range targets {
		live[g.key] = true
		ser := s.sample(g, now, period)
		next, out := decide(g, ser, now)
		if next == g.cur {
			continue
		}
		id := g.key.ns.Account + "\x00" + g.key.ns.Region + "\x00" + g.key.table + "\x00" + g.key.index
		ch := changes[id]
		if ch == nil {
			ch = &change{c: g.c, read: g.c.Read, write: g.c.Write}
			changes[id] = ch
			order = append(order, id)
		}
		if g.key.d == throttle.Read {
			ch.read = next
		} else {
			ch.write = next
		}
		if out {
			ch.out = append(ch.out, g.key)
		} else {
			ch.in = append(ch.in, g.key)
		}
	}
	for k := range s.series {
		if !live[k] {
			delete(s.series, k)
		}
	}
	n := 0
	for _, id := range order {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		k, err := s.apply(ctx, c, changes[id], now)
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// apply makes one change and returns how many capacities it changed; a
// refusal leaves the datapoints for a later pass.
func (s *State) apply(ctx context.Context, c Core, ch *change, now time.Time) (int, error) {
	log := c.Log()
	if err := c.SetThroughput(ctx, ch.c.NS, ch.c.Table, ch.c.Index, ch.read, ch.write); err != nil {
		var de *api.Error
		if !errors.As(err, &de) {
			return 0, err
		}
		// Busy, or the decrease budget is spent: the datapoints
		// stay, and a later pass tries again.
		log.Debug().Err(err).Str("table", ch.c.Table).Str("index", ch.c.Index).Msg("auto scaling: capacity not changed")
		return 0, nil
	}
	log.Info().Str("table", ch.c.Table).Str("index", ch.c.Index).Int64("read", ch.read).Int64("write", ch.write).Msg("auto scaling: capacity changed")
	for _, k := range ch.out {
		ser := s.series[k]
		ser.points, ser.lastOut = nil, now
	}
	for _, k := range ch.in {
		ser := s.series[k]
		ser.points, ser.lastIn = nil, now
	}
	return len(ch.out) + len(ch.in), nil
}

// targets lists every auto scaled capacity of caps, in a stable order.
func targets(caps []Capacity) []target {
	out := make([]target, 0, 2*len(caps))
	for i := range caps {
		c := &caps[i]
		k := key{ns: c.NS, table: c.Table, index: c.Index}
		if c.Scaling.Read != nil {
			k.d = throttle.Read
			out = append(out, target{key: k, c: c, s: c.Scaling.Read, cur: c.Read})
		}
		if c.Scaling.Write != nil {
			k.d = throttle.Write
			out = append(out, target{key: k, c: c, s: c.Scaling.Write, cur: c.Write})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].key, out[j].key
		if a.ns != b.ns {
			return a.ns.Account+"\x00"+a.ns.Region < b.ns.Account+"\x00"+b.ns.Region
		}
		if a.table != b.table {
			return a.table < b.table
		}
		if a.index != b.index {
			return a.index < b.index
		}
		return a.d < b.d
	})
	return out
}

// sample adds g's datapoints (one per period) up to now to its series and
// returns it. The caller holds s.mu.
func (s *State) sample(g target, now time.Time, period time.Duration) *series {
	ser := s.series[g.key]
	used := g.c.Src.Consumed(g.key.d)
	if ser == nil || ser.src != g.c.Src || ser.table != g.c.ID || now.Before(ser.at) {
		ser = &series{src: g.c.Src, table: g.c.ID, at: now, used: used}
		s.series[g.key] = ser
		return ser
	}
	elapsed := now.Sub(ser.at)
	k := int(elapsed / period)
	if k < 1 {
		return ser
	}
	// The whole interval's average stands for each of its minutes: the
	// counter cannot tell them apart.
	rate := (used - ser.used) / elapsed.Seconds()
	for range min(k, scaleInPoints) {
		ser.points = append(ser.points, rate)
	}
	if extra := len(ser.points) - scaleInPoints; extra > 0 {
		ser.points = append(ser.points[:0], ser.points[extra:]...)
	}
	ser.at, ser.used = now, used
	return ser
}

// decide returns the capacity g should have and whether reaching it is a
// scale-out (false: a scale-in); g.cur when it stays.
func decide(g target, ser *series, now time.Time) (int64, bool) {
	s, cur := g.s, g.cur
	switch {
	case cur < s.Min:
		return s.Min, true
	case cur > s.Max:
		return s.Max, false
	case s.Policy == nil:
		return cur, false
	}
	p := s.Policy
	target := p.Target / 100
	above := float64(cur) * target
	if pts := ser.points; len(pts) >= scaleOutPoints && cooled(ser.lastOut, p.OutCooldown, now) {
		last := pts[len(pts)-scaleOutPoints:]
		if last[0] > above && last[1] > above {
			want := min(int64(math.Ceil(last[1]/target)), s.Max)
			if want > cur {
				return want, true
			}
		}
	}
	if p.NoScaleIn != nil && *p.NoScaleIn {
		return cur, false
	}
	if pts := ser.points; len(pts) >= scaleInPoints && cooled(ser.lastIn, p.InCooldown, now) {
		peak := 0.0
		for _, v := range pts {
			if v >= above {
				return cur, false
			}
			peak = max(peak, v)
		}
		want := max(int64(math.Ceil(peak/target)), s.Min)
		if want < cur {
			return want, false
		}
	}
	return cur, false
}

// cooled reports whether a cooldown of secs seconds since last has passed
// (nil or 0: no cooldown).
func cooled(last time.Time, secs *int32, now time.Time) bool {
	if secs == nil || *secs <= 0 || last.IsZero() {
		return true
	}
	return !now.Before(last.Add(time.Duration(*secs) * time.Second))
}

// Reset drops every datapoint (the engine's state was replaced by a
// snapshot restore or a reset).
func (s *State) Reset() {
	s.mu.Lock()
	s.series = nil
	s.mu.Unlock()
}
