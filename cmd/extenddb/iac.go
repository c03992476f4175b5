package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/extenddb/extenddb/accounts"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/iac"
	"github.com/extenddb/extenddb/iac/cloudformation"
	"github.com/extenddb/extenddb/iac/spec"
	"github.com/extenddb/extenddb/pebblestore"
	"github.com/extenddb/extenddb/progress"
	"github.com/extenddb/extenddb/wire"
	"github.com/rs/zerolog"
)

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

func (l *stringList) Set(s string) error {
	*l = append(*l, s)
	return nil
}

// iacConfig is what `serve --load` and `validate` are told about the
// infrastructure-as-code files to load.
type iacConfig struct {
	loads        stringList
	vars         stringList
	varFiles     stringList
	params       stringList
	paramFiles   stringList
	stackName    string
	stackRegion  string
	stackAccount string
	exportsFiles stringList
	// replaceOnKeyChange: serve re-creates a table whose keys changed.
	replaceOnKeyChange bool
	// progressEvery is the least time between two progress lines of a
	// load; zero means progress.DefaultEvery. Not a flag: tests shorten it.
	progressEvery time.Duration
	// getenv reads TF_VAR_*, AWS_REGION and AWS_DEFAULT_REGION.
	getenv func(string) string
}

// register declares the loader flags; withLoad adds serve's --load.
func (c *iacConfig) register(fs *flag.FlagSet, withLoad bool) {
	if withLoad {
		fs.Var(&c.loads, "load", "Terraform directory, CloudFormation/SAM template or cdk.out `PATH` to provision before serving; repeatable")
		fs.BoolVar(&c.replaceOnKeyChange, "replace-on-key-change", c.replaceOnKeyChange, "delete and re-create a loaded table whose key schema, key types or LSIs changed (its items are lost); without it such a table is kept as it is, with a warning")
	}
	fs.Var(&c.vars, "var", "Terraform variable `NAME=VALUE`; repeatable")
	fs.Var(&c.varFiles, "var-file", "Terraform variables `FILE` (.tfvars or .tfvars.json); repeatable")
	fs.Var(&c.params, "param", "CloudFormation parameter `KEY=VALUE`; repeatable")
	fs.Var(&c.paramFiles, "param-file", "CloudFormation parameters `FILE` in the aws cloudformation JSON format; repeatable")
	fs.StringVar(&c.stackName, "stack-name", c.stackName, "CloudFormation stack `NAME` (default: the template's file name)")
	fs.StringVar(&c.stackRegion, "stack-region", c.stackRegion, "`REGION` CloudFormation templates deploy into (default: --default-region)")
	fs.StringVar(&c.stackAccount, "stack-account", c.stackAccount, "`ACCOUNT` CloudFormation templates deploy into (default: --default-account)")
	fs.Var(&c.exportsFiles, "exports-file", "`FILE` of values for Fn::ImportValue (aws cloudformation list-exports output, or a JSON object); repeatable")
}

func (c *iacConfig) validate() error {
	if c.stackAccount != "" && !accounts.IsID(c.stackAccount) {
		return fmt.Errorf("--stack-account %q: must be 12 digits", c.stackAccount)
	}
	if c.stackRegion != "" && !accounts.IsRegion(c.stackRegion) {
		return fmt.Errorf("--stack-region %q: must be a Region name such as us-east-1", c.stackRegion)
	}
	return nil
}

// options are the loaders' options: rule resolves Terraform providers'
// access keys to accounts as the server resolves requests' keys.
func (c *iacConfig) options(rule accounts.Rule, region string, getenv func(string) string) (iac.Options, error) {
	exports := map[string]string{}
	for _, f := range c.exportsFiles {
		m, err := cloudformation.ReadExports(f)
		if err != nil {
			return iac.Options{}, err
		}
		for k, v := range m {
			exports[k] = v
		}
	}
	return iac.Options{
		Exports:        exports,
		DefaultAccount: rule.Default, DefaultRegion: region,
		AccessKeyAccounts: rule.Keys, AccountPerAccessKey: rule.PerKey,
		Vars: c.vars, VarFiles: c.varFiles,
		Params: c.params, ParamFiles: c.paramFiles,
		StackName: c.stackName, StackRegion: c.stackRegion, StackAccount: c.stackAccount,
		Getenv: func(name string) (string, bool) {
			v := getenv(name)
			return v, v != ""
		},
	}, nil
}

// errInvalidDefinitions reports that loading or validating failed; the
// diagnostics have been written already.
var errInvalidDefinitions = errors.New("the infrastructure-as-code definitions have errors")

// loadAndCheck loads paths and provisions the result into a throwaway
// in-memory engine, so every table passes CreateTable's own validation
// before anything touches real data. Every diagnostic is passed to report;
// check configures the throwaway provisioning (its progress reports).
func loadAndCheck(ctx context.Context, paths []string, opts iac.Options, report func(iac.Diagnostic), check iac.ProvisionOptions) ([]iac.TableSpec, error) {
	specs, diags := iac.Load(paths, opts)
	diags.Sort()
	for _, d := range condense(diags) {
		report(d)
	}
	if diags.HasErrors() {
		return nil, errInvalidDefinitions
	}
	st, err := pebblestore.Open(pebblestore.Options{InMemory: true})
	if err != nil {
		return nil, err
	}
	defer func() { _ = st.Close() }()
	scratch, err := emulator.New(emulator.Options{Store: st})
	if err != nil {
		return nil, err
	}
	defer func() { _ = scratch.Close() }()
	if _, d := iac.ProvisionWith(ctx, scratch, specs, check); d.HasErrors() {
		for _, e := range condense(d) {
			report(e)
		}
		return nil, errInvalidDefinitions
	}
	return specs, nil
}

// printTo reports diagnostics as lines on w, each followed by its source
// line with a caret under the column, as Terraform shows them.
func printTo(w io.Writer) func(iac.Diagnostic) {
	src := sourceLines{}
	return func(d iac.Diagnostic) {
		fmt.Fprintln(w, d.String())
		if line, ok := src.line(d.Pos); ok {
			fmt.Fprintf(w, "  %5d | %s\n", d.Pos.Line, line)
			if d.Pos.Col > 0 && d.Pos.Col <= len(line)+1 {
				fmt.Fprintf(w, "        | %s^\n", caretPad(line, d.Pos.Col))
			}
		}
	}
}

// logTo reports diagnostics on log at their severity, with the source
// line as a field.
func logTo(log zerolog.Logger) func(iac.Diagnostic) {
	src := sourceLines{}
	return func(d iac.Diagnostic) {
		var ev *zerolog.Event
		switch d.Severity {
		case spec.Error:
			ev = log.Error()
		case spec.Warning:
			ev = log.Warn()
		default:
			ev = log.Info()
		}
		if line, ok := src.line(d.Pos); ok {
			ev = ev.Str("source", strings.TrimSpace(line))
		}
		ev.Msg(d.String())
	}
}

// sourceLines reads each file once, for showing diagnostics' lines.
type sourceLines map[string][]string

func (s sourceLines) line(p iac.Pos) (string, bool) {
	if p.File == "" || p.Line <= 0 {
		return "", false
	}
	lines, ok := s[p.File]
	if !ok {
		// Only files a diagnostic names; a big unreadable file shows nothing.
		if b, err := os.ReadFile(p.File); err == nil && len(b) < 8<<20 {
			lines = strings.Split(string(b), "\n")
		}
		s[p.File] = lines
	}
	if p.Line > len(lines) {
		return "", false
	}
	return strings.TrimRight(lines[p.Line-1], "\r"), true
}

// caretPad is the whitespace before column col of line, keeping its tabs
// so the caret lines up.
func caretPad(line string, col int) string {
	pad := []byte(line[:min(col-1, len(line))])
	for i, c := range pad {
		if c != '\t' {
			pad[i] = ' '
		}
	}
	return string(pad)
}

// maxAlike is how many diagnostics saying the same thing are shown before
// the rest are counted.
const maxAlike = 3

// condense drops exact repeats of a diagnostic (a module called several
// times reports its mistake once per call) and, when one mistake repeats
// over many resources, keeps the first maxAlike and ends with a count.
func condense(ds iac.Diagnostics) iac.Diagnostics {
	seen := map[string]bool{}
	alike := map[string]int{}
	var order []string
	var out iac.Diagnostics
	for _, d := range ds {
		if k := d.String(); seen[k] {
			continue
		} else {
			seen[k] = true
		}
		key := fmt.Sprint(d.Severity) + "\x00" + resourcePrefix().ReplaceAllString(d.Summary, "") + "\x00" + d.Detail
		if alike[key] == 0 {
			order = append(order, key)
		}
		alike[key]++
		if alike[key] <= maxAlike {
			out = append(out, d)
		}
	}
	for _, key := range order {
		if n := alike[key]; n > maxAlike {
			sev, msg, _ := strings.Cut(key, "\x00")
			msg, _, _ = strings.Cut(msg, "\x00")
			d := iac.Diagnostic{Summary: fmt.Sprintf("… and %d more like this: %s", n-maxAlike, msg)}
			for _, x := range ds {
				if fmt.Sprint(x.Severity) == sev {
					d.Severity = x.Severity
					break
				}
			}
			out = append(out, d)
		}
	}
	return out
}

// resourcePrefix is the resource name or address a diagnostic starts with
// ("Orders: ", "aws_dynamodb_table.t: "), so the same mistake in two
// resources is recognised as one.
var resourcePrefix = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9_.\[\]"-]+( \([^)]*\))?: `)
})

// printSpecs writes the tables grouped by account and Region.
func printSpecs(w io.Writer, specs []iac.TableSpec) {
	sorted := append([]iac.TableSpec(nil), specs...)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if a.Account != b.Account {
			return a.Account < b.Account
		}
		if a.Region != b.Region {
			return a.Region < b.Region
		}
		return a.Name() < b.Name()
	})
	last := ""
	for i := range sorted {
		s := &sorted[i]
		if ns := s.Account + "/" + s.Region; ns != last {
			if last != "" {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "account %s, Region %s:\n", s.Account, s.Region)
			last = ns
		}
		for _, line := range strings.Split(strings.TrimRight(iac.Describe(s), "\n"), "\n") {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
	if len(sorted) == 0 {
		fmt.Fprintln(w, "no tables")
	}
}

// provisionLoads loads serve's --load paths, checks them, and provisions
// them into eng before the server accepts requests, then logs what it did
// per account and Region. Diagnostics are logged; an error stops the server
// from starting (a key change is a warning: the table is kept). creds,
// when set (--auth=sigv4), place Terraform providers' keys as the server
// places requests signed with them.
func provisionLoads(ctx context.Context, eng *emulator.Engine, cfg serveConfig, creds *wire.Credentials, log zerolog.Logger) ([]iac.TableSpec, error) {
	opts, err := cfg.iac.options(cfg.accountRule(), cfg.defaultRegion, cfg.iac.getenv)
	if err != nil {
		return nil, err
	}
	if creds != nil {
		opts.CredentialsAccount = creds.KeyAccount
	}
	specs, err := loadAndCheck(ctx, cfg.iac.loads, opts, logTo(log),
		iac.ProvisionOptions{Progress: logProgress(log, "dry run: "), ProgressEvery: cfg.iac.progressEvery})
	if err != nil {
		return nil, err
	}
	outcomes, d := iac.ProvisionWith(ctx, eng, specs, iac.ProvisionOptions{ReplaceOnKeyChange: cfg.iac.replaceOnKeyChange,
		Progress: logProgress(log, ""), ProgressEvery: cfg.iac.progressEvery})
	d.Sort()
	for _, e := range condense(d) {
		logTo(log)(e)
	}
	for _, o := range outcomes {
		log.Info().Str("table", o.Spec.Name()).Str("action", o.Action).Str("arn", o.Spec.ARN()).Str("from", o.Spec.Pos.String()).Msg("provisioned")
	}
	for _, line := range loadSummary(outcomes) {
		log.Info().Msg(line)
	}
	if d.HasErrors() {
		return nil, errInvalidDefinitions
	}
	return specs, nil
}

// logProgress logs a load's progress reports at info, their message
// after prefix: "seeding items in progress items=120000 total=500000
// items_per_second=24000".
func logProgress(log zerolog.Logger, prefix string) func(progress.Report) {
	return func(r progress.Report) {
		ev := log.Info().Int64(r.Unit, r.Count)
		if r.Total > 0 {
			ev = ev.Int64("total", r.Total)
		}
		ev.Float64(r.Unit+"_per_second", r.Rate).Dur("elapsed", r.Elapsed).Msg(prefix + r.Message())
	}
}

// loadSummary is one line per account and Region, then the totals:
// "loaded 4 tables in account 000000000000, Region us-east-1: 1 created,
// 1 updated, 2 unchanged".
func loadSummary(outcomes []iac.Outcome) []string {
	type key struct{ account, region string }
	counts := map[key]map[string]int{}
	total := map[string]int{}
	var keys []key
	for _, o := range outcomes {
		k := key{o.Spec.Account, o.Spec.Region}
		if counts[k] == nil {
			counts[k] = map[string]int{}
			keys = append(keys, k)
		}
		counts[k][o.Action]++
		total[o.Action]++
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].account < keys[j].account || keys[i].account == keys[j].account && keys[i].region < keys[j].region
	})
	describe := func(c map[string]int) string {
		var parts []string
		n := 0
		for _, a := range []string{iac.Created, iac.Updated, iac.Unchanged, iac.Replaced, iac.Kept, iac.Failed} {
			n += c[a]
			if c[a] > 0 || a == iac.Created || a == iac.Updated || a == iac.Unchanged {
				label := a
				if a == iac.Kept {
					label = "kept despite a key change"
				}
				parts = append(parts, fmt.Sprintf("%d %s", c[a], label))
			}
		}
		noun := "tables"
		if n == 1 {
			noun = "table"
		}
		return fmt.Sprintf("%d %s: %s", n, noun, strings.Join(parts, ", "))
	}
	var lines []string
	for _, k := range keys {
		lines = append(lines, fmt.Sprintf("loaded account %s, Region %s: %s", k.account, k.region, describe(counts[k])))
	}
	lines = append(lines, "loaded in total "+describe(total))
	return lines
}
