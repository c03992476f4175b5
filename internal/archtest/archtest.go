package archtest

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Import is one import of one package of the module.
type Import struct {
	From string // package path relative to the module root, e.g. "emulator/av"
	To   string // imported package, relative to the module root
	File string // the importing file, relative to the module root
	Test bool   // the importing file is a _test.go file
}

// Rule restricts what a set of packages may import from the module.
type Rule struct {
	// From is a package prefix: "emulator" covers emulator and emulator/...;
	// "" covers every package.
	From string
	// Allow, if non-nil, lists the only prefixes From may import (packages
	// under From itself are always allowed).
	Allow []string
	// Deny lists prefixes From must not import.
	Deny []string
	// TestsExcepted exempts _test.go files.
	TestsExcepted bool
	// Why is the reason, quoted on failure.
	Why string
}

// under reports whether pkg is prefix or below it.
func under(pkg, prefix string) bool {
	return prefix == "" || pkg == prefix || strings.HasPrefix(pkg, prefix+"/")
}

func underAny(pkg string, prefixes []string) bool {
	for _, p := range prefixes {
		if under(pkg, p) {
			return true
		}
	}
	return false
}

// Violations returns one line per import that breaks a rule, sorted.
func Violations(imports []Import, rules []Rule) []string {
	var out []string
	for _, im := range imports {
		for _, r := range rules {
			if !under(im.From, r.From) || (im.Test && r.TestsExcepted) || under(im.To, r.From) && r.From != "" {
				continue
			}
			bad := underAny(im.To, r.Deny) || r.Allow != nil && !underAny(im.To, r.Allow)
			if bad {
				out = append(out, fmt.Sprintf("%s imports %s (%s): %s", im.File, im.To, im.From, r.Why))
			}
		}
	}
	sort.Strings(out)
	return out
}

// ModuleImports parses the imports of every .go file under root (skipping
// testdata, vendor and hidden directories) and returns those that name a
// package of module, relative to the module root.
func ModuleImports(root, module string) ([]Import, error) {
	var out []Import
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		for _, spec := range f.Imports {
			ip, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return err
			}
			to, ok := strings.CutPrefix(ip, module+"/")
			if !ok {
				continue
			}
			out = append(out, Import{From: path.Dir(rel), To: to, File: rel, Test: strings.HasSuffix(name, "_test.go")})
		}
		return nil
	})
	return out, err
}
