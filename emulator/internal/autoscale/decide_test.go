package autoscale

import (
	"slices"
	"testing"
	"time"
)

// TestAutoScaleDecide holds the worker's rule to the alarms it stands for:
// 2 datapoints above the target to scale out, 15 below to scale in, within
// the minimum and maximum, DisableScaleIn and the cooldowns honoured.
func TestAutoScaleDecide(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	pol := func(mod ...func(*Policy)) *Policy {
		p := &Policy{Name: "p", Target: 50}
		for _, m := range mod {
			m(p)
		}
		return p
	}
	rep := func(v float64, n int) []float64 { return slices.Repeat([]float64{v}, n) }
	secs := func(n int32) *int32 { return &n }
	for _, c := range []struct {
		name    string
		cur     int64
		policy  *Policy
		points  []float64
		lastOut time.Time
		lastIn  time.Time
		want    int64
		out     bool
	}{
		{"below the minimum", 2, nil, nil, time.Time{}, time.Time{}, 5, true},
		{"above the maximum", 30, nil, nil, time.Time{}, time.Time{}, 20, false},
		{"no policy holds", 10, nil, rep(100, 15), time.Time{}, time.Time{}, 10, false},
		{"one datapoint above is not sustained", 10, pol(), []float64{1, 8}, time.Time{}, time.Time{}, 10, false},
		{"two above scale out to the target", 10, pol(), []float64{6, 7}, time.Time{}, time.Time{}, 14, true},
		{"scale out stops at the maximum", 10, pol(), []float64{60, 70}, time.Time{}, time.Time{}, 20, true},
		{"at the target is not above", 10, pol(), []float64{5, 5}, time.Time{}, time.Time{}, 10, false},
		{"fourteen below is not sustained", 10, pol(), rep(1, 14), time.Time{}, time.Time{}, 10, false},
		{"fifteen below scale in to the peak", 10, pol(), append(rep(1, 14), 3), time.Time{}, time.Time{}, 6, false},
		{"scale in stops at the minimum", 10, pol(), rep(0, 15), time.Time{}, time.Time{}, 5, false},
		{"one datapoint at the target holds", 10, pol(), append(rep(0, 14), 5), time.Time{}, time.Time{}, 10, false},
		{"DisableScaleIn", 10, pol(func(p *Policy) { p.NoScaleIn = bl(true) }), rep(0, 15), time.Time{}, time.Time{}, 10, false},
		{"scale-out cooldown", 10, pol(func(p *Policy) { p.OutCooldown = secs(300) }), []float64{9, 9}, now.Add(-time.Minute), time.Time{}, 10, false},
		{"scale-out cooldown over", 10, pol(func(p *Policy) { p.OutCooldown = secs(300) }), []float64{9, 9}, now.Add(-5 * time.Minute), time.Time{}, 18, true},
		{"scale-in cooldown", 10, pol(func(p *Policy) { p.InCooldown = secs(3600) }), rep(0, 15), time.Time{}, now.Add(-30 * time.Minute), 10, false},
	} {
		g := target{s: &Settings{Min: 5, Max: 20, Policy: c.policy}, cur: c.cur}
		got, out := decide(g, &series{points: c.points, lastOut: c.lastOut, lastIn: c.lastIn}, now)
		if got != c.want || (got != c.cur && out != c.out) {
			t.Errorf("%s: decide = %d, out %v; want %d, out %v", c.name, got, out, c.want, c.out)
		}
	}
}

func bl(b bool) *bool { return &b }
