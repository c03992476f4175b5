package wire

import (
	"context"
	"net/http"
	"slices"
	"strings"
)

// CORS lets browser pages from origins call next: it answers preflight
// requests (OPTIONS with Access-Control-Request-Method) itself and adds
// Access-Control-Allow-Origin to the answers of allowed origins. "*" allows
// every origin. With no origins it returns next unchanged, so a server
// without --cors sends no CORS headers at all.
func CORS(next http.Handler, origins []string) http.Handler {
	if len(origins) == 0 {
		return next
	}
	anyOrigin := slices.Contains(origins, "*")
	allowed := func(origin string) bool { return anyOrigin || slices.Contains(origins, origin) }
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" {
			next.ServeHTTP(w, r)
			return
		}
		hd := w.Header()
		hd.Add("Vary", "Origin")
		preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
		if !allowed(origin) {
			if preflight {
				// No CORS headers: the browser refuses the call, and the
				// status says why to whoever reads the network tab.
				w.WriteHeader(http.StatusForbidden)
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		if anyOrigin {
			hd.Set("Access-Control-Allow-Origin", "*")
		} else {
			hd.Set("Access-Control-Allow-Origin", origin)
		}
		if !preflight {
			// The SDKs read these response headers; browsers hide any
			// header not listed.
			hd.Set("Access-Control-Expose-Headers", "x-amzn-RequestId, x-amz-crc32, x-amz-id-2")
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), corsAllowedKey{}, true)))
			return
		}
		hd.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
		// Echo what the page asks to send (SigV4 headers, X-Amz-Target,
		// amz-sdk-*): any header is acceptable to the API.
		if h := r.Header.Get("Access-Control-Request-Headers"); h != "" {
			hd.Set("Access-Control-Allow-Headers", h)
		}
		hd.Set("Access-Control-Max-Age", "600")
		hd.Set("Content-Length", "0")
		w.WriteHeader(http.StatusOK)
	})
}

// ParseOrigins splits a comma-separated --cors value.
func ParseOrigins(s string) []string {
	var out []string
	for o := range strings.SplitSeq(s, ",") {
		if o = strings.TrimSpace(o); o != "" {
			out = append(out, strings.TrimSuffix(o, "/"))
		}
	}
	return out
}

// corsAllowedKey marks a request whose Origin the user allowed with --cors,
// so refuseBrowsers lets it through.
type corsAllowedKey struct{}

func corsAllowed(r *http.Request) bool {
	allowed, _ := r.Context().Value(corsAllowedKey{}).(bool)
	return allowed
}
