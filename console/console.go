package console

import (
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/rs/zerolog"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Options configures the console.
type Options struct {
	// Engine is what the console reads and writes. Required.
	Engine *emulator.Engine
	// Recorder feeds the throttling timeline; nil shows no timeline.
	Recorder *Recorder
	// DefaultNamespace is shown when no namespace holds a table yet or none
	// is chosen; its zero value means 000000000000/us-east-1.
	DefaultNamespace api.Namespace
	// Provisioned lists what --load provisioned, for the IaC page.
	Provisioned []Provisioned
	// PageSize is the number of items per Scan or Query page; default 25.
	PageSize int

	// Authenticator, when set (--auth=sigv4), makes the console ask for a
	// sign-in: every page then acts as the signed-in principal, authorized
	// by the engine's IAM evaluation as the API is. Nil (--auth=off): the
	// console is open and checks nothing.
	Authenticator Authenticator
	// Log receives sign-ins, sign-outs and refused attempts; nil logs
	// nothing.
	Log *zerolog.Logger
	// SessionTTL is how long a sign-in lasts (never beyond temporary
	// credentials' expiry); default DefaultSessionTTL.
	SessionTTL time.Duration
	// FailureDelay is how long a failed sign-in waits before it is
	// answered; after its n-th failure in a row a source address is not
	// heard for FailureDelay·2^n (at most a minute; other addresses are
	// not held up); default DefaultFailureDelay.
	FailureDelay time.Duration
}

// Provisioned is one table an IaC file provisioned.
type Provisioned struct {
	Namespace api.Namespace
	Table     string
	// Position is where the resource is declared (file:line:col).
	Position string
	// Resource names the declaration ("aws_dynamodb_table.orders",
	// "Resources.Orders").
	Resource string
}

// Prefix is the path the console is served under.
const Prefix = "/console"

type console struct {
	opts  Options
	pages map[string]*template.Template
	// auth is the sign-in state; nil when the console is open.
	auth *signIns
}

// New returns the console's handler, to be mounted on Prefix. Its forms are
// protected against cross-site submission (a page elsewhere cannot post to
// a console on localhost).
func New(opts Options) (http.Handler, error) {
	if opts.Engine == nil {
		return nil, errors.New("console: Options.Engine is required")
	}
	if opts.DefaultNamespace.Account == "" {
		opts.DefaultNamespace.Account = "000000000000"
	}
	if opts.DefaultNamespace.Region == "" {
		opts.DefaultNamespace.Region = "us-east-1"
	}
	if opts.PageSize <= 0 {
		opts.PageSize = 25
	}
	c := &console{opts: opts, pages: map[string]*template.Template{}}
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		base := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if base == "layout" {
			continue
		}
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", n)
		if err != nil {
			return nil, err
		}
		c.pages[base] = t
	}
	mux := http.NewServeMux()
	static, _ := fs.Sub(staticFS, "static")
	mux.Handle("GET "+Prefix+"/static/", http.StripPrefix(Prefix+"/static/", http.FileServerFS(static)))
	mux.HandleFunc("GET "+Prefix, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, Prefix+"/", http.StatusMovedPermanently)
	})
	mux.HandleFunc("GET "+Prefix+"/{$}", c.home)
	mux.HandleFunc("GET "+Prefix+"/table", c.table)
	mux.HandleFunc("GET "+Prefix+"/items", c.items)
	mux.HandleFunc("GET "+Prefix+"/query", c.query)
	mux.HandleFunc("GET "+Prefix+"/search", c.search)
	mux.HandleFunc("GET "+Prefix+"/item", c.item)
	mux.HandleFunc("GET "+Prefix+"/new", c.newItem)
	mux.HandleFunc("POST "+Prefix+"/item", c.writeItem)
	mux.HandleFunc("GET "+Prefix+"/throttle", c.throttle)
	mux.HandleFunc("GET "+Prefix+"/api/timeline", c.timeline)
	mux.HandleFunc("GET "+Prefix+"/stream", c.stream)
	mux.HandleFunc("GET "+Prefix+"/iac", c.iac)
	mux.HandleFunc("GET "+Prefix+"/snapshots", c.snapshots)
	mux.HandleFunc("GET "+Prefix+"/snapshot", c.snapshotDownload)
	mux.HandleFunc("POST "+Prefix+"/snapshots/keep", c.snapshotKeep)
	mux.HandleFunc("POST "+Prefix+"/snapshots/restore", c.snapshotRestore)
	var h http.Handler = gated(opts.Engine, mux)
	if opts.Authenticator != nil {
		c.auth = newSignIns(opts)
		mux.HandleFunc("GET "+Prefix+"/signin", c.signInPage)
		mux.HandleFunc("POST "+Prefix+"/signin", c.signIn)
		mux.HandleFunc("POST "+Prefix+"/signout", c.signOut)
		h = c.auth.guard(h)
	}
	return http.NewCrossOriginProtection().Handler(h), nil
}

// page is what every template gets.
type page struct {
	Title      string
	NS         api.Namespace
	Namespaces []api.Namespace
	Table      string
	// Vectors says the table has vector indexes (its tabs link the search).
	Vectors bool
	// Error is shown at the top of the page.
	Error string
	Data  any
	// Bare leaves out the header (the sign-in page).
	Bare bool
	// User is the signed-in principal's ARN and CSRF its session's form
	// token; both empty when the console is open.
	User, CSRF string
}

func (p page) NSParam() string { return nsParam(p.NS) }

func nsParam(ns api.Namespace) string { return ns.Account + "/" + ns.Region }

var funcs = template.FuncMap{
	"nsParam": nsParam,
	"list":    func(s ...string) []string { return s },
	"time": func(epoch float64) string {
		if epoch == 0 {
			return ""
		}
		return time.Unix(int64(epoch), 0).UTC().Format("2006-01-02 15:04:05 UTC")
	},
}

// namespace reads the ns parameter (ACCOUNT/REGION), defaulting to the
// first namespace holding tables, else DefaultNamespace.
func (c *console) namespace(r *http.Request) (api.Namespace, []api.Namespace, error) {
	all := c.opts.Engine.Namespaces()
	def := c.opts.DefaultNamespace
	if ss := sessionOf(r.Context()); ss != nil {
		// A signed-in principal's SDK lists its own account's tables, in any
		// Region it signs for.
		def.Account = ss.caller.Account
		mine := all[:0:0]
		for _, ns := range all {
			if ns.Account == def.Account {
				mine = append(mine, ns)
			}
		}
		all = mine
	}
	if v := r.URL.Query().Get("ns"); v != "" {
		acct, region, ok := strings.Cut(v, "/")
		if !ok || acct == "" || region == "" {
			return def, all, errors.New("namespace " + v + ": want ACCOUNT/REGION")
		}
		return api.Namespace{Account: acct, Region: region}, all, nil
	}
	if len(all) > 0 {
		return all[0], all, nil
	}
	return def, all, nil
}

// render writes page p with template name and HTTP status.
func (c *console) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	if ss := sessionOf(r.Context()); ss != nil {
		p.User, p.CSRF = ss.caller.ARN, ss.csrf
	}
	t := c.pages[name]
	var b strings.Builder
	if err := t.Execute(&b, p); err != nil {
		http.Error(w, "console: rendering "+name+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(b.String()))
}

// errorText is the message a page shows for err: DynamoDB's error type and
// message, as a client would see them.
func errorText(err error) string {
	var ee *api.Error
	if errors.As(err, &ee) {
		if ee.Message == "" {
			return ee.Code
		}
		return ee.Code + ": " + ee.Message
	}
	return err.Error()
}

// statusOf is the HTTP status of a page that failed with err.
func statusOf(err error) int {
	var ee *api.Error
	if errors.As(err, &ee) {
		switch ee.Code {
		case api.CodeResourceNotFound:
			return http.StatusNotFound
		case api.CodeConditionalCheckFailed:
			return http.StatusConflict
		case api.CodeAccessDenied:
			return http.StatusForbidden
		}
	}
	return http.StatusBadRequest
}
