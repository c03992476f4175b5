package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
)

// The IAM actions of ExtendDB's own controls (/_extenddb/…), which no
// DynamoDB action covers: under --auth=sigv4 a caller needs them granted
// on the table (a policy's "dynamodb:*" does not reach them; "*" does).
const (
	ActionThrottle        = "extenddb:Throttle"        // read and change a table's throttle buckets
	ActionGetInsights     = "extenddb:GetInsights"     // read a table's top keys
	ActionGetImportErrors = "extenddb:GetImportErrors" // read an import's error log
	ActionSnapshot        = "extenddb:Snapshot"        // save the server's state (snapshot_admin.go)
	ActionRestore         = "extenddb:Restore"         // replace the server's state by a snapshot
	ActionReset           = "extenddb:Reset"           // drop every table of a namespace or of the server
)

// adminBodyLimit bounds what a control request's body may hold (they
// carry their parameters in the query; a signed body is read to be hashed).
const adminBodyLimit = 64 << 10

// adminScope is the context value of an authenticated control request:
// the caller's account and the Region it signed for, the defaults of the
// request's account and region parameters.
type adminScope struct{}

// adminAuth guards a control under --auth=sigv4: the request must be
// signed with SigV4 for service "dynamodb" by a key of the credentials
// file, exactly as an API request; the caller then rides in the context
// for adminAuthorize. Without credentials (--auth=off) it is next itself.
func (h *handler) adminAuth(next http.HandlerFunc) http.HandlerFunc {
	return h.adminAuthBody(adminBodyLimit, next)
}

// adminAuthBody is adminAuth for a control whose body may hold up to
// limit bytes (a snapshot to restore); next reads the body as sent.
func (h *handler) adminAuthBody(limit int64, next http.HandlerFunc) http.HandlerFunc {
	if h.opts.Credentials == nil {
		return next
	}
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
		if err != nil || int64(len(body)) > limit {
			adminError(w, http.StatusBadRequest, "the request body is unreadable or over "+strconv.FormatInt(limit>>10, 10)+" KB")
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		id, scope, aerr := h.authenticate(r, body, "dynamodb", h.now())
		if aerr != nil {
			h.log.Info().Str("path", r.URL.Path).Str("code", aerr.Code).Msg("control request refused: not authenticated")
			adminError(w, http.StatusForbidden, aerr.Code+": "+aerr.Message)
			return
		}
		ctx := emulator.WithCaller(r.Context(), callerOf(id, r))
		ctx = context.WithValue(ctx, adminScope{}, api.Namespace{Account: id.Account, Region: scope.Region})
		next(w, r.WithContext(ctx))
	}
}

// adminDefaults is the (account, Region) a control request names when its
// query does not: the signer's under --auth=sigv4, the server's defaults
// otherwise.
func (h *handler) adminDefaults(r *http.Request) api.Namespace {
	if ns, ok := r.Context().Value(adminScope{}).(api.Namespace); ok {
		return ns
	}
	return api.Namespace{Account: h.opts.DefaultAccount, Region: h.opts.DefaultRegion}
}

// adminAuthorize decides action on table (index: one of its GSIs) in ns
// for the caller adminAuth put in ctx, through the IAM evaluation the API
// uses; with no caller (--auth=off) everything is allowed.
func (h *handler) adminAuthorize(ctx context.Context, ns api.Namespace, action, table, index string) error {
	if table == "" {
		return errors.New("the table to authorize is unknown")
	}
	return h.eng.Authorize(ctx, ns, action, table, index)
}

// adminError answers a control request with {"error": msg}.
func adminError(w http.ResponseWriter, status int, msg string) {
	body, _ := json.Marshal(map[string]string{"error": msg})
	writeBody(w, status, "application/json", append(body, '\n'))
}
