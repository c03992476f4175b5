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
	// Stopped says why a request stopped before its work was done:
	// StoppedCancelled (its client went away; Status is 0, nothing was
	// sent) or StoppedDeadline (it ran past Options.RequestTimeout and
	// was answered 500); "" for every other request.
	Stopped string
}

// requestDone completes d (its Duration, "Unknown" for an operation no
// handler serves) and calls Options.OnRequest.
func (h *handler) requestDone(d RequestDone, known bool, start time.Time) {
	d.Duration = time.Since(start)
	if !known {
		d.Operation = "Unknown"
	}
	h.opts.OnRequest(d)
}
