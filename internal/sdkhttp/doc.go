// Package sdkhttp is the HTTP client the in-process servers hand to the
// aws-sdk-go-v2 clients they build (extenddbtest, internal/testserver): it
// gives net/http a private copy of each request body, which removes a
// client-side race that fails large responses. A leaf: net/http only.
package sdkhttp
