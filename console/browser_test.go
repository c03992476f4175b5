package console_test

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// chromium returns the path of a Chromium (or Chrome) binary, or skips the
// test with a message saying how to get one.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("browser tests skipped: no chromium on PATH (Debian/Ubuntu: apt-get install chromium; .ci/run installs it)")
	return ""
}

// browser starts headless Chromium for the test and returns its context.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.NoSandbox, // CI containers run as root
		chromedp.DisableGPU,
		chromedp.WindowSize(1280, 900),
		chromedp.UserDataDir(t.TempDir()),
	)
	actx, cancelA := chromedp.NewExecAllocator(t.Context(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	ctx, cancelC := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelC(); cancelB(); cancelA() })
	return ctx
}

// screenshotDir is where screenshots go: $EXTENDDB_SCREENSHOTS when set
// (to keep them), else a temporary directory.
func screenshotDir(t *testing.T) string {
	if d := os.Getenv("EXTENDDB_SCREENSHOTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// shot saves a screenshot of the whole page as dir/name.png.
func shot(t *testing.T, dir, name string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		buf, err := chromedp.FullScreenshot(100)(ctx, tg)
		if err != nil {
			return err
		}
		p := filepath.Join(dir, name+".png")
		t.Logf("screenshot %s", p)
		return os.WriteFile(p, buf, 0o644)
	})
}

// waitText polls the text of sel until it holds want; errors (the node
// going away while the page navigates) are retried.
func waitText(ctx context.Context, t *testing.T, sel, want string) {
	t.Helper()
	var got string
	for range 100 {
		qctx, cancel := context.WithTimeout(ctx, time.Second)
		s, err := chromedp.Run(qctx, chromedp.Text(chromedp.CSS(sel)))
		cancel()
		if got = s; err == nil && strings.Contains(got, want) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s shows %q, want %q", sel, got, want)
}

// TestBrowser drives the console in real headless Chromium: open it,
// create an item, find it by Query, edit it, delete it, and watch a
// throttle event appear on the timeline while writes exceed a 1-WCU
// table's capacity. Each page is screenshotted.
func TestBrowser(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t)
	dir := screenshotDir(t)
	base := e.s.URL + "/console"
	nsq := "ns=" + url.QueryEscape(e.ns)
	e.put("c0", 1, "already here")

	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return s
	}

	do("home", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.ID("tables")), shot(t, dir, "tables"))
	if s := text("#tables"); !strings.Contains(s, "Orders") {
		t.Fatalf("table list %q has no Orders", s)
	}
	do("description", chromedp.Click(chromedp.CSS(`a[href*="t=Orders"]`)), chromedp.WaitVisible(chromedp.ID("status")), shot(t, dir, "table"))
	if s := text("#read-bucket"); !strings.Contains(s, "on demand: 40,000 RCU/s ceiling, 12,000,000 burst; ") {
		t.Fatalf("an on-demand table's read bucket reads %q", s)
	}

	// Create.
	do("create",
		chromedp.Navigate(base+"/new?"+nsq+"&t=Orders"),
		chromedp.WaitVisible(chromedp.ID("itemjson")),
		chromedp.SetValue(chromedp.ID("itemjson"), `{"pk":{"S":"browser"},"sk":{"N":"7"},"note":{"S":"from chromium"}}`),
		chromedp.Click(chromedp.ID("create")),
		chromedp.WaitVisible(chromedp.ID("plainjson")),
		shot(t, dir, "item"))
	if s := text("#plainjson"); !strings.Contains(s, `"note": "from chromium"`) {
		t.Fatalf("created item shows %q", s)
	}
	if n, ok := e.note("browser", 7); !ok || n != "from chromium" {
		t.Fatalf("after create: %q %v", n, ok)
	}

	// Query finds it.
	do("query",
		chromedp.Navigate(base+"/query?"+nsq+"&t=Orders"),
		chromedp.WaitVisible(chromedp.ID("pk")),
		chromedp.SendKeys(chromedp.ID("pk"), "browser"),
		chromedp.Click(chromedp.ID("run")),
		chromedp.WaitVisible(chromedp.ID("items")),
		shot(t, dir, "query"))
	if s := text("#items"); !strings.Contains(s, "from chromium") {
		t.Fatalf("query results %q", s)
	}

	// Edit, from the result's link.
	do("edit",
		chromedp.Click(chromedp.CSS(`#items a`)),
		chromedp.WaitVisible(chromedp.ID("save")),
		chromedp.SetValue(chromedp.ID("itemjson"), `{"pk":{"S":"browser"},"sk":{"N":"7"},"note":{"S":"edited"}}`),
		chromedp.Click(chromedp.ID("save")))
	// The item page before the save had #plainjson too: wait for the new one.
	waitText(ctx, t, "#plainjson", "edited")
	if n, _ := e.note("browser", 7); n != "edited" {
		t.Fatalf("after edit: stored %q", n)
	}

	// Delete (the confirmation dialog is accepted).
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.confirm = function () { return true; }; true`)); err != nil {
		t.Fatal(err)
	}
	do("delete", chromedp.Click(chromedp.ID("delete")), chromedp.WaitVisible(chromedp.ID("items")))
	if _, ok := e.note("browser", 7); ok {
		t.Fatal("item still there after delete")
	}

	// The query form labels its inputs with the keys of the index chosen.
	e.createShipments()
	do("query on an index", chromedp.Navigate(base+"/query?"+nsq+"&t=Shipments"), chromedp.WaitVisible(chromedp.ID("pk")))
	if s := text("#pkname"); s != "id" {
		t.Fatalf("table's partition key labelled %q", s)
	}
	skShown := func() bool {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!document.getElementById('sklabel').hidden`))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if skShown() {
		t.Fatal("a sort key input shown for a table without one")
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`var s = document.getElementById('index'); s.value = 'ByCustomer'; s.dispatchEvent(new Event('change')); true`)); err != nil {
		t.Fatal(err)
	}
	if pk, sk := text("#pkname"), text("#skname"); pk != "customer" || sk != "shipped" || !skShown() {
		t.Fatalf("index chosen: labelled %q and %q (sort key shown: %v), want customer and shipped", pk, sk, skShown())
	}
	do("query the index",
		chromedp.SendKeys(chromedp.ID("pk"), "c9"),
		chromedp.Click(chromedp.ID("run")),
		chromedp.WaitVisible(chromedp.ID("items")),
		shot(t, dir, "query-index"))
	if s, pk := text("#items"), text("#pkname"); !strings.Contains(s, "2026-12-01") || pk != "customer" {
		t.Fatalf("index query results %q, partition key labelled %q", s, pk)
	}

	// Vector search: from the table page's vector index to its search,
	// results most similar first.
	e.createDocs()
	do("vector indexes", chromedp.Navigate(base+"/table?"+nsq+"&t=Docs"), chromedp.WaitVisible(chromedp.ID("vector-indexes")))
	if s := text("#vector-indexes"); !strings.Contains(s, "bytenant") || !strings.Contains(s, "tenant HASH cat INLINE_FILTER") {
		t.Fatalf("vector indexes %q", s)
	}
	resultKeys := func() string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll('#results tbody td:nth-child(3)')).map(function (td) { return td.textContent; }).join(' ')`))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	do("vector search",
		chromedp.Click(chromedp.CSS(`#vector-indexes a[href*="index=bytenant"]`)),
		chromedp.WaitVisible(chromedp.ID("hash")),
		chromedp.SetValue(chromedp.ID("vector"), "[3.1, 0]"),
		chromedp.SendKeys(chromedp.ID("hash"), "t0"),
		chromedp.Click(chromedp.ID("run")),
		chromedp.WaitVisible(chromedp.ID("results")),
		shot(t, dir, "vector-search"))
	if ks := resultKeys(); ks != "d4 d2 d0" {
		t.Fatalf("tenant t0's results near [3.1, 0]: %q, want d4 d2 d0", ks)
	}
	// An index without a HASH element: the input goes.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`var s = document.getElementById('index'); s.value = 'near'; s.dispatchEvent(new Event('change')); true`)); err != nil {
		t.Fatal(err)
	}
	if hidden, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById('hashlabel').hidden`)); err != nil || !hidden {
		t.Fatalf("HASH input shown for an index without one (%v)", err)
	}
	do("vector search on near", chromedp.Click(chromedp.ID("run")))
	waitText(ctx, t, "#results", "note 3") // d3 is tenant t1: not among the results before
	if ks := resultKeys(); ks != "d3 d4 d2 d1 d0" {
		t.Fatalf("results near [3.1, 0]: %q, want d3 d4 d2 d1 d0", ks)
	}

	// Throttling: the page is open while writes exceed 1 WCU.
	e.createTiny()
	do("timeline", chromedp.Navigate(base+"/throttle?"+nsq+"&t=Tiny"), chromedp.WaitVisible(chromedp.ID("chart-write")))
	// Two seconds of writes at ~20/s: a few seconds of history on the chart.
	e.overrunTiny(2 * time.Second)
	do("throttle mark",
		chromedp.WaitVisible(chromedp.CSS(`#chart-write line.throttle`)),
		chromedp.WaitVisible(chromedp.CSS(`#events tbody tr`)),
		shot(t, dir, "throttle"))
	reasons, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(`#chart-write line.throttle`), "data-reasons"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(reasons.Value, "TableWriteProvisionedThroughputExceeded") || !strings.Contains(text("#events tbody"), "TableWriteProvisionedThroughputExceeded") {
		t.Errorf("timeline marks %q", reasons.Value)
	}
	// The key being throttled leads the hottest keys (throttled requests
	// rank first).
	waitText(ctx, t, "#hot tbody tr:first-child td:first-child", "hot")
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`+document.querySelector('#hot tbody tr:first-child td:last-child').textContent`)); err != nil || n == 0 {
		t.Errorf("the hottest key shows %d throttled requests (%v), want some", n, err)
	}
	do("stream", chromedp.Navigate(base+"/stream?"+nsq+"&t=Orders"), chromedp.WaitVisible(chromedp.ID("records")), shot(t, dir, "stream"))
}

// TestBrowserSignIn drives the console under --auth=sigv4 in headless
// Chromium: sign in, a page refused to a principal without its action, a
// save refused without dynamodb:PutItem, a form stripped of its CSRF token
// refused, and sign-out, after which the old session cookie opens nothing.
func TestBrowserSignIn(t *testing.T) {
	ctx := browser(t)
	e := newAuthEnv(t, 50*time.Millisecond)
	dir := screenshotDir(t)
	base := e.s.URL + "/console"
	nsq := "ns=" + url.QueryEscape(e.ns)
	e.put("a", 1, "first")
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	signIn := func(key, secret string) {
		t.Helper()
		do("sign in as "+key,
			chromedp.WaitVisible(chromedp.ID("accessKeyId")),
			chromedp.SendKeys(chromedp.ID("accessKeyId"), key),
			chromedp.SendKeys(chromedp.ID("secretAccessKey"), secret),
			chromedp.Click(chromedp.ID("signin")))
	}

	// Any page asks for a sign-in first, then opens.
	do("unsigned", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.ID("accessKeyId")), shot(t, dir, "signin"))
	signIn("AKIALISTER", "wrong")
	waitText(ctx, t, "#error", "Sign-in failed")
	time.Sleep(150 * time.Millisecond) // the failure's backoff
	// The page kept the access key ID.
	do("retry", chromedp.WaitVisible(chromedp.ID("secretAccessKey")),
		chromedp.SendKeys(chromedp.ID("secretAccessKey"), "lister-secret"), chromedp.Click(chromedp.ID("signin")))
	do("tables", chromedp.WaitVisible(chromedp.ID("tables")))
	waitText(ctx, t, "#tables", "Orders")
	waitText(ctx, t, "#user", "arn:aws:iam::111111111111:user/lister")

	// The lister may list tables, not describe one.
	do("refused page", chromedp.Click(chromedp.CSS(`a[href*="t=Orders"]`)), chromedp.WaitVisible(chromedp.ID("error")), shot(t, dir, "denied"))
	waitText(ctx, t, "#error", "AccessDeniedException: User: arn:aws:iam::111111111111:user/lister is not authorized to perform: dynamodb:DescribeTable")

	do("sign out", chromedp.Click(chromedp.ID("signout")), chromedp.WaitVisible(chromedp.ID("accessKeyId")))

	// The reader may read the item but not save it.
	signIn("AKIAREADER", "reader-secret")
	do("tables as reader", chromedp.WaitVisible(chromedp.ID("tables")))
	do("item",
		chromedp.Navigate(base+"/item?"+nsq+"&t=Orders&key="+url.QueryEscape(`{"pk":{"S":"a"},"sk":{"N":"1"}}`)),
		chromedp.WaitVisible(chromedp.ID("save")),
		chromedp.SetValue(chromedp.ID("itemjson"), `{"pk":{"S":"a"},"sk":{"N":"1"},"note":{"S":"edited"}}`),
		chromedp.Click(chromedp.ID("save")))
	waitText(ctx, t, "#error", "is not authorized to perform: dynamodb:PutItem on resource: arn:aws:dynamodb:us-east-1:111111111111:table/Orders")
	do("refused save", shot(t, dir, "save-denied"))
	if n, _ := e.note("a", 1); n != "first" {
		t.Fatalf("a refused save wrote %q", n)
	}

	// The same form without its CSRF token (as a forged one would come) is refused.
	do("forged",
		chromedp.Navigate(base+"/item?"+nsq+"&t=Orders&key="+url.QueryEscape(`{"pk":{"S":"a"},"sk":{"N":"1"}}`)),
		chromedp.WaitVisible(chromedp.ID("save")))
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('#itemform input[name=csrf]').remove(); true`)); err != nil {
		t.Fatal(err)
	}
	do("submit forged", chromedp.Click(chromedp.ID("save")))
	waitText(ctx, t, "body", "CSRF token is missing or wrong")

	// The session cookie as the browser holds it.
	cookies, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{base + "/"}})
	if err != nil {
		t.Fatal(err)
	}
	var session *network.Cookie
	for _, c := range cookies.Cookies {
		if c.Name == "extenddb_console" {
			session = c
		}
	}
	if session == nil || !session.HTTPOnly || session.SameSite != network.CookieSameSiteStrict || session.Path != "/console/" || session.Session {
		t.Fatalf("session cookie %+v", session)
	}

	do("sign out again",
		chromedp.Navigate(base+"/"+"?"+nsq), chromedp.WaitVisible(chromedp.ID("signout")),
		chromedp.Click(chromedp.ID("signout")), chromedp.WaitVisible(chromedp.ID("accessKeyId")), shot(t, dir, "signed-out"))
	do("after sign-out", chromedp.Navigate(base+"/items?"+nsq+"&t=Orders"), chromedp.WaitVisible(chromedp.ID("accessKeyId")))
	// The server forgot the session: its cookie, replayed, opens nothing.
	if code, _, h := e.do("GET", "/items?t=Orders&"+nsq, nil, &http.Cookie{Name: session.Name, Value: session.Value}); code != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), "/console/signin") {
		t.Errorf("the signed-out session's cookie: %d %s", code, h.Get("Location"))
	}
}
