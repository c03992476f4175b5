package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// envName is the environment variable that sets flag name when the command
// line does not: --data-dir → EXTENDDB_DATA_DIR.
func envName(name string) string {
	return "EXTENDDB_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// usageError is a command-line mistake (exit 2, usage on stderr) as opposed
// to a failure while running (exit 1).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// parseFlags parses args into fs, then fills every flag the command line left
// unset from its EXTENDDB_* variable. It returns flag.ErrHelp for -h/--help
// and a usageError for anything malformed; fs prints nothing.
func parseFlags(fs *flag.FlagSet, args []string, getenv func(string) string) error {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageErrorf("unexpected argument %q", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if set[f.Name] || err != nil {
			return
		}
		if v := getenv(envName(f.Name)); v != "" {
			if e := fs.Set(f.Name, v); e != nil {
				err = usageErrorf("%s=%q: %w", envName(f.Name), v, e)
			}
		}
	})
	return err
}

// printFlags writes every flag of fs with its default and environment
// variable. Unlike flag.PrintDefaults it shows zero defaults too, so the
// help is a complete reference.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		if isBool(f) {
			arg = ""
		}
		line := "  --" + f.Name
		if arg != "" {
			line += " " + arg
		}
		def := f.DefValue
		if def == "" {
			def = `""`
		}
		fmt.Fprintf(w, "%s\n    \t%s\n    \t(default %s; env %s)\n", line, strings.ReplaceAll(usage, "\n", "\n    \t"), def, envName(f.Name))
	})
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
