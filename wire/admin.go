package wire

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/throttle"
	"github.com/gorilla/mux"
)

// ThrottleAdminPath is where the throttle controls are served: off the
// DynamoDB API (which is POST /), so no SDK ever reaches them.
//
//	GET  /_extenddb/throttle?table=T[&account=A][&region=R]       the buckets
//	POST /_extenddb/throttle/reset?table=T                        back to a new table's
//	POST /_extenddb/throttle/drain?table=T[&direction=read|write] next request refused
//	POST /_extenddb/throttle/pin?table=T&rate=N[&direction=…]     rate fixed at N units/s
//	POST /_extenddb/throttle/unpin?table=T[&direction=…]          rate from the throughput
//
// account and region default to the server's defaults; index=I (on any of
// them) steers the buckets of the table's global secondary index I instead.
const ThrottleAdminPath = "/_extenddb/throttle"

// throttleAdminAnswer is the JSON body of every throttle control answer.
type throttleAdminAnswer struct {
	Account string               `json:"account"`
	Region  string               `json:"region"`
	Table   string               `json:"table"`
	Index   string               `json:"index,omitempty"`
	Buckets *throttle.TableState `json:"buckets,omitempty"`
	Error   string               `json:"error,omitempty"`
}

// ImportErrorsPath serves an import's error log, ExtendDB's stand-in for
// the CloudWatch log stream <import-id>/error of /aws-dynamodb/imports:
//
//	GET /_extenddb/import-errors?arn=IMPORT_ARN   {"records":[{"itemS3Pointer":…,"importArn":…,"errorMessages":[…]}]}
const ImportErrorsPath = "/_extenddb/import-errors"

func (h *handler) adminRoutes(r *mux.Router) {
	r.Methods(http.MethodGet).Path(ImportErrorsPath).HandlerFunc(h.adminAuth(h.importErrors))
	r.Methods(http.MethodGet).Path(ThrottleAdminPath).HandlerFunc(h.adminAuth(h.throttleAdmin))
	r.Methods(http.MethodPost).Path(ThrottleAdminPath + "/{action:reset|drain|pin|unpin}").HandlerFunc(h.adminAuth(h.throttleAdmin))
	r.Methods(http.MethodGet).Path(InsightsAdminPath).HandlerFunc(h.adminAuth(h.insightsAdmin))
}

func (h *handler) throttleAdmin(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	ans := throttleAdminAnswer{Account: q.Get("account"), Region: q.Get("region"), Table: q.Get("table"), Index: q.Get("index")}
	def := h.adminDefaults(r)
	if ans.Account == "" {
		ans.Account = def.Account
	}
	if ans.Region == "" {
		ans.Region = def.Region
	}
	ns := api.Namespace{Account: ans.Account, Region: ans.Region}
	reply := func(status int) {
		body, _ := json.Marshal(ans)
		writeBody(w, status, "application/json", append(body, '\n'))
	}
	fail := func(status int, msg string) {
		ans.Error = msg
		reply(status)
	}
	if ans.Table == "" {
		fail(http.StatusBadRequest, "the table query parameter is required")
		return
	}
	if err := h.adminAuthorize(r.Context(), ns, ActionThrottle, ans.Table, ans.Index); err != nil {
		fail(http.StatusForbidden, errorMessage(err))
		return
	}
	act := emulator.ThrottleAction{Kind: mux.Vars(r)["action"], Index: ans.Index}
	switch dir := q.Get("direction"); dir {
	case "", "both":
	case "read":
		act.Read = true
	case "write":
		act.Write = true
	default:
		fail(http.StatusBadRequest, "direction must be read, write or both, not "+strconv.Quote(dir))
		return
	}
	if act.Kind == "pin" {
		rate, err := strconv.ParseFloat(q.Get("rate"), 64)
		if err != nil {
			fail(http.StatusBadRequest, "pin needs rate=UNITS (units per second)")
			return
		}
		act.Rate = rate
	}
	var err error
	if act.Kind == "" {
		ans.Buckets, err = h.eng.ThrottleState(r.Context(), ns, ans.Table, ans.Index)
	} else {
		ans.Buckets, err = h.eng.ThrottleControl(r.Context(), ns, ans.Table, act)
	}
	var ee *api.Error
	switch {
	case errors.As(err, &ee) && ee.Code == api.CodeResourceNotFound:
		fail(http.StatusNotFound, ee.Message)
		return
	case errors.As(err, &ee):
		fail(http.StatusBadRequest, ee.Message)
		return
	case err != nil:
		fail(http.StatusInternalServerError, err.Error())
		return
	}
	if act.Kind != "" {
		h.log.Info().Str("table", ans.Table).Str("index", ans.Index).Str("account", ans.Account).Str("region", ans.Region).
			Str("action", strings.TrimSpace(act.Kind+" "+q.Get("direction"))).Msg("throttle control")
	}
	reply(http.StatusOK)
}

func (h *handler) importErrors(w http.ResponseWriter, r *http.Request) {
	arn := r.URL.Query().Get("arn")
	reply := func(status int, v any) {
		body, _ := json.Marshal(v)
		writeBody(w, status, "application/json", append(body, '\n'))
	}
	// The import's own account and Region, from its ARN.
	f := strings.SplitN(arn, ":", 6)
	if len(f) != 6 {
		reply(http.StatusBadRequest, map[string]string{"error": "arn must be an import ARN"})
		return
	}
	ns := api.Namespace{Account: f[4], Region: f[3]}
	// The import's table: arn:…:table/NAME/import/ID.
	table, _, _ := strings.Cut(strings.TrimPrefix(f[5], "table/"), "/")
	if err := h.adminAuthorize(r.Context(), ns, ActionGetImportErrors, table, ""); err != nil {
		reply(http.StatusForbidden, map[string]string{"error": errorMessage(err)})
		return
	}
	recs, err := h.eng.ImportErrors(r.Context(), ns, arn)
	if err != nil {
		var ee *api.Error
		status := http.StatusInternalServerError
		if errors.As(err, &ee) && ee.Code != api.CodeInternalServerError {
			status = http.StatusBadRequest
			if ee.Code == api.CodeImportNotFound {
				status = http.StatusNotFound
			}
		}
		reply(status, map[string]string{"error": err.Error()})
		return
	}
	reply(http.StatusOK, map[string]any{"records": recs})
}

// errorMessage is an engine error's message without its code.
func errorMessage(err error) string {
	var ee *api.Error
	if errors.As(err, &ee) {
		return ee.Message
	}
	return err.Error()
}
