package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/extenddb/extenddb/throttle"
	"github.com/extenddb/extenddb/wire"
)

// throttleCmdConfig is what `extenddb throttle` is told.
type throttleCmdConfig struct {
	endpoint, table, index, account, region, direction string
	rate                                               float64
}

func newThrottleCmdFlags() (*flag.FlagSet, *throttleCmdConfig) {
	c := &throttleCmdConfig{endpoint: "http://localhost:8000"}
	fs := flag.NewFlagSet("throttle", flag.ContinueOnError)
	fs.StringVar(&c.endpoint, "endpoint", c.endpoint, "`URL` of the running server")
	fs.StringVar(&c.table, "table", c.table, "`TABLE` whose buckets to show or change (required)")
	fs.StringVar(&c.index, "index", c.index, "`INDEX`: a global secondary index of the table, whose buckets to show or change instead")
	fs.StringVar(&c.account, "account", c.account, "`ACCOUNT` of the table (default: the server's --default-account; under --auth=sigv4 the signer's)")
	fs.StringVar(&c.region, "region", c.region, "`REGION` of the table (default: the server's --default-region; under --auth=sigv4 the Region signed for)")
	fs.StringVar(&c.direction, "direction", c.direction, "`DIRECTION` drain, pin and unpin act on: read, write or both (default both)")
	fs.Float64Var(&c.rate, "rate", c.rate, "`UNITS` per second for pin")
	return fs, c
}

func throttleCmdUsage(_ *cli, w io.Writer) {
	fs, _ := newThrottleCmdFlags()
	fmt.Fprint(w, `Usage: extenddb throttle ACTION --table TABLE [flags]

Show or steer a table's throttle buckets on a running server, for tests.
ACTION is one of:

	show    the read and write buckets: rate, balance, debt, ceiling
	reset   back to a new table's buckets (their starting balance: one second of their rate unless the server has --throttle-initial-burst)
	drain   into one second of debt, so the next request is refused
	pin     fix the rate at --rate units per second (UpdateTable keeps it)
	unpin   back to the rate the table's throughput gives

It calls the server's `+wire.ThrottleAdminPath+` endpoint, which is off the DynamoDB API.

Flags:

`)
	printFlags(w, fs)
}

func runThrottleCmd(ctx context.Context, c *cli, args []string) int {
	action := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		action, args = args[0], args[1:]
	}
	fs, cfg := newThrottleCmdFlags()
	err := parseFlags(fs, args, c.getenv)
	switch {
	case errors.Is(err, flag.ErrHelp):
		throttleCmdUsage(c, c.stdout)
		return 0
	case err != nil:
		return usageFailed(c, "throttle", err)
	case !oneOf(action, "show", "reset", "drain", "pin", "unpin"):
		return usageFailed(c, "throttle", fmt.Errorf("give an ACTION: show, reset, drain, pin or unpin (got %q)", action))
	case cfg.table == "":
		return usageFailed(c, "throttle", errors.New("--table is required"))
	case action == "pin" && !(cfg.rate > 0):
		return usageFailed(c, "throttle", errors.New("pin needs --rate UNITS (a positive number)"))
	}
	u, err := controlURL(cfg.endpoint, wire.ThrottleAdminPath)
	if err != nil {
		return usageFailed(c, "throttle", err)
	}
	method := http.MethodGet
	if action != "show" {
		method = http.MethodPost
		u.Path += "/" + action
	}
	q := url.Values{"table": {cfg.table}}
	for k, v := range map[string]string{"index": cfg.index, "account": cfg.account, "region": cfg.region, "direction": cfg.direction} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if action == "pin" {
		q.Set("rate", strconv.FormatFloat(cfg.rate, 'g', -1, 64))
	}
	u.RawQuery = q.Encode()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	ans, err := callThrottleAdmin(ctx, newAdminSigner(c.getenv, cfg.region), method, u.String())
	if err != nil {
		fmt.Fprintf(c.stderr, "extenddb throttle: %v\n", err)
		return 1
	}
	printBuckets(c.stdout, ans)
	return 0
}

// throttleAnswer mirrors the endpoint's JSON answer.
type throttleAnswer struct {
	Account, Region, Table, Index string
	Buckets                       *throttle.TableState
	Error                         string
}

func callThrottleAdmin(ctx context.Context, sg *adminSigner, method, u string) (*throttleAnswer, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := sg.do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var ans throttleAnswer
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&ans); err != nil {
		return nil, fmt.Errorf("%s answered %s, not the throttle endpoint (is it an extenddb?)", u, resp.Status)
	}
	if ans.Error != "" || resp.StatusCode != http.StatusOK || ans.Buckets == nil {
		return nil, fmt.Errorf("%s: %s", resp.Status, ans.Error)
	}
	return &ans, nil
}

func printBuckets(w io.Writer, a *throttleAnswer) {
	what := "table " + a.Table
	if a.Index != "" {
		what = "index " + a.Index + " of " + what
	}
	fmt.Fprintf(w, "%s in account %s, Region %s\n", what, a.Account, a.Region)
	for _, d := range []struct {
		name string
		s    throttle.DirState
	}{{"read", a.Buckets.Read}, {"write", a.Buckets.Write}} {
		pinned := ""
		if d.s.Pinned {
			pinned = " (pinned)"
		}
		fmt.Fprintf(w, "  %-6s rate %g/s%s, balance %.2f, debt %.2f, ceiling %g, partition buckets %d\n",
			d.name+":", d.s.Rate, pinned, d.s.Balance, d.s.Debt, d.s.Ceiling, d.s.Partitions)
		if d.s.Debt > 0 && d.s.Rate > 0 {
			// A pin keeps the bucket's seconds of capacity, a drain's debt
			// too: say so rather than leave the user guessing why requests
			// are still refused.
			fmt.Fprintf(w, "          %s requests are refused for about %.1f s more, until refill at %g/s repays the debt (pin keeps a drain's debt; reset starts with a full second)\n",
				d.name, d.s.Debt/d.s.Rate, d.s.Rate)
		}
	}
}
