package ttl

import (
	"math/big"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
)

// TTL is a table's Time to Live setting, embedded in the engine's table
// metadata: its fields are stored as they are named here.
type TTL struct {
	TTLEnabled bool   `json:"ttl,omitempty"`
	TTLAttr    string `json:"ttlAttr,omitempty"`
}

// maxAge: DynamoDB does not delete items whose TTL is more than five
// years in the past.
const maxAge = 5 * 365 * 24 * time.Hour

// Expired reports whether item's TTL attribute attr is a Number of epoch
// seconds in the past (and not more than five years so).
func Expired(item av.Item, attr string, now time.Time) bool {
	v, ok := item[attr]
	if !ok || v.Type != av.TypeN {
		return false
	}
	f, _, err := big.ParseFloat(v.S, 10, 128, big.ToNearestEven)
	if err != nil {
		return false
	}
	return f.Cmp(big.NewFloat(float64(now.Unix()))) < 0 &&
		f.Cmp(big.NewFloat(float64(now.Add(-maxAge).Unix()))) >= 0
}

// Update enables or disables TTL on the table name in ns (UpdateTimeToLive,
// whose request has passed the shape checks).
func Update(c Core, ns api.Namespace, name string, enable bool, attr string) (*api.UpdateTimeToLiveOutput, error) {
	err := c.Change(ns, name, func(t TTL) (TTL, error) {
		switch {
		case enable && t.TTLEnabled && t.TTLAttr == attr:
			return t, api.Validation("TimeToLive is already enabled")
		case t.TTLEnabled && t.TTLAttr != attr:
			return t, api.Validation("TimeToLive is active on a different AttributeName: current AttributeName is %s", t.TTLAttr)
		case !enable && !t.TTLEnabled:
			return t, api.Validation("TimeToLive is already disabled")
		}
		next := TTL{TTLEnabled: enable}
		if enable {
			next.TTLAttr = attr
		}
		return next, nil
	})
	if err != nil {
		return nil, err
	}
	return &api.UpdateTimeToLiveOutput{TimeToLiveSpecification: &api.DescribedTimeToLiveSpecification{Enabled: enable, AttributeName: attr}}, nil
}

// Describe reports the TTL setting of the table name in ns
// (DescribeTimeToLive).
func Describe(c Core, ns api.Namespace, name string) (*api.DescribeTimeToLiveOutput, error) {
	t, s, err := c.Setting(ns, name)
	if err != nil {
		return nil, err
	}
	if s == "CREATING" || s == "DELETING" {
		return nil, api.Validation("Cannot describe time to live while table is in %s state: Current table state is %s", s, s)
	}
	d := &api.TimeToLiveDescription{TimeToLiveStatus: "DISABLED"}
	if t.TTLEnabled {
		d.TimeToLiveStatus, d.AttributeName = "ENABLED", t.TTLAttr
	}
	return &api.DescribeTimeToLiveOutput{TimeToLiveDescription: d}, nil
}
