package main

import (
	"flag"
	"fmt"
	"io"
)

// flagGroup is a heading of serve --help and the flags under it.
type flagGroup struct {
	title string
	flags []string
}

// serveFlagGroups is serve --help's order: the flags most runs need
// first, then every flag by concern (a flag of the first group is not
// repeated). A serve flag in no group is listed under "Other"
// (TestServeFlagsGrouped keeps that list empty).
var serveFlagGroups = []flagGroup{
	{"Common flags", []string{"addr", "in-memory", "data-dir", "load", "default-region", "default-account",
		"access-key-account", "auth", "credentials", "console", "throttle", "log-level"}},
	{"Network", []string{"cors", "http-front", "request-timeout", "shutdown-timeout", "metrics", "metrics-token", "pprof"}},
	{"Store", []string{"store", "cache-size", "memtable-size", "sync", "lease", "snapshot"}},
	{"Accounts and authorization", []string{"account-per-access-key", "policy-update-block"}},
	{"Terraform and CloudFormation (--load)", []string{"var", "var-file", "param", "param-file", "stack-name", "stack-account",
		"stack-region", "exports-file", "replace-on-key-change"}},
	{"Throttling", []string{"throttle-initial-burst", "account-read-units", "account-write-units", "table-read-units",
		"table-write-units", "partition-read-units", "partition-write-units"}},
	{"Background work and timing", []string{"transition-delay", "ttl-interval", "pitr-lag", "replication-delay",
		"auto-scale-interval", "auto-scale-datapoint", "legacy-global-tables", "kinesis-endpoint", "s3-dir", "s3-endpoint"}},
	{"Logging", []string{"log-format"}},
}

// printGroupedFlags prints fs's flags under groups' headings, then any
// left over under "Other", then the DynamoDB Local aliases.
func printGroupedFlags(w io.Writer, fs *flag.FlagSet, groups []flagGroup) {
	seen := map[string]bool{}
	for i, g := range groups {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s:\n\n", g.title)
		for _, name := range g.flags {
			if f := fs.Lookup(name); f != nil && !seen[name] {
				seen[name] = true
				printFlag(w, f)
			}
		}
	}
	var other []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) {
		if !seen[f.Name] && !isAlias(f) {
			other = append(other, f)
		}
	})
	if len(other) > 0 {
		fmt.Fprint(w, "\nOther:\n\n")
		for _, f := range other {
			printFlag(w, f)
		}
	}
	printAliases(w, fs)
}
