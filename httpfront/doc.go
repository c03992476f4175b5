// Package httpfront serves an http.Handler over HTTP/1.1 on a net.Listener
// like http.Server, with a fast path for the one request shape the API
// gets by the thousand: a POST to "/" with HTTP/1.1 and a Content-Length
// body. On that path a connection reuses one *http.Request, one header map
// and its buffers from request to request, and the whole response goes out
// in one write(2): net/http's per-request costs (a fresh Request and
// header map, a context with cancel, Header.Clone on WriteHeader, the
// bufio writers) are what the API paid beyond its own work.
//
// Every other connection state is net/http's own: as soon as a request is
// not the plain shape (another method, path or protocol version, chunked,
// Expect, Upgrade, a header net/http treats specially, a malformed line,
// a header block larger than the read buffer), the connection is handed
// to a real http.Server with the bytes already read put back in front, and
// belongs to it from then on. So malformed input gets exactly net/http's
// answer.
//
// Differences from net/http on the fast path, by design: the request's
// context is the connection's (BaseContext's, with http.ServerContextKey
// and http.LocalAddrContextKey), not cancelled when the handler returns or
// the client goes away; the response is buffered whole, so a body without
// a Content-Length from the handler gets one (net/http chunks a body over
// 2 KB); handler headers changed after WriteHeader through a map obtained
// before it are sent; Flusher, Hijacker and trailers are not offered; a
// handler must not keep the Request or its Header after it returns (the
// next request reuses them).
//
// The package imports only the standard library.
package httpfront
