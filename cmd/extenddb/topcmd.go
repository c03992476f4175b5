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
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/extenddb/extenddb/wire"
)

// topCmdConfig is what `extenddb top` is told.
type topCmdConfig struct {
	endpoint, index, account, region string
	once                             bool
	interval                         time.Duration
	top, minutes                     int
}

func newTopCmdFlags() (*flag.FlagSet, *topCmdConfig) {
	c := &topCmdConfig{endpoint: "http://localhost:8000", interval: 2 * time.Second, top: 10}
	fs := flag.NewFlagSet("top", flag.ContinueOnError)
	fs.StringVar(&c.endpoint, "endpoint", c.endpoint, "`URL` of the running server")
	fs.StringVar(&c.index, "index", c.index, "`INDEX`: a global secondary index of the table, whose keys to show instead")
	fs.StringVar(&c.account, "account", c.account, "`ACCOUNT` of the table (default: the server's --default-account; under --auth=sigv4 the signer's)")
	fs.StringVar(&c.region, "region", c.region, "`REGION` of the table (default: the server's --default-region; under --auth=sigv4 the Region signed for)")
	fs.BoolVar(&c.once, "once", c.once, "print the top keys once and exit, instead of refreshing the view")
	fs.DurationVar(&c.interval, "interval", c.interval, "`DURATION` between refreshes of the live view")
	fs.IntVar(&c.top, "top", c.top, "`N` keys per list (0: every key counted)")
	fs.IntVar(&c.minutes, "minutes", c.minutes, "`M` minutes back the lists reach (default: the whole window, an hour)")
	return fs, c
}

func topCmdUsage(_ *cli, w io.Writer) {
	fs, _ := newTopCmdFlags()
	fmt.Fprint(w, `Usage: extenddb top TABLE [flags]

Show the most accessed and most throttled keys of a table (or, with --index,
one of its global secondary indexes) on a running server, refreshed live
until interrupted: what Contributor Insights counts while it is enabled
(aws dynamodb update-contributor-insights --contributor-insights-action ENABLE).
DynamoDB delivers these to CloudWatch; ExtendDB serves them itself.

Accessed keys are ranked by consumed capacity units, throttled keys by
throttle refusals; "items" are partition and sort key together.

It calls the server's `+wire.InsightsAdminPath+` endpoint, which is off the DynamoDB API.

Flags:

`)
	printFlags(w, fs)
}

func runTopCmd(ctx context.Context, c *cli, args []string) int {
	table := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		table, args = args[0], args[1:]
	}
	fs, cfg := newTopCmdFlags()
	err := parseFlags(fs, args, c.getenv)
	switch {
	case errors.Is(err, flag.ErrHelp):
		topCmdUsage(c, c.stdout)
		return 0
	case err != nil:
		return usageFailed(c, "top", err)
	case table == "":
		return usageFailed(c, "top", errors.New("give the TABLE: extenddb top TABLE"))
	case cfg.top < 0:
		return usageFailed(c, "top", errors.New("--top must be 0 or more"))
	case cfg.minutes < 0:
		return usageFailed(c, "top", errors.New("--minutes must be 1 or more"))
	case !cfg.once && cfg.interval <= 0:
		return usageFailed(c, "top", errors.New("--interval must be positive"))
	}
	u, err := controlURL(cfg.endpoint, wire.InsightsAdminPath)
	if err != nil {
		return usageFailed(c, "top", err)
	}
	q := url.Values{"table": {table}, "top": {strconv.Itoa(cfg.top)}}
	for k, v := range map[string]string{"index": cfg.index, "account": cfg.account, "region": cfg.region} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if cfg.minutes > 0 {
		q.Set("minutes", strconv.Itoa(cfg.minutes))
	}
	u.RawQuery = q.Encode()
	sg := newAdminSigner(c.getenv, cfg.region)
	if cfg.once {
		ans, err := callInsightsAdmin(ctx, sg, u.String())
		if err != nil {
			fmt.Fprintf(c.stderr, "extenddb top: %v\n", err)
			return 1
		}
		printTop(c.stdout, ans)
		return 0
	}
	if c.notify != nil {
		var stop context.CancelFunc
		ctx, stop = c.notify(ctx)
		defer stop()
	}
	tk := time.NewTicker(cfg.interval)
	defer tk.Stop()
	for {
		ans, err := callInsightsAdmin(ctx, sg, u.String())
		if ctx.Err() != nil {
			return 0
		}
		// Home and clear: the view is redrawn in place, like top(1).
		fmt.Fprint(c.stdout, "\x1b[H\x1b[2J")
		if err != nil {
			fmt.Fprintf(c.stdout, "extenddb top: %v (retrying every %s)\n", err, cfg.interval)
		} else {
			printTop(c.stdout, ans)
			fmt.Fprintf(c.stdout, "\nrefreshed %s every %s; Ctrl-C to quit\n", time.Now().Format("15:04:05"), cfg.interval)
		}
		select {
		case <-ctx.Done():
			return 0
		case <-tk.C:
		}
	}
}

// topKey and topAnswer mirror the endpoint's JSON answer.
type topKey struct {
	Key   map[string]map[string]json.RawMessage
	Count float64
	Error float64
}

type topAnswer struct {
	Account, Region, Table, Index, Status, Mode string
	PartitionKey, SortKey                       string
	WindowSeconds                               float64
	AccessedPartitionKeys, AccessedItems        []topKey
	ThrottledPartitionKeys, ThrottledItems      []topKey
	Error                                       string
}

func callInsightsAdmin(ctx context.Context, sg *adminSigner, u string) (*topAnswer, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := sg.do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var ans topAnswer
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&ans); err != nil {
		return nil, fmt.Errorf("%s answered %s, not the insights endpoint (is it an extenddb?)", u, resp.Status)
	}
	if ans.Error != "" || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", resp.Status, ans.Error)
	}
	return &ans, nil
}

func printTop(w io.Writer, a *topAnswer) {
	what := "table " + a.Table
	if a.Index != "" {
		what = "index " + a.Index + " of " + what
	}
	fmt.Fprintf(w, "%s in account %s, Region %s\n", what, a.Account, a.Region)
	if a.Mode == "" {
		fmt.Fprintf(w, "Contributor Insights is %s: nothing is counted. Enable it with\n  aws dynamodb update-contributor-insights --table-name %s", a.Status, a.Table)
		if a.Index != "" {
			fmt.Fprintf(w, " --index-name %s", a.Index)
		}
		fmt.Fprint(w, " --contributor-insights-action ENABLE\n")
		return
	}
	fmt.Fprintf(w, "Contributor Insights %s (%s), last %s\n", a.Status, a.Mode, time.Duration(a.WindowSeconds*float64(time.Second)))
	lists := []struct {
		title string
		keys  []topKey
		show  bool
	}{
		{"most accessed partition keys (capacity units)", a.AccessedPartitionKeys, a.Mode != "THROTTLED_KEYS"},
		{"most accessed items (capacity units)", a.AccessedItems, a.Mode != "THROTTLED_KEYS" && a.SortKey != ""},
		{"most throttled partition keys (throttle events)", a.ThrottledPartitionKeys, true},
		{"most throttled items (throttle events)", a.ThrottledItems, a.SortKey != ""},
	}
	for _, l := range lists {
		if !l.show {
			continue
		}
		fmt.Fprintf(w, "\n%s\n", l.title)
		if len(l.keys) == 0 {
			fmt.Fprint(w, "  (none)\n")
		}
		for i, k := range l.keys {
			approx := ""
			if k.Error > 0 {
				approx = fmt.Sprintf(" (±%g)", k.Error)
			}
			fmt.Fprintf(w, "  %2d. %10.1f%s  %s\n", i+1, k.Count, approx, formatTopKey(k.Key, a.PartitionKey, a.SortKey))
		}
	}
}

// formatTopKey prints a key as name=value pairs, partition key first:
// strings quoted, numbers bare, binaries in base64 with a b64: prefix.
func formatTopKey(k map[string]map[string]json.RawMessage, pk, sk string) string {
	names := make([]string, 0, len(k))
	for n := range k {
		names = append(names, n)
	}
	rank := func(n string) int {
		switch n {
		case pk:
			return 0
		case sk:
			return 1
		}
		return 2
	}
	sort.Slice(names, func(i, j int) bool {
		if ri, rj := rank(names[i]), rank(names[j]); ri != rj {
			return ri < rj
		}
		return names[i] < names[j]
	})
	parts := make([]string, 0, len(names))
	for _, n := range names {
		var s string
		for typ, raw := range k[n] {
			var v string
			_ = json.Unmarshal(raw, &v)
			switch typ {
			case "S":
				s = strconv.Quote(v)
			case "B":
				s = "b64:" + v
			default:
				s = v
			}
		}
		parts = append(parts, n+"="+s)
	}
	return strings.Join(parts, " ")
}
