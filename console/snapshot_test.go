package console_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/extenddb/extenddb/console"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/internal/testserver"
)

// TestSnapshotPageAuthorized: under --auth=sigv4 the snapshot page, the
// download, keeping and restoring need extenddb:Snapshot or
// extenddb:Restore over the whole server; a principal with every
// DynamoDB action but none of ExtendDB's is refused and changes nothing.
func TestSnapshotPageAuthorized(t *testing.T) {
	e := newAuthEnv(t, 10*time.Millisecond)
	e.put("a", 1, "first")
	reader := e.session("AKIAREADER", "reader-secret", "")
	for _, path := range []string{"/snapshots", "/snapshot"} {
		code, body, _ := e.do("GET", path, nil, reader)
		if code != http.StatusForbidden || !strings.Contains(body, "is not authorized to perform: extenddb:Snapshot on resource: arn:aws:dynamodb:*:*:table/*") {
			t.Errorf("GET %s by reader: %d %s", path, code, body)
		}
	}
	// Its CSRF token, from a page it may see.
	_, home, _ := e.do("GET", "/", nil, reader)
	tok := csrf(t, home)
	e.s.Engine().Keep("base", mustSnapshot(t, e.env))
	e.put("b", 2, "second")
	for path, action := range map[string]string{"/snapshots/keep": "extenddb:Snapshot", "/snapshots/restore": "extenddb:Restore"} {
		code, body, _ := e.do("POST", path, url.Values{"csrf": {tok}, "name": {"base"}}, reader)
		if code != http.StatusForbidden || !strings.Contains(body, "is not authorized to perform: "+action) {
			t.Errorf("POST %s by reader: %d %s", path, code, body)
		}
	}
	if _, ok := e.note("b", 2); !ok {
		t.Fatal("a refused restore changed the state")
	}
	// The SDK's key may do anything ("*" on "*").
	admin := e.session(testserver.DefaultAccessKeyID, testserver.DefaultSecretKey, "")
	_, page, _ := e.do("GET", "/snapshots", nil, admin)
	code, body, hdr := e.do("POST", "/snapshots/restore", url.Values{"csrf": {csrf(t, page)}, "name": {"base"}}, admin)
	if code != http.StatusSeeOther || !strings.Contains(hdr.Get("Location"), "Restored") {
		t.Fatalf("restore by the admin: %d %s", code, body)
	}
	if _, ok := e.note("b", 2); ok {
		t.Error("the restore by the admin left the item written after the snapshot")
	}
}

func mustSnapshot(t *testing.T, e *env) *emulator.Snapshot {
	t.Helper()
	snap, err := e.s.Engine().Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// TestBrowserSnapshots drives the snapshot page in headless Chromium:
// keep the state on the server, write, restore the kept snapshot; then
// restore a downloaded file through the upload form.
func TestBrowserSnapshots(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t)
	dir := screenshotDir(t)
	base := e.s.URL + console.Prefix
	e.put("c0", 1, "fixture")
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.confirm = function () { return true; }; true`)); err != nil {
		t.Fatal(err)
	}
	do("keep",
		chromedp.Navigate(base+"/"),
		chromedp.Click(chromedp.ID("snapshots-link")),
		chromedp.WaitVisible(chromedp.ID("keepname")),
		chromedp.SendKeys(chromedp.ID("keepname"), "fixture"),
		chromedp.Click(chromedp.ID("keep")))
	waitText(ctx, t, "#done", "Kept the server's state as fixture")
	do("kept", chromedp.WaitVisible(chromedp.ID("kept")), shot(t, dir, "snapshots"))

	e.put("c1", 1, "written after")
	// The page's confirm() is answered yes on every page.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.confirm = function () { return true; }; true`)); err != nil {
		t.Fatal(err)
	}
	do("restore kept", chromedp.Click(chromedp.CSS(`button.restore[data-name="fixture"]`)))
	waitText(ctx, t, "#done", "Restored fixture")
	if _, ok := e.note("c1", 1); ok {
		t.Fatal("after restoring the kept snapshot: the item written since is still there")
	}
	if n, ok := e.note("c0", 1); !ok || n != "fixture" {
		t.Fatalf("after restoring the kept snapshot: c0 = %q %v", n, ok)
	}

	// The download link's file, restored through the upload form.
	resp, err := http.Get(base + "/snapshot")
	if err != nil {
		t.Fatal(err)
	}
	file, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("download: %d %v", resp.StatusCode, err)
	}
	path := filepath.Join(t.TempDir(), "state.snapshot")
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	e.put("c2", 1, "written after the download")
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.confirm = function () { return true; }; true`)); err != nil {
		t.Fatal(err)
	}
	do("upload",
		chromedp.WaitVisible(chromedp.ID("snapfile")),
		chromedp.SetUploadFiles(chromedp.ID("snapfile"), []string{path}),
		chromedp.Click(chromedp.ID("upload")))
	waitText(ctx, t, "#done", "Restored state.snapshot")
	do("restored", shot(t, dir, "snapshot-restored"))
	if _, ok := e.note("c2", 1); ok {
		t.Fatal("after restoring the uploaded file: the item written since is still there")
	}
}
