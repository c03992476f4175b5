package wire

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/gorilla/mux"
)

// The snapshot controls, for test suites that want a known state before
// each test (docs/configuration.md, "Snapshots and resets"):
//
//	GET  /_extenddb/snapshot                  the server's state, as a snapshot file
//	GET  /_extenddb/snapshot?name=N           the snapshot kept on the server as N
//	POST /_extenddb/snapshot?name=N           keep the server's state on the server as N
//	GET  /_extenddb/snapshots                 the kept snapshots: {"snapshots":[{name,keys,bytes,saved}]}
//	POST /_extenddb/restore?name=N            restore the kept snapshot N
//	POST /_extenddb/restore                   restore the snapshot file in the body
//	POST /_extenddb/reset                     drop every table of the server
//	POST /_extenddb/reset?account=A&region=R  drop every table of one namespace (either defaults)
//
// A restore or a reset is atomic for requests: they see the state before
// or after it, never a mix. Under --auth=sigv4 each needs a signed request
// and its action (extenddb:Snapshot, extenddb:Restore, extenddb:Reset)
// allowed on arn:aws:dynamodb:*:*:table/* (a namespace's reset: on its
// tables, arn:aws:dynamodb:R:A:table/*).
const (
	SnapshotAdminPath  = "/_extenddb/snapshot"
	SnapshotsAdminPath = "/_extenddb/snapshots"
	RestoreAdminPath   = "/_extenddb/restore"
	ResetAdminPath     = "/_extenddb/reset"
)

// SnapshotContentType is the media type of a snapshot file.
const SnapshotContentType = "application/vnd.extenddb.snapshot"

// MaxSnapshotBytes bounds a snapshot restored from a request's body.
const MaxSnapshotBytes = 4 << 30

// SnapshotInfo describes a snapshot in the controls' JSON answers.
type SnapshotInfo struct {
	Name  string    `json:"name,omitempty"`
	Keys  int       `json:"keys"`
	Bytes int       `json:"bytes"`
	Saved time.Time `json:"saved,omitzero"`
}

// snapshotAnswer is the JSON body of the snapshot controls' answers.
type snapshotAnswer struct {
	Snapshot  *SnapshotInfo  `json:"snapshot,omitempty"`
	Snapshots []SnapshotInfo `json:"snapshots,omitempty"`
	Reset     *api.Namespace `json:"reset,omitempty"`
	TookMs    float64        `json:"tookMs,omitempty"`
	Error     string         `json:"error,omitempty"`
}

func (h *handler) snapshotRoutes(r *mux.Router) {
	r.Methods(http.MethodGet).Path(SnapshotAdminPath).HandlerFunc(h.adminAuth(h.snapshotGet))
	r.Methods(http.MethodPost).Path(SnapshotAdminPath).HandlerFunc(h.adminAuth(h.snapshotKeep))
	r.Methods(http.MethodGet).Path(SnapshotsAdminPath).HandlerFunc(h.adminAuth(h.snapshotList))
	r.Methods(http.MethodPost).Path(RestoreAdminPath).HandlerFunc(h.adminAuthBody(MaxSnapshotBytes, h.snapshotRestore))
	r.Methods(http.MethodPost).Path(ResetAdminPath).HandlerFunc(h.adminAuth(h.snapshotReset))
}

func snapshotReply(w http.ResponseWriter, status int, ans snapshotAnswer) {
	body, _ := json.Marshal(ans)
	writeBody(w, status, "application/json", append(body, '\n'))
}

func snapshotFail(w http.ResponseWriter, status int, msg string) {
	snapshotReply(w, status, snapshotAnswer{Error: msg})
}

func infoOf(k *emulator.KeptSnapshot) SnapshotInfo {
	return SnapshotInfo{Name: k.Name, Keys: k.Snapshot.Keys(), Bytes: k.Snapshot.Size(), Saved: k.Saved}
}

// snapshotGet sends the server's state, or a kept snapshot, as a file.
func (h *handler) snapshotGet(w http.ResponseWriter, r *http.Request) {
	if err := h.eng.AuthorizeServer(r.Context(), ActionSnapshot); err != nil {
		snapshotFail(w, http.StatusForbidden, errorMessage(err))
		return
	}
	var snap *emulator.Snapshot
	if name := r.URL.Query().Get("name"); name != "" {
		k := h.eng.KeptSnapshot(name)
		if k == nil {
			snapshotFail(w, http.StatusNotFound, "no snapshot is kept as "+name)
			return
		}
		snap = k.Snapshot
	} else {
		var err error
		if snap, err = h.eng.Snapshot(r.Context()); err != nil {
			snapshotFail(w, http.StatusInternalServerError, err.Error())
			return
		}
	}
	w.Header().Set("Content-Disposition", `attachment; filename="extenddb.snapshot"`)
	writeBody(w, http.StatusOK, SnapshotContentType, snap.Bytes())
}

// snapshotKeep keeps the server's state on the server under ?name.
func (h *handler) snapshotKeep(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	if name == "" {
		snapshotFail(w, http.StatusBadRequest, "name=N is required: the name to keep the snapshot under")
		return
	}
	if err := h.eng.AuthorizeServer(r.Context(), ActionSnapshot); err != nil {
		snapshotFail(w, http.StatusForbidden, errorMessage(err))
		return
	}
	start := time.Now()
	snap, err := h.eng.Snapshot(r.Context())
	if err != nil {
		snapshotFail(w, http.StatusInternalServerError, err.Error())
		return
	}
	info := infoOf(h.eng.Keep(name, snap))
	h.log.Info().Str("name", name).Int("keys", info.Keys).Int("bytes", info.Bytes).Dur("took", time.Since(start)).Msg("snapshot kept")
	snapshotReply(w, http.StatusOK, snapshotAnswer{Snapshot: &info, TookMs: ms(time.Since(start))})
}

func (h *handler) snapshotList(w http.ResponseWriter, r *http.Request) {
	if err := h.eng.AuthorizeServer(r.Context(), ActionSnapshot); err != nil {
		snapshotFail(w, http.StatusForbidden, errorMessage(err))
		return
	}
	ans := snapshotAnswer{Snapshots: []SnapshotInfo{}}
	for _, k := range h.eng.KeptSnapshots() {
		ans.Snapshots = append(ans.Snapshots, infoOf(k))
	}
	snapshotReply(w, http.StatusOK, ans)
}

// snapshotRestore restores the kept snapshot ?name, or the one in the body.
func (h *handler) snapshotRestore(w http.ResponseWriter, r *http.Request) {
	if err := h.eng.AuthorizeServer(r.Context(), ActionRestore); err != nil {
		snapshotFail(w, http.StatusForbidden, errorMessage(err))
		return
	}
	var snap *emulator.Snapshot
	info := SnapshotInfo{}
	if name := r.URL.Query().Get("name"); name != "" {
		k := h.eng.KeptSnapshot(name)
		if k == nil {
			snapshotFail(w, http.StatusNotFound, "no snapshot is kept as "+name)
			return
		}
		snap, info = k.Snapshot, infoOf(k)
	} else {
		body, err := io.ReadAll(io.LimitReader(r.Body, MaxSnapshotBytes+1))
		if err != nil || len(body) > MaxSnapshotBytes {
			snapshotFail(w, http.StatusBadRequest, "the snapshot in the body is unreadable or over 4 GB")
			return
		}
		if len(body) == 0 {
			snapshotFail(w, http.StatusBadRequest, "give name=N (a kept snapshot) or a snapshot file as the body")
			return
		}
		if snap, err = emulator.ParseSnapshot(body); err != nil {
			snapshotFail(w, http.StatusBadRequest, err.Error())
			return
		}
		info = SnapshotInfo{Keys: snap.Keys(), Bytes: snap.Size()}
	}
	start := time.Now()
	if err := h.eng.Restore(r.Context(), snap); err != nil {
		status := http.StatusInternalServerError
		if errors.Is(err, r.Context().Err()) {
			status = http.StatusServiceUnavailable
		}
		snapshotFail(w, status, err.Error())
		return
	}
	took := time.Since(start)
	h.log.Info().Str("name", info.Name).Int("keys", info.Keys).Dur("took", took).Msg("snapshot restored")
	snapshotReply(w, http.StatusOK, snapshotAnswer{Snapshot: &info, TookMs: ms(took)})
}

// snapshotReset drops every table of the server, or of one namespace when
// the query names an account or a Region.
func (h *handler) snapshotReset(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	start := time.Now()
	ans := snapshotAnswer{}
	if q.Has("account") || q.Has("region") {
		ns := h.adminDefaults(r)
		if a := q.Get("account"); a != "" {
			ns.Account = a
		}
		if rg := q.Get("region"); rg != "" {
			ns.Region = rg
		}
		if err := h.eng.Authorize(r.Context(), ns, ActionReset, "", ""); err != nil {
			snapshotFail(w, http.StatusForbidden, errorMessage(err))
			return
		}
		if err := h.eng.ResetNamespace(r.Context(), ns); err != nil {
			snapshotFail(w, http.StatusInternalServerError, err.Error())
			return
		}
		ans.Reset = &ns
	} else {
		if err := h.eng.AuthorizeServer(r.Context(), ActionReset); err != nil {
			snapshotFail(w, http.StatusForbidden, errorMessage(err))
			return
		}
		if err := h.eng.Reset(r.Context()); err != nil {
			snapshotFail(w, http.StatusInternalServerError, err.Error())
			return
		}
	}
	ans.TookMs = ms(time.Since(start))
	ev := h.log.Info().Dur("took", time.Since(start))
	if ans.Reset != nil {
		ev = ev.Str("account", ans.Reset.Account).Str("region", ans.Reset.Region)
	}
	ev.Msg("state reset")
	snapshotReply(w, http.StatusOK, ans)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
