package emulator

// The auto scaling worker: target tracking on the consumed capacity the
// throttle manager sees, as Application Auto Scaling does with CloudWatch
// alarms on the service.
//
// Each pass samples, for every PROVISIONED table and GSI capacity with
// settings (autoscaling.go), the running total of units charged to its
// bucket (throttle's Consumed) and turns what was consumed since the last
// sample into one datapoint per whole minute of the engine's clock
// (Options.AutoScaleDatapoint), in units per second. Then, like the service's two alarms:
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

	"github.com/extenddb/extenddb/throttle"
)

// DefaultAutoScaleInterval is the worker's period when
// Options.AutoScaleInterval is zero. Datapoints are minutes of the engine's
// clock whatever the period; a shorter one only notices them sooner.
const DefaultAutoScaleInterval = 10 * time.Second

// The alarms' evaluation periods, in one-minute datapoints.
const (
	scaleOutPoints = 2
	scaleInPoints  = 15
)

// autoScaleState is the worker's state; its zero value is a stopped worker
// with no datapoints.
type autoScaleState struct {
	// mu serialises passes (the worker's and tests' AutoScale calls) and
	// guards series.
	mu     sync.Mutex
	series map[scaleKey]*scaleSeries

	stopOnce sync.Once
	cancel   context.CancelFunc
	done     chan struct{}
}

// scaleKey names one auto scaled capacity.
type scaleKey struct {
	ns           Namespace
	table, index string
	d            throttle.Direction
}

// scaleSeries is one capacity's datapoints.
type scaleSeries struct {
	src     any // the throttle handle sampled; another starts the series over
	table   tableID
	at      time.Time
	used    float64
	points  []float64 // units per second, oldest first, at most scaleInPoints
	lastOut time.Time // the last scale-out and scale-in, for the cooldowns
	lastIn  time.Time
}

// consumer is what the worker samples: a table's or a GSI's throttle handle.
type consumer interface {
	Consumed(d throttle.Direction) float64
}

func (e *Engine) startAutoScale() {
	every := e.opts.AutoScaleInterval
	if every == 0 {
		every = DefaultAutoScaleInterval
	}
	if every < 0 {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	e.as.cancel, e.as.done = cancel, make(chan struct{})
	go func() {
		defer close(e.as.done)
		tk := time.NewTicker(every)
		defer tk.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tk.C:
				if _, err := e.AutoScale(ctx); err != nil && ctx.Err() == nil {
					e.log.Warn().Err(err).Msg("auto scaling pass failed")
				}
			}
		}
	}()
}

func (e *Engine) stopAutoScale() {
	e.as.stopOnce.Do(func() {
		if e.as.cancel != nil {
			e.as.cancel()
			<-e.as.done
		}
	})
}

// scaleTarget is one auto scaled capacity as a pass sees it.
type scaleTarget struct {
	key scaleKey
	t   *tableMeta
	ix  *indexMeta // nil for the table
	s   *scalingSettings
	src consumer
	cur int64
}

// AutoScale runs one auto scaling pass at the engine clock's now and
// returns how many capacities it changed. The worker calls it every
// AutoScaleInterval; tests call it directly.
func (e *Engine) AutoScale(ctx context.Context) (int, error) {
	e.as.mu.Lock()
	defer e.as.mu.Unlock()
	now := e.now()
	period := e.opts.AutoScaleDatapoint
	if period <= 0 {
		period = time.Minute
	}
	targets := e.scaleTargets(now)
	if e.as.series == nil {
		e.as.series = map[scaleKey]*scaleSeries{}
	}
	live := make(map[scaleKey]bool, len(targets))
	// want collects the new capacities per table, then per GSI, so both
	// directions of one change go in one UpdateTable.
	type change struct {
		t       *tableMeta
		ix      *indexMeta
		read    int64
		write   int64
		out, in []scaleKey
	}
	var order []string
	changes := map[string]*change{}
	for _, g := range targets {
		live[g.key] = true
		ser := e.as.sample(g, now, period)
		next, out := decide(g, ser, now)
		if next == g.cur {
			continue
		}
		id := g.key.ns.Account + "\x00" + g.key.ns.Region + "\x00" + g.key.table + "\x00" + g.key.index
		c := changes[id]
		if c == nil {
			c = &change{t: g.t, ix: g.ix, read: g.t.Throughput.Read, write: g.t.Throughput.Write}
			if g.ix != nil {
				c.read, c.write = g.ix.Throughput.Read, g.ix.Throughput.Write
			}
			changes[id] = c
			order = append(order, id)
		}
		if g.key.d == throttle.Read {
			c.read = next
		} else {
			c.write = next
		}
		if out {
			c.out = append(c.out, g.key)
		} else {
			c.in = append(c.in, g.key)
		}
	}
	for k := range e.as.series {
		if !live[k] {
			delete(e.as.series, k)
		}
	}
	n := 0
	for _, id := range order {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		c := changes[id]
		pt := &ProvisionedThroughput{ReadCapacityUnits: refOf(c.read), WriteCapacityUnits: refOf(c.write)}
		in := &UpdateTableInput{TableName: refOf(c.t.Name)}
		if c.ix == nil {
			in.ProvisionedThroughput = pt
		} else {
			in.GlobalSecondaryIndexUpdates = []GlobalSecondaryIndexUpdate{{Update: &UpdateGlobalSecondaryIndexAction{IndexName: refOf(c.ix.Name), ProvisionedThroughput: pt}}}
		}
		if _, err := e.UpdateTable(ctx, c.t.ns(), in); err != nil {
			var de *Error
			if !errors.As(err, &de) {
				return n, err
			}
			// Busy, or the decrease budget is spent: the datapoints
			// stay, and a later pass tries again.
			e.log.Debug().Err(err).Str("table", c.t.Name).Str("index", indexName(c.ix)).Msg("auto scaling: capacity not changed")
			continue
		}
		n += len(c.out) + len(c.in)
		e.log.Info().Str("table", c.t.Name).Str("index", indexName(c.ix)).Int64("read", c.read).Int64("write", c.write).Msg("auto scaling: capacity changed")
		for _, k := range c.out {
			ser := e.as.series[k]
			ser.points, ser.lastOut = nil, now
		}
		for _, k := range c.in {
			ser := e.as.series[k]
			ser.points, ser.lastIn = nil, now
		}
	}
	return n, nil
}

func indexName(ix *indexMeta) string {
	if ix == nil {
		return ""
	}
	return ix.Name
}

// scaleTargets lists every auto scaled capacity of an ACTIVE PROVISIONED
// table or GSI, in a stable order.
func (e *Engine) scaleTargets(now time.Time) []scaleTarget {
	var out []scaleTarget
	e.rlockCatalog()
	for ns, m := range e.tables {
		for _, t := range m {
			if t.BillingMode == billingPayPerRequest || t.thr == nil || t.status(now) != statusActive {
				continue
			}
			add := func(ix *indexMeta, sc *capacityScaling, src consumer, pt ptState) {
				if sc == nil {
					return
				}
				k := scaleKey{ns: ns, table: t.Name, index: indexName(ix)}
				if sc.Read != nil {
					k.d = throttle.Read
					out = append(out, scaleTarget{key: k, t: t, ix: ix, s: sc.Read, src: src, cur: pt.Read})
				}
				if sc.Write != nil {
					k.d = throttle.Write
					out = append(out, scaleTarget{key: k, t: t, ix: ix, s: sc.Write, src: src, cur: pt.Write})
				}
			}
			add(nil, t.Scaling, t.thr, t.Throughput)
			for _, ix := range t.GSIs {
				if ix.thr != nil && ix.status(now) == statusActive {
					add(ix, ix.Scaling, ix.thr, ix.Throughput)
				}
			}
		}
	}
	e.mu.RUnlock()
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
func (s *autoScaleState) sample(g scaleTarget, now time.Time, period time.Duration) *scaleSeries {
	ser := s.series[g.key]
	used := g.src.Consumed(g.key.d)
	if ser == nil || ser.src != g.src || ser.table != g.t.ID || now.Before(ser.at) {
		ser = &scaleSeries{src: g.src, table: g.t.ID, at: now, used: used}
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
func decide(g scaleTarget, ser *scaleSeries, now time.Time) (int64, bool) {
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
