package wire

import (
	"net/http"
	"time"
)

// Mount is a handler served on a path prefix beside the API.
type Mount struct {
	// Prefix is matched against the request path ("/console", "/metrics").
	Prefix  string
	Handler http.Handler
}

// RequestDone describes one answered DynamoDB or DynamoDB Streams request.
type RequestDone struct {
	// Operation is the target's operation name ("PutItem"), or "Unknown"
	// for a target no handler serves (so a client cannot grow the set).
	Operation string
	// Status is the HTTP status sent.
	Status int
	// ErrorCode is the error's type (ValidationException, …), "" on success.
	ErrorCode string
	// Duration is from the request's arrival to its response's write.
	Duration time.Duration
}

// requestDone calls Options.OnRequest; code is the error sent, "" if none.
func (h *handler) requestDone(known bool, op string, status int, code string, start time.Time) {
	d := RequestDone{Operation: op, Status: status, ErrorCode: code, Duration: time.Since(start)}
	if !known {
		d.Operation = "Unknown"
	}
	h.opts.OnRequest(d)
}
