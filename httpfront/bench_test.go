package httpfront

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// BenchmarkServe: one keep-alive connection, an SDK-shaped POST and a 1 KB
// answer with the headers the API sends, on the front and on net/http.
// The client writes fixed bytes and reads a known length, so the
// allocations are the server's.
func BenchmarkServe(b *testing.B) {
	payload := strings.Repeat("x", 1024)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		hd := w.Header()
		hd.Set("Content-Type", "application/x-amz-json-1.0")
		hd.Set("Content-Length", "1024")
		hd.Set("X-Amz-Crc32", "2681892944")
		hd.Set("X-Amzn-Requestid", "LOADGENCANNEDRESPONSE0000000000000000000000000000000")
		_, _ = io.WriteString(w, payload)
	})
	req := []byte(sdk(`{"TableName":"T","Key":{"pk":{"S":"p0000001"},"sk":{"N":"1"}}}`))
	for _, tc := range []struct {
		name  string
		serve func(net.Listener) (stop func())
	}{
		{"front", func(ln net.Listener) func() {
			s := &Server{Handler: h, ReadHeaderTimeout: 30 * time.Second, ReadTimeout: time.Minute, IdleTimeout: 2 * time.Minute}
			go func() { _ = s.Serve(ln) }()
			return func() { _ = s.Close() }
		}},
		{"net-http", func(ln net.Listener) func() {
			s := &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second, ReadTimeout: time.Minute, IdleTimeout: 2 * time.Minute}
			go func() { _ = s.Serve(ln) }()
			return func() { _ = s.Close() }
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			defer tc.serve(ln)()
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			// The first answer gives the length of every answer (the
			// Date is always 29 bytes).
			if _, err := c.Write(req); err != nil {
				b.Fatal(err)
			}
			br := bufio.NewReader(c)
			res, err := http.ReadResponse(br, nil)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, res.Body)
			n := 0
			for k, vs := range res.Header {
				for _, v := range vs {
					n += len(k) + len(v) + 4
				}
			}
			n += len("HTTP/1.1 200 OK\r\n\r\n") + 1024
			buf := make([]byte, n)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, err := c.Write(req); err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(c, buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
