package awsjson

import (
	"net/http"
	"testing"
)

func TestErrorAnswer(t *testing.T) {
	for _, c := range []struct {
		name, header, body string
		code, message      string
		bad                bool
	}{
		{name: "type with namespace", body: `{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","message":"Requested resource not found"}`,
			code: "ResourceNotFoundException", message: "Requested resource not found"},
		{name: "capitalised Message", body: `{"__type":"ValidationException","Message":"bad"}`, code: "ValidationException", message: "bad"},
		{name: "header first", header: "ThrottlingException:http://internal.amazon.com/", body: `{"__type":"x#ValidationException"}`, code: "ThrottlingException"},
		{name: "code member", body: `{"code":"LimitExceededException","message":"m"}`, code: "LimitExceededException", message: "m"},
		{name: "code not a string", body: `{"code":42}`, code: "UnknownError"},
		{name: "empty body", body: "", code: "UnknownError"},
		{name: "cut to nothing", body: `{"__type":":x"}`, code: ""},
		{name: "not JSON", body: "<html>", bad: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := http.Header{}
			if c.header != "" {
				h.Set("X-Amzn-ErrorType", c.header)
			}
			code, message, err := ErrorAnswer(h, []byte(c.body))
			if (err != nil) != c.bad {
				t.Fatalf("err = %v, want an error: %v", err, c.bad)
			}
			if !c.bad && (code != c.code || message != c.message) {
				t.Errorf("ErrorAnswer = %q, %q; want %q, %q", code, message, c.code, c.message)
			}
		})
	}
}
