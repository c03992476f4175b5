package main

import (
	"crypto/subtle"
	"flag"
	"fmt"
	"net/http"
	"sync"

	"github.com/extenddb/extenddb/console"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/iac"
	"github.com/extenddb/extenddb/metrics"
	"github.com/extenddb/extenddb/pebblestore"
	"github.com/extenddb/extenddb/wire"
)

// webConfig is the console's and /metrics' part of `extenddb serve`.
type webConfig struct {
	console      string // on or off
	metrics      string // on or off
	metricsToken string // bearer token /metrics asks for; "" asks none
}

func newWebConfig() webConfig { return webConfig{console: "on", metrics: "on"} }

func (c *webConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&c.console, "console", c.console, "`MODE` of the web console at /console/ on the API port: on or off (under --auth=sigv4 it asks for a sign-in with a key of --credentials, and shows and does what that principal's requests could)")
	fs.StringVar(&c.metrics, "metrics", c.metrics, "`MODE` of the Prometheus endpoint /metrics on the API port: on or off (off under --auth=sigv4 without --metrics-token)")
	fs.StringVar(&c.metricsToken, "metrics-token", c.metricsToken, "`TOKEN` /metrics asks for as \"Authorization: Bearer TOKEN\"; required for /metrics under --auth=sigv4, since its labels name every table")
}

func (c *webConfig) validate() error {
	for _, f := range []struct{ name, v string }{{"console", c.console}, {"metrics", c.metrics}} {
		if f.v != "on" && f.v != "off" {
			return fmt.Errorf("--%s %q: must be on or off", f.name, f.v)
		}
	}
	return nil
}

// web is the console and metrics of one serve: built before the engine
// (whose Observer they are), mounted once it exists.
type web struct {
	cfg webConfig
	rec *console.Recorder
	met *metrics.Metrics
}

// newWeb builds what cfg turns on. With authentication (sigv4) /metrics
// is served only behind a token (its labels name every account's tables);
// the console then asks for a sign-in (mount).
func newWeb(cfg webConfig, authenticated bool) *web {
	w := &web{cfg: cfg}
	if cfg.console == "on" {
		w.rec = console.NewRecorder(console.RecorderOptions{})
	}
	if cfg.metrics == "on" && (!authenticated || cfg.metricsToken != "") {
		w.met = metrics.New(metrics.Options{GoRuntime: true})
	}
	return w
}

// bearer serves h to requests that carry token as a bearer token, and
// answers 401 to the others; an empty token asks for none.
func bearer(token string, h http.Handler) http.Handler {
	if token == "" {
		return h
	}
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			rw.Header().Set("WWW-Authenticate", `Bearer realm="extenddb metrics"`)
			http.Error(rw, "401 Unauthorized: /metrics needs Authorization: Bearer <--metrics-token>", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(rw, r)
	})
}

// observer is the engine's Observer: nil when both are off, so the
// engine's hooks cost a nil check.
func (w *web) observer() emulator.Observer {
	var rec, met emulator.Observer
	if w.rec != nil {
		rec = w.rec
	}
	if w.met != nil {
		met = w.met
	}
	return emulator.Observers(rec, met)
}

// mount adds the console and /metrics to o. pebble is nil when the data is
// not in Pebble (--store): /metrics then has no Pebble figures. With
// o.Credentials (--auth=sigv4) the console signs in with them.
func (w *web) mount(eng *emulator.Engine, pebble *pebblestore.Store, ns api.Namespace, loaded []iac.TableSpec, o *wire.Options) error {
	if w.met != nil {
		w.met.Attach(eng)
		if pebble != nil {
			w.met.AttachPebble(pebble.Metrics)
		}
		o.Mounts = append(o.Mounts, wire.Mount{Prefix: "/metrics", Handler: bearer(w.cfg.metricsToken, w.met.Handler())})
		o.OnRequest = w.met.Request
	}
	if w.rec != nil {
		prov := make([]console.Provisioned, len(loaded))
		for i := range loaded {
			s := &loaded[i]
			prov[i] = console.Provisioned{Namespace: s.Namespace(), Table: s.Name(), Position: s.Pos.String(), Resource: s.Source}
		}
		copts := console.Options{Engine: eng, Recorder: w.rec, DefaultNamespace: ns, Provisioned: prov, Log: o.Logger}
		if o.Credentials != nil {
			copts.Authenticator = o.Credentials
		}
		o.Mounts = append(o.Mounts, wire.Mount{Prefix: console.Prefix, Handler: &lazyHandler{build: func() (http.Handler, error) { return console.New(copts) }}})
	}
	return nil
}

// lazyHandler builds its handler on the first request it gets. The
// console parses its templates when built: about half of serve's own CPU
// before the first answer, and memory every server kept, for a page most
// servers (a test suite's) never show (issue 36).
type lazyHandler struct {
	build func() (http.Handler, error)
	once  sync.Once
	h     http.Handler
	err   error
}

func (l *lazyHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.once.Do(func() { l.h, l.err = l.build() })
	if l.err != nil {
		http.Error(w, "500 Internal Server Error: the console could not start: "+l.err.Error(), http.StatusInternalServerError)
		return
	}
	l.h.ServeHTTP(w, r)
}
