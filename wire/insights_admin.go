package wire

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
)

// InsightsAdminPath serves the top keys Contributor Insights counted, which
// the service would deliver to CloudWatch: off the DynamoDB API, like the
// throttle controls.
//
//	GET /_extenddb/insights?table=T[&index=I][&account=A][&region=R][&top=N][&minutes=M]
//
// account and region default to the server's defaults; top (default 10)
// bounds each list, 0 for every counted key; minutes (default: the whole
// window, an hour) is how far back the lists reach.
const InsightsAdminPath = "/_extenddb/insights"

// insightsAdminAnswer is the JSON body of an insights answer: the
// (account, Region) asked for and the engine's report, or an error.
type insightsAdminAnswer struct {
	Account string `json:"account"`
	Region  string `json:"region"`
	*emulator.ContributorInsightsReport
	Error string `json:"error,omitempty"`
}

func (h *handler) insightsAdmin(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	ans := insightsAdminAnswer{Account: q.Get("account"), Region: q.Get("region")}
	def := h.adminDefaults(r)
	if ans.Account == "" {
		ans.Account = def.Account
	}
	if ans.Region == "" {
		ans.Region = def.Region
	}
	reply := func(status int) {
		body, _ := json.Marshal(ans)
		writeBody(w, status, "application/json", append(body, '\n'))
	}
	fail := func(status int, msg string) {
		ans.Error = msg
		reply(status)
	}
	table := q.Get("table")
	if table == "" {
		fail(http.StatusBadRequest, "the table query parameter is required")
		return
	}
	top := 10
	if s := q.Get("top"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			fail(http.StatusBadRequest, "top must be a whole number of keys, not "+strconv.Quote(s))
			return
		}
		top = n
	}
	var span time.Duration
	if s := q.Get("minutes"); s != "" {
		m, err := strconv.Atoi(s)
		if err != nil || m < 1 {
			fail(http.StatusBadRequest, "minutes must be a whole number of minutes from 1, not "+strconv.Quote(s))
			return
		}
		span = time.Duration(m) * time.Minute
	}
	ns := api.Namespace{Account: ans.Account, Region: ans.Region}
	if err := h.adminAuthorize(r.Context(), ns, ActionGetInsights, table, q.Get("index")); err != nil {
		fail(http.StatusForbidden, errorMessage(err))
		return
	}
	rep, err := h.eng.ContributorInsightsTop(r.Context(), ns, table, q.Get("index"), top, span)
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
	ans.ContributorInsightsReport = rep
	reply(http.StatusOK)
}
