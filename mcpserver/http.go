package mcpserver

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Handler serves srv over MCP's Streamable HTTP transport to clients
// that send "Authorization: Bearer TOKEN"; any other request gets 401
// before it reaches the server. The SDK's own protection against DNS
// rebinding (a loopback connection with another Host is refused) stays
// on. token must not be empty.
func Handler(srv *mcp.Server, token string) (http.Handler, error) {
	if token == "" {
		return nil, errors.New("the HTTP transport needs a token")
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="extenddb mcp"`)
			http.Error(w, "extenddb mcp: missing or wrong bearer token (Authorization: Bearer TOKEN)", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}), nil
}

// Listen opens addr for the HTTP transport, which serves this machine
// only: its host must be localhost or a loopback address (127.0.0.1,
// [::1]); "localhost" listens on 127.0.0.1. Port 0 picks a free one.
func Listen(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%q: want HOST:PORT, such as 127.0.0.1:8001", addr)
	}
	if strings.EqualFold(host, "localhost") {
		host = "127.0.0.1"
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("%q: the MCP server listens on loopback only (127.0.0.1, [::1] or localhost), as it acts on every table", addr)
	}
	return net.Listen("tcp", net.JoinHostPort(ip.String(), port))
}
