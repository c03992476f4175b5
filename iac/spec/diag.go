package spec

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// Pos is a position in a source file. Line and Col start at 1; zero means
// unknown.
type Pos struct {
	File string
	Line int
	Col  int
}

// String renders file:line:col, dropping what is unknown.
func (p Pos) String() string {
	switch {
	case p.File == "":
		return ""
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// PosFromHCL returns the start of an HCL range.
func PosFromHCL(r *hcl.Range) Pos {
	if r == nil {
		return Pos{}
	}
	return Pos{File: r.Filename, Line: r.Start.Line, Col: r.Start.Column}
}

// Severity orders diagnostics: errors stop provisioning, warnings and
// informational lines do not.
type Severity int

// Severities, most severe first.
const (
	Error Severity = iota
	Warning
	Info
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return "info"
}

// Diagnostic is one finding about the input, in the shape of hcl.Diagnostic
// (a summary and an optional detail) with a single position.
type Diagnostic struct {
	Severity Severity
	Pos      Pos
	Summary  string
	Detail   string
}

// String renders "file:line:col: summary: detail"; warnings and
// informational lines carry their severity so they stand out from errors.
func (d Diagnostic) String() string {
	var b strings.Builder
	if p := d.Pos.String(); p != "" {
		b.WriteString(p)
		b.WriteString(": ")
	}
	if d.Severity != Error {
		b.WriteString(d.Severity.String())
		b.WriteString(": ")
	}
	b.WriteString(d.Summary)
	if d.Detail != "" && d.Detail != d.Summary {
		b.WriteString(": ")
		b.WriteString(d.Detail)
	}
	return b.String()
}

// Diagnostics is a list of findings.
type Diagnostics []Diagnostic

// Errorf appends an error at pos.
func (ds *Diagnostics) Errorf(pos Pos, format string, args ...any) {
	*ds = append(*ds, Diagnostic{Severity: Error, Pos: pos, Summary: fmt.Sprintf(format, args...)})
}

// Warnf appends a warning at pos.
func (ds *Diagnostics) Warnf(pos Pos, format string, args ...any) {
	*ds = append(*ds, Diagnostic{Severity: Warning, Pos: pos, Summary: fmt.Sprintf(format, args...)})
}

// Infof appends an informational line at pos.
func (ds *Diagnostics) Infof(pos Pos, format string, args ...any) {
	*ds = append(*ds, Diagnostic{Severity: Info, Pos: pos, Summary: fmt.Sprintf(format, args...)})
}

// HasErrors reports whether any diagnostic is an error.
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// Errs returns only the errors.
func (ds Diagnostics) Errs() Diagnostics {
	var out Diagnostics
	for _, d := range ds {
		if d.Severity == Error {
			out = append(out, d)
		}
	}
	return out
}

// Error joins the errors, one per line, so Diagnostics can be returned as
// an error value.
func (ds Diagnostics) Error() string {
	var lines []string
	for _, d := range ds.Errs() {
		lines = append(lines, d.String())
	}
	return strings.Join(lines, "\n")
}

// Sort orders diagnostics by file, line and column, keeping the order of
// diagnostics at the same position.
func (ds Diagnostics) Sort() {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i].Pos, ds[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// FromHCL converts HCL diagnostics.
func FromHCL(hd hcl.Diagnostics) Diagnostics {
	var out Diagnostics
	for _, d := range hd {
		sev := Error
		if d.Severity == hcl.DiagWarning {
			sev = Warning
		}
		pos := PosFromHCL(d.Subject)
		summary, detail := terraformWording(d)
		if summary != d.Summary {
			// Terraform points at the whole reference, var.x.
			pos = PosFromHCL(d.Expression.Range().Ptr())
		}
		out = append(out, Diagnostic{Severity: sev, Pos: pos, Summary: summary, Detail: detail})
	}
	return out
}

// terraformWording says what Terraform says where plain HCL evaluation
// says less: var.x and local.x with no declaration are "Unsupported
// attribute" to HCL (var and local are objects) but an undeclared variable
// or local value to Terraform.
func terraformWording(d *hcl.Diagnostic) (summary, detail string) {
	if d.Summary != "Unsupported attribute" || d.Expression == nil {
		return d.Summary, d.Detail
	}
	trav, hd := hcl.AbsTraversalForExpr(d.Expression)
	if hd.HasErrors() || len(trav) < 2 {
		return d.Summary, d.Detail
	}
	attr, ok := trav[1].(hcl.TraverseAttr)
	if !ok {
		return d.Summary, d.Detail
	}
	switch trav.RootName() {
	case "var":
		return "Reference to undeclared input variable",
			fmt.Sprintf("An input variable with the name %q has not been declared. This variable can be declared with a variable %q {} block.", attr.Name, attr.Name)
	case "local":
		return "Reference to undeclared local value",
			fmt.Sprintf("A local value with the name %q has not been declared.", attr.Name)
	}
	return d.Summary, d.Detail
}
