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
		return flagError(fs, err)
	}
	if fs.NArg() > 0 {
		return usageErrorf("unexpected argument %q", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if set[f.Name] || err != nil || isAlias(f) {
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

// flagError turns an error of fs.Parse into flag.ErrHelp or a one-line
// usageError; an unknown flag gets the nearest known name as a hint.
func flagError(fs *flag.FlagSet, err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !ok {
		return usageError{err}
	}
	name = strings.TrimLeft(name, "-")
	msg := "unknown flag --" + name
	if near := nearestFlag(fs, name); near != "" {
		msg += "; did you mean --" + near + "?"
	}
	return usageErrorf("%s", msg)
}

// nearestFlag is the flag of fs closest to name (case, '-' and '_' ignored,
// then by edit distance), or "" when none is close enough to be a likely typo.
func nearestFlag(fs *flag.FlagSet, name string) string {
	norm := func(s string) string {
		return strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(s))
	}
	want := norm(name)
	best, bestDist := "", 0
	fs.VisitAll(func(f *flag.Flag) {
		d := editDistance(want, norm(f.Name))
		// Prefer the documented spelling over a DynamoDB Local alias.
		if best == "" || d < bestDist || d == bestDist && isAlias(fs.Lookup(best)) && !isAlias(f) {
			best, bestDist = f.Name, d
		}
	})
	if best == "" || bestDist > max(2, len(want)/3) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// aliasPrefix starts the usage of a flag that only exists so DynamoDB
// Local's command line works; such flags take no environment variable and
// are listed apart in the help.
const aliasPrefix = "DynamoDB Local's "

func isAlias(f *flag.Flag) bool { return f != nil && strings.HasPrefix(f.Usage, aliasPrefix) }

// printFlags writes every flag of fs with its default and environment
// variable, then the DynamoDB Local aliases. Unlike flag.PrintDefaults it
// shows zero defaults too, so the help is a complete reference.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		if !isAlias(f) {
			printFlag(w, f)
		}
	})
	printAliases(w, fs)
}

// printFlag prints one flag: its name and argument, its usage, its
// default and its environment variable.
func printFlag(w io.Writer, f *flag.Flag) {
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
}

// printAliases lists fs's DynamoDB Local aliases, if it has any.
func printAliases(w io.Writer, fs *flag.FlagSet) {
	var aliases []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) {
		if isAlias(f) {
			aliases = append(aliases, f)
		}
	})
	if len(aliases) == 0 {
		return
	}
	fmt.Fprint(w, "\nDynamoDB Local flags, accepted so its command lines work:\n\n")
	for _, f := range aliases {
		arg, usage := flag.UnquoteUsage(f)
		if isBool(f) {
			arg = ""
		}
		fmt.Fprintf(w, "  -%s\n    \t%s\n", strings.TrimSpace(f.Name+" "+arg), usage)
	}
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
