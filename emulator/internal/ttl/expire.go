package ttl

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
)

// batch bounds how many items one scan step collects before deleting
// them, so a large expiry holds no iterator or lock for long.
const batch = 100

// Expire runs one expiry pass over every table with TTL enabled at now and
// returns how many items it deleted.
func Expire(ctx context.Context, c Core, now time.Time) (int, error) {
	tables := c.Expiring(now)
	sort.Slice(tables, func(i, j int) bool { return tables[i].ARN < tables[j].ARN })
	n := 0
	for _, t := range tables {
		k, err := expireTable(ctx, c, t, now)
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func expireTable(ctx context.Context, c Core, t Table, now time.Time) (int, error) {
	from := t.From
	n := 0
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		keys, next, err := collect(c, t, from, now)
		if err != nil {
			return n, err
		}
		for _, k := range keys {
			ok, err := c.Delete(ctx, t, k, now)
			if err != nil {
				if errors.Is(err, ErrGone) {
					return n, nil
				}
				return n, err
			}
			if ok {
				n++
			}
		}
		if next == nil {
			return n, nil
		}
		from = next
	}
}

// collect returns up to batch keys of expired items of t from from on and
// the key to resume from (nil at the end).
func collect(c Core, t Table, from []byte, now time.Time) ([][]byte, []byte, error) {
	it, err := c.Items(from, t.End)
	if err != nil {
		return nil, nil, err
	}
	defer it.Close()
	var keys [][]byte
	for ok := it.First(); ok; ok = it.Next() {
		if len(keys) == batch {
			return keys, append([]byte(nil), it.Key()...), nil
		}
		item, err := av.DecodeItem(it.Value())
		if err != nil {
			// As the engine answers an unreadable item.
			return nil, nil, &api.Error{Code: api.CodeInternalServerError, Message: "Internal server error: " + err.Error()}
		}
		if Expired(item, t.Attr, now) {
			keys = append(keys, append([]byte(nil), it.Key()...))
		}
	}
	return keys, nil, it.Error()
}
