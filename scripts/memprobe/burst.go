package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// burst measures what a burst of the largest legal requests leaves behind:
// conns clients at once, half sending bodies of almost 16 MB (a
// BatchWriteItem of 25 items of 640 KB, decoded whole before DynamoDB's
// item size limit refuses it), half reading 1 MB Scan pages of 400 KB
// items, rounds times each; then the RSS 5, 15, 30 and 60 seconds after.
func (p *probe) burst(ctx context.Context, conns, rounds int) error {
	fmt.Printf("%-22s %9s %9s %9s %9s %9s %9s %9s\n", "phase", "seconds", "rss_mb", "peak_mb", "gosys_mb", "heap_mb", "cache_mb", "memtbl_mb")
	idle := func(name string, d time.Duration) error {
		return p.phase(name, func() error { time.Sleep(d); return nil })
	}
	if err := idle("idle (empty)", 3*time.Second); err != nil {
		return err
	}
	if _, err := p.do(ctx, "CreateTable", fmt.Sprintf(`{"TableName":%q,"BillingMode":"PAY_PER_REQUEST",`+
		`"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}`, p.table)); err != nil {
		return err
	}
	big := strings.Repeat("x", 390<<10)
	for i := range 20 {
		if _, err := p.do(ctx, "PutItem", fmt.Sprintf(`{"TableName":%q,"Item":{"pk":{"S":"p%02d"},"v":{"S":%q}}}`, p.table, i, big)); err != nil {
			return err
		}
	}
	var huge bytes.Buffer
	fmt.Fprintf(&huge, `{"RequestItems":{%q:[`, p.table)
	tooBig := strings.Repeat("y", 640<<10)
	for i := range 25 {
		if i > 0 {
			huge.WriteByte(',')
		}
		fmt.Fprintf(&huge, `{"PutRequest":{"Item":{"pk":{"S":"h%02d"},"v":{"S":%q}}}}`, i, tooBig)
	}
	huge.WriteString(`]}}`)
	body := huge.String()
	err := p.phase(fmt.Sprintf("burst %dx%d", conns, rounds), func() error {
		errs := make(chan error, conns)
		var wg sync.WaitGroup
		for c := range conns {
			wg.Go(func() {
				for range rounds {
					var err error
					if c%2 == 0 {
						// Refused (an item over 400 KB): the body is read
						// and decoded all the same.
						_, err = p.do(ctx, "BatchWriteItem", body)
						if err != nil && strings.Contains(err.Error(), "ValidationException") {
							err = nil
						}
					} else {
						_, err = p.do(ctx, "Scan", fmt.Sprintf(`{"TableName":%q}`, p.table))
					}
					if err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		return <-errs
	})
	if err != nil {
		return err
	}
	for _, after := range []struct {
		name string
		d    time.Duration
	}{{"5 s after", 5 * time.Second}, {"15 s after", 10 * time.Second}, {"30 s after", 15 * time.Second}, {"60 s after", 30 * time.Second}} {
		if err := idle(after.name, after.d); err != nil {
			return err
		}
	}
	return nil
}
