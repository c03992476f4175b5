package main

import (
	"flag"
	"strings"
	"testing"
)

// TestServeFlagsGrouped: serve --help leads with the common flags, and
// every other flag is under a heading of its concern (none left to
// "Other"); a group names only flags serve has.
func TestServeFlagsGrouped(t *testing.T) {
	_, out, _ := runEnv(t, env("HOME", "/home/u"), "serve", "--help")
	if strings.Contains(out, "\nOther:\n") {
		t.Errorf("serve --help has flags in no group (add them to serveFlagGroups):\n%s", out[strings.Index(out, "\nOther:\n"):])
	}
	first := strings.Index(out, "  --")
	if !strings.Contains(out[:first], "Common flags:") || !strings.HasPrefix(out[first:], "  --addr HOST:PORT") {
		t.Errorf("serve --help does not lead with the common flags:\n%s", out[:min(len(out), first+200)])
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	c := newServeConfig(env("HOME", "/home/u"))
	c.register(fs)
	seen := map[string]bool{}
	for _, g := range serveFlagGroups {
		for _, name := range g.flags {
			if fs.Lookup(name) == nil {
				t.Errorf("group %q names --%s, which serve does not have", g.title, name)
			}
			if seen[name] {
				t.Errorf("--%s is in two groups", name)
			}
			seen[name] = true
		}
	}
	if n := len(serveFlagGroups[0].flags); n > 12 {
		t.Errorf("%d common flags: keep the first group to the dozen most runs need", n)
	}
}
