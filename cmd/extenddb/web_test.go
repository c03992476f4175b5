package main

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/pebblestore"
	"github.com/extenddb/extenddb/wire"
)

// TestWebModes: --console and --metrics accept on and off only; off serves
// neither path and leaves the engine without an observer.
func TestWebModes(t *testing.T) {
	for _, bad := range [][]string{{"--console", "maybe"}, {"--metrics", "yes"}} {
		if _, err := parseServe(append(bad, "--in-memory"), env()); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	for _, c := range []struct {
		mode     string
		status   int
		observed bool
	}{{"on", http.StatusOK, true}, {"off", http.StatusNotFound, false}} {
		w := newWeb(webConfig{console: c.mode, metrics: c.mode}, false)
		if (w.observer() != nil) != c.observed {
			t.Errorf("%s: observer %v", c.mode, w.observer())
		}
		st, err := pebblestore.Open(pebblestore.Options{InMemory: true})
		if err != nil {
			t.Fatal(err)
		}
		eng, err := emulator.New(emulator.Options{Store: st})
		if err != nil {
			t.Fatal(err)
		}
		var o wire.Options
		if err := w.mount(eng, st, api.Namespace{Account: "000000000000", Region: "us-east-1"}, nil, &o); err != nil {
			t.Fatal(err)
		}
		h := wire.NewHandler(eng, o)
		for _, path := range []string{"/console/", "/metrics"} {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
			if rec.Code != c.status {
				t.Errorf("%s: GET %s = %d, want %d", c.mode, path, rec.Code, c.status)
			}
		}
		_ = eng.Close()
		_ = st.Close()
	}
}

// TestLazyHandler: the console is built on its first request, once, and a
// failure to build is answered 500 on every request.
func TestLazyHandler(t *testing.T) {
	builds := 0
	l := &lazyHandler{build: func() (http.Handler, error) {
		builds++
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) }), nil
	}}
	if builds != 0 {
		t.Fatal("built before any request")
	}
	for range 3 {
		rec := httptest.NewRecorder()
		l.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/console/", nil))
		if rec.Code != http.StatusTeapot {
			t.Errorf("status %d, want the built handler's", rec.Code)
		}
	}
	if builds != 1 {
		t.Errorf("built %d times, want once", builds)
	}
	bad := &lazyHandler{build: func() (http.Handler, error) { return nil, errors.New("no templates") }}
	for range 2 {
		rec := httptest.NewRecorder()
		bad.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/console/", nil))
		if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "no templates") {
			t.Errorf("a failed build answered %d %q", rec.Code, rec.Body.String())
		}
	}
}
