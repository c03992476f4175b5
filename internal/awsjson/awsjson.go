package awsjson

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
)

// ErrorAnswer reads the error answer of a JSON protocol, as aws-sdk-go-v2's
// deserializers do: the code from the X-Amzn-ErrorType header, else the
// body's __type, else its code, cut to the bare name (before any ':',
// after the first '#': "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException"
// is "ResourceNotFoundException"); "UnknownError" when none names one. The
// message is the body's message (or Message), "" when it has none. err is
// a body that is not JSON; an empty body is none.
func ErrorAnswer(h http.Header, body []byte) (code, message string, err error) {
	var info struct {
		Type    string `json:"__type"`
		Code    any    `json:"code"`    // not always a string: only a string names the error
		Message string `json:"message"` // encoding/json matches Message too
	}
	if len(bytes.TrimSpace(body)) > 0 {
		if err := json.Unmarshal(body, &info); err != nil {
			return "", "", err
		}
	}
	code = h.Get("X-Amzn-ErrorType")
	if code == "" {
		code = info.Type
	}
	if c, ok := info.Code.(string); code == "" && ok {
		code = c
	}
	if code == "" {
		return "UnknownError", info.Message, nil
	}
	if i := strings.IndexByte(code, ':'); i >= 0 {
		code = code[:i]
	}
	if i := strings.IndexByte(code, '#'); i >= 0 {
		code = code[i+1:]
	}
	return code, info.Message, nil
}
