package wire

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/pebblestore"
)

// BenchmarkAuth is the cost of --auth=sigv4 on GetItem and PutItem through
// the handler: off, and sigv4 (signature verified by re-signing, identity
// policy evaluated). Each request is signed once, outside the loop, as a
// client's would be; the server verifies it on every iteration.
func BenchmarkAuth(b *testing.B) {
	creds, err := ParseCredentials([]byte(`users:
  - accessKeyId: AKIDBENCH
    secretAccessKey: bench-secret
    account: "111111111111"
    arn: arn:aws:iam::111111111111:user/bench
    policies:
      - {Statement: [{Effect: Allow, Action: ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:CreateTable"], Resource: "arn:aws:dynamodb:*:111111111111:table/Orders"}]}
`))
	if err != nil {
		b.Fatal(err)
	}
	item := typicalItemJSON()
	bodies := map[string]string{
		"GetItem": `{"TableName":"Orders","Key":{"pk":{"S":"customer#000123"},"sk":{"S":"order#2026-01-01T10:00:00Z#9f86d081"}}}`,
		"PutItem": `{"TableName":"Orders","Item":` + item + `}`,
	}
	for _, mode := range []string{"off", "sigv4"} {
		opts := Options{}
		if mode == "sigv4" {
			opts.Credentials = creds
		}
		// Throttling off: the same key is written on every iteration.
		st, err := pebblestore.Open(pebblestore.Options{InMemory: true})
		if err != nil {
			b.Fatal(err)
		}
		eng, err := emulator.New(emulator.Options{Store: st, Throttle: emulator.ThrottleOptions{Off: true}})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = eng.Close(); _ = st.Close() })
		srv := newHandler(eng, opts).routes()
		mk := func(op, body string) *http.Request {
			r := httptest.NewRequest(http.MethodPost, "http://localhost:8000/", strings.NewReader(body))
			r.Header.Set("Content-Type", contentTypeJSON10)
			r.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
			sum := sha256.Sum256([]byte(body))
			err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: "AKIDBENCH", SecretAccessKey: "bench-secret"},
				r, hex.EncodeToString(sum[:]), "dynamodb", "us-east-1", time.Now())
			if err != nil {
				b.Fatal(err)
			}
			return r
		}
		send := func(op, body string, hdr http.Header) int {
			r := httptest.NewRequest(http.MethodPost, "http://localhost:8000/", strings.NewReader(body))
			r.Header = hdr
			w := httptest.NewRecorder()
			srv.ServeHTTP(w, r)
			if w.Code != 200 {
				b.Log(w.Body.String())
			}
			return w.Code
		}
		create := mk("CreateTable", `{"TableName":"Orders","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}]}`)
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, create)
		if w.Code != 200 {
			b.Fatalf("CreateTable: %d %s", w.Code, w.Body)
		}
		if code := send("PutItem", bodies["PutItem"], mk("PutItem", bodies["PutItem"]).Header); code != 200 {
			b.Fatalf("PutItem: %d", code)
		}
		for _, op := range []string{"GetItem", "PutItem"} {
			body := bodies[op]
			hdr := mk(op, body).Header
			b.Run(op+"/"+mode, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if code := send(op, body, hdr); code != 200 {
						b.Fatalf("%s: %d", op, code)
					}
				}
			})
		}
	}
}

// BenchmarkAuthenticate is the verification alone: parse the header, check
// date and scope, re-sign with the cached signing key, compare.
func BenchmarkAuthenticate(b *testing.B) {
	creds, err := ParseCredentials([]byte("users:\n  - {accessKeyId: AKIDBENCH, secretAccessKey: s, account: \"111111111111\"}\n"))
	if err != nil {
		b.Fatal(err)
	}
	h := newHandler(nil, Options{Credentials: creds})
	body := []byte(`{"TableName":"Orders","Key":{"pk":{"S":"customer#000123"},"sk":{"S":"order#2026-01-01T10:00:00Z#9f86d081"}}}`)
	r := httptest.NewRequest(http.MethodPost, "http://localhost:8000/", strings.NewReader(string(body)))
	r.Header.Set("Content-Type", contentTypeJSON10)
	r.Header.Set("X-Amz-Target", "DynamoDB_20120810.GetItem")
	sum := sha256.Sum256(body)
	if err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: "AKIDBENCH", SecretAccessKey: "s"},
		r, hex.EncodeToString(sum[:]), "dynamodb", "us-east-1", time.Now()); err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		if _, _, aerr := h.authenticate(r, body, "dynamodb", now); aerr != nil {
			b.Fatal(aerr)
		}
	}
}
