package console

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/extenddb/extenddb/emulator"
)

// The ExtendDB actions of the snapshot page, as the HTTP controls ask
// them (wire's ActionSnapshot and ActionRestore), over the whole server.
const (
	actionSnapshot = "extenddb:Snapshot"
	actionRestore  = "extenddb:Restore"
)

// maxUpload bounds a snapshot file restored from the page.
const maxUpload = 4 << 30

type keptRow struct {
	Name, Saved string
	Keys, Bytes int
}

type snapshotsData struct {
	Done string
	Kept []keptRow
}

// snapshots shows the page that saves and restores snapshots.
func (c *console) snapshots(w http.ResponseWriter, r *http.Request) {
	ns, all, _ := c.namespace(r)
	p := page{Title: "Snapshots", NS: ns, Namespaces: all}
	if err := c.opts.Engine.AuthorizeServer(r.Context(), actionSnapshot); err != nil {
		p.Error = errorText(err)
		c.render(w, r, statusOf(err), "snapshots", p)
		return
	}
	d := snapshotsData{Done: r.URL.Query().Get("done")}
	for _, k := range c.opts.Engine.KeptSnapshots() {
		d.Kept = append(d.Kept, keptRow{Name: k.Name, Saved: k.Saved.Format(time.DateTime + " UTC"), Keys: k.Snapshot.Keys(), Bytes: k.Snapshot.Size()})
	}
	p.Data = d
	c.render(w, r, http.StatusOK, "snapshots", p)
}

// snapshotDownload sends the server's state as a snapshot file.
func (c *console) snapshotDownload(w http.ResponseWriter, r *http.Request) {
	if err := c.opts.Engine.AuthorizeServer(r.Context(), actionSnapshot); err != nil {
		http.Error(w, errorText(err), statusOf(err))
		return
	}
	snap, err := c.opts.Engine.Snapshot(r.Context())
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/vnd.extenddb.snapshot")
	w.Header().Set("Content-Disposition", `attachment; filename="extenddb.snapshot"`)
	_, _ = snap.WriteTo(w)
}

// snapshotKeep keeps the server's state on the server under the form's name.
func (c *console) snapshotKeep(w http.ResponseWriter, r *http.Request) {
	name := r.PostFormValue("name")
	if err := c.opts.Engine.AuthorizeServer(r.Context(), actionSnapshot); err != nil {
		c.snapshotFailed(w, r, err)
		return
	}
	if name == "" {
		c.snapshotFailed(w, r, errors.New("give the snapshot a name"))
		return
	}
	snap, err := c.opts.Engine.Snapshot(r.Context())
	if err != nil {
		c.snapshotFailed(w, r, err)
		return
	}
	c.opts.Engine.Keep(name, snap)
	c.logInfo(r, "console: snapshot kept", name)
	c.snapshotDone(w, r, fmt.Sprintf("Kept the server's state as %s (%d keys).", name, snap.Keys()))
}

// snapshotRestore restores the kept snapshot the form names, or the file
// it uploads.
func (c *console) snapshotRestore(w http.ResponseWriter, r *http.Request) {
	if err := c.opts.Engine.AuthorizeServer(r.Context(), actionRestore); err != nil {
		c.snapshotFailed(w, r, err)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxUpload)
	var snap *emulator.Snapshot
	what := ""
	if name := r.FormValue("name"); name != "" {
		k := c.opts.Engine.KeptSnapshot(name)
		if k == nil {
			c.snapshotFailed(w, r, errors.New("no snapshot is kept as "+name))
			return
		}
		snap, what = k.Snapshot, name
	} else {
		f, fh, err := r.FormFile("file")
		if err != nil {
			c.snapshotFailed(w, r, errors.New("choose a snapshot file to restore"))
			return
		}
		defer f.Close()
		b, err := io.ReadAll(f)
		if err == nil {
			snap, err = emulator.ParseSnapshot(b)
		}
		if err != nil {
			c.snapshotFailed(w, r, fmt.Errorf("%s: %w", fh.Filename, err))
			return
		}
		what = fh.Filename
	}
	start := time.Now()
	if err := c.opts.Engine.Restore(r.Context(), snap); err != nil {
		c.snapshotFailed(w, r, err)
		return
	}
	c.logInfo(r, "console: snapshot restored", what)
	c.snapshotDone(w, r, fmt.Sprintf("Restored %s (%d keys) in %.1f ms.", what, snap.Keys(), float64(time.Since(start).Microseconds())/1000))
}

func (c *console) snapshotDone(w http.ResponseWriter, r *http.Request, msg string) {
	http.Redirect(w, r, Prefix+"/snapshots?done="+url.QueryEscape(msg), http.StatusSeeOther)
}

func (c *console) snapshotFailed(w http.ResponseWriter, r *http.Request, err error) {
	ns, all, _ := c.namespace(r)
	p := page{Title: "Snapshots", NS: ns, Namespaces: all, Error: errorText(err), Data: snapshotsData{}}
	status := statusOf(err)
	if status == http.StatusInternalServerError && !errors.Is(err, r.Context().Err()) {
		status = http.StatusBadRequest
	}
	c.render(w, r, status, "snapshots", p)
}

func (c *console) logInfo(r *http.Request, msg, name string) {
	if c.opts.Log == nil {
		return
	}
	ev := c.opts.Log.Info().Str("snapshot", name)
	if ss := sessionOf(r.Context()); ss != nil {
		ev = ev.Str("principal", ss.caller.ARN)
	}
	ev.Msg(msg)
}

// gated holds each console request at the engine's gate, so a page sees
// the state before or after a restore, never a mix; a restore itself
// does not enter (it waits for the requests inside).
func gated(eng *emulator.Engine, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == Prefix+"/snapshots/restore" {
			next.ServeHTTP(w, r)
			return
		}
		eng.Enter()
		defer eng.Leave()
		next.ServeHTTP(w, r)
	})
}
