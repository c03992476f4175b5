package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// version is set at link time: go build -ldflags "-X main.version=v1.2.3".
// It is the one package-level variable, written only by the linker.
var version = "dev"

// versionString is version, or the module version when built by
// `go install module@version`.
func versionString() string {
	if version != "dev" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return version
}

func versionUsage(_ *cli, w io.Writer) {
	fmt.Fprint(w, "Usage: extenddb version\n\nPrint the version, the Go version it was built with and its VCS revision.\n")
}

func runVersion(_ context.Context, c *cli, args []string) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	if err := parseFlags(fs, args, func(string) string { return "" }); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			versionUsage(c, c.stdout)
			return 0
		}
		fmt.Fprintf(c.stderr, "extenddb version: %v\n\n", err)
		versionUsage(c, c.stderr)
		return 2
	}
	fmt.Fprintf(c.stdout, "extenddb %s\n", versionString())
	fmt.Fprintf(c.stdout, "go: %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if bi, ok := debug.ReadBuildInfo(); ok {
		var rev, when, modified string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					modified = " (modified)"
				}
			}
		}
		if rev != "" {
			fmt.Fprintf(c.stdout, "commit: %s%s %s\n", rev, modified, when)
		}
	}
	return 0
}
