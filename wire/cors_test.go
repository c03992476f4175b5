package wire

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestCORS(t *testing.T) {
	api := newTestHandler(t, Options{}).routes()
	do := func(h http.Handler, method, origin string, hdr ...string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, "/", strings.NewReader(`{}`))
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			r.Header.Set(hdr[i], hdr[i+1])
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	preflight := []string{"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization,content-type,x-amz-date,x-amz-target"}
	listTables := []string{"X-Amz-Target", "DynamoDB_20120810.ListTables", "Content-Type", contentTypeJSON10}

	// Off by default: no CORS headers, and OPTIONS is not served.
	if w := do(CORS(api, nil), http.MethodOptions, "http://localhost:3000", preflight...); w.Code == http.StatusOK || w.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("without --cors, preflight: %d %v", w.Code, w.Header())
	}

	h := CORS(api, ParseOrigins("http://localhost:3000, https://app.example/"))
	w := do(h, http.MethodOptions, "http://localhost:3000", preflight...)
	if w.Code != http.StatusOK || w.Header().Get("Access-Control-Allow-Origin") != "http://localhost:3000" ||
		!strings.Contains(w.Header().Get("Access-Control-Allow-Methods"), "POST") ||
		w.Header().Get("Access-Control-Allow-Headers") != "authorization,content-type,x-amz-date,x-amz-target" {
		t.Errorf("preflight from an allowed origin: %d %v", w.Code, w.Header())
	}
	if w := do(h, http.MethodPost, "https://app.example", listTables...); w.Code != http.StatusOK ||
		w.Header().Get("Access-Control-Allow-Origin") != "https://app.example" || !strings.Contains(w.Body.String(), "TableNames") ||
		!strings.Contains(w.Header().Get("Access-Control-Expose-Headers"), "x-amzn-RequestId") {
		t.Errorf("POST from an allowed origin: %d %v %s", w.Code, w.Header(), w.Body)
	}
	if w := do(h, http.MethodOptions, "http://evil.example", preflight...); w.Code != http.StatusForbidden || w.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight from another origin: %d %v", w.Code, w.Header())
	}
	if w := do(h, http.MethodPost, "http://evil.example", listTables...); w.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("POST from another origin got %v", w.Header())
	}
	if w := do(h, http.MethodPost, "", listTables...); w.Code != http.StatusOK || w.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("POST without Origin: %d %v", w.Code, w.Header())
	}
	if w := do(CORS(api, []string{"*"}), http.MethodOptions, "http://any.example", preflight...); w.Code != http.StatusOK || w.Header().Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("* preflight: %d %v", w.Code, w.Header())
	}
}
