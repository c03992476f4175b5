package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/wire"
)

// snapshotCmdConfig is what `extenddb snapshot` is told.
type snapshotCmdConfig struct {
	endpoint, name, account, region string
	timeout                         time.Duration
}

func newSnapshotCmdFlags() (*flag.FlagSet, *snapshotCmdConfig) {
	c := &snapshotCmdConfig{endpoint: "http://localhost:8000", timeout: 5 * time.Minute}
	fs := flag.NewFlagSet("snapshot", flag.ContinueOnError)
	fs.StringVar(&c.endpoint, "endpoint", c.endpoint, "`URL` of the running server")
	fs.StringVar(&c.name, "name", c.name, "`NAME` of a snapshot kept on the server (keep; save and restore use it instead of the server's state or FILE)")
	fs.StringVar(&c.account, "account", c.account, "`ACCOUNT` whose tables reset drops (with --region: one namespace; neither: the whole server)")
	fs.StringVar(&c.region, "region", c.region, "`REGION` whose tables reset drops; also the Region requests are signed for")
	fs.DurationVar(&c.timeout, "timeout", c.timeout, "how long to wait for the server's answer")
	return fs, c
}

func snapshotCmdUsage(_ *cli, w io.Writer) {
	fs, _ := newSnapshotCmdFlags()
	fmt.Fprint(w, `Usage: extenddb snapshot ACTION [FILE] [flags]

Save, restore or reset the state of a running server, for test suites that
want a known state before each test. ACTION is one of:

	save FILE        write the server's state (every account and Region) to FILE ("-": stdout);
	                 with --name, the snapshot kept on the server under that name instead
	restore FILE     replace the server's state by FILE's ("-": stdin); atomic for requests
	restore --name N replace the server's state by the snapshot kept as N
	keep --name N    keep the server's state on the server as N (in memory, until it stops)
	list             the snapshots kept on the server
	reset            drop every table of the server; with --account or --region, of that namespace only

`+"`extenddb serve --snapshot FILE`"+` starts a server from a saved FILE (and keeps it as "start").
It calls the server's `+wire.SnapshotAdminPath+`, `+wire.RestoreAdminPath+` and `+wire.ResetAdminPath+`
endpoints, which are off the DynamoDB API; under --auth=sigv4 the requests are signed with
AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.

Flags:

`)
	printFlags(w, fs)
}

func runSnapshotCmd(ctx context.Context, c *cli, args []string) int {
	action, file := "", ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		action, args = args[0], args[1:]
	}
	if len(args) > 0 && (!strings.HasPrefix(args[0], "-") || args[0] == "-") {
		file, args = args[0], args[1:]
	}
	fs, cfg := newSnapshotCmdFlags()
	err := parseFlags(fs, args, c.getenv)
	switch {
	case errors.Is(err, flag.ErrHelp):
		snapshotCmdUsage(c, c.stdout)
		return 0
	case err != nil:
		return usageFailed(c, "snapshot", err)
	case !oneOf(action, "save", "restore", "keep", "list", "reset"):
		return usageFailed(c, "snapshot", fmt.Errorf("give an ACTION: save, restore, keep, list or reset (got %q)", action))
	case action == "save" && file == "":
		return usageFailed(c, "snapshot", errors.New("save needs a FILE to write (or - for stdout)"))
	case action == "restore" && (file == "") == (cfg.name == ""):
		return usageFailed(c, "snapshot", errors.New("restore needs a FILE (or - for stdin) or --name, not both"))
	case action == "keep" && cfg.name == "":
		return usageFailed(c, "snapshot", errors.New("keep needs --name"))
	case file != "" && action != "save" && action != "restore":
		return usageFailed(c, "snapshot", fmt.Errorf("unexpected argument %q", file))
	}
	base, err := controlURL(cfg.endpoint, "")
	if err != nil {
		return usageFailed(c, "snapshot", err)
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	sg := newAdminSigner(c.getenv, cfg.region)
	if err := snapshotAction(ctx, c, sg, base, action, file, cfg); err != nil {
		fmt.Fprintf(c.stderr, "extenddb snapshot %s: %v\n", action, err)
		return 1
	}
	return 0
}

func snapshotAction(ctx context.Context, c *cli, sg *adminSigner, base *url.URL, action, file string, cfg *snapshotCmdConfig) error {
	at := func(path string, q url.Values) string {
		u := *base
		u.Path += path
		u.RawQuery = q.Encode()
		return u.String()
	}
	named := url.Values{}
	if cfg.name != "" {
		named.Set("name", cfg.name)
	}
	switch action {
	case "save":
		body, err := callSnapshotAdmin(ctx, sg, http.MethodGet, at(wire.SnapshotAdminPath, named), nil)
		if err != nil {
			return err
		}
		if file == "-" {
			_, err = c.stdout.Write(body)
			return err
		}
		// Through a temporary file, so FILE is never left half written.
		tmp := file + ".tmp"
		if err := os.WriteFile(tmp, body, 0o644); err != nil {
			return err
		}
		if err := os.Rename(tmp, file); err != nil {
			return err
		}
		fmt.Fprintf(c.stdout, "saved %s (%d bytes)\n", file, len(body))
		return nil
	case "restore":
		var body []byte
		if file != "" {
			var err error
			if file == "-" {
				body, err = io.ReadAll(os.Stdin)
			} else {
				body, err = os.ReadFile(file)
			}
			if err != nil {
				return err
			}
			// Checked here, so a wrong file is said before it is sent.
			if _, err := emulator.ParseSnapshot(body); err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
		}
		ans, err := callSnapshotAdmin(ctx, sg, http.MethodPost, at(wire.RestoreAdminPath, named), body)
		if err != nil {
			return err
		}
		var a struct{ TookMs float64 }
		_ = json.Unmarshal(ans, &a)
		what := file
		if what == "" {
			what = "the snapshot kept as " + cfg.name
		}
		fmt.Fprintf(c.stdout, "restored %s in %.1f ms\n", what, a.TookMs)
		return nil
	case "keep":
		ans, err := callSnapshotAdmin(ctx, sg, http.MethodPost, at(wire.SnapshotAdminPath, named), nil)
		if err != nil {
			return err
		}
		var a struct{ Snapshot wire.SnapshotInfo }
		_ = json.Unmarshal(ans, &a)
		fmt.Fprintf(c.stdout, "kept the server's state as %s (%d keys, %d bytes)\n", cfg.name, a.Snapshot.Keys, a.Snapshot.Bytes)
		return nil
	case "list":
		ans, err := callSnapshotAdmin(ctx, sg, http.MethodGet, at(wire.SnapshotsAdminPath, nil), nil)
		if err != nil {
			return err
		}
		var a struct{ Snapshots []wire.SnapshotInfo }
		if err := json.Unmarshal(ans, &a); err != nil {
			return err
		}
		for _, s := range a.Snapshots {
			fmt.Fprintf(c.stdout, "%-20s %8d keys %12d bytes  saved %s\n", s.Name, s.Keys, s.Bytes, s.Saved.Format(time.RFC3339))
		}
		return nil
	default: // reset
		q := url.Values{}
		if cfg.account != "" {
			q.Set("account", cfg.account)
		}
		if cfg.region != "" {
			q.Set("region", cfg.region)
		}
		ans, err := callSnapshotAdmin(ctx, sg, http.MethodPost, at(wire.ResetAdminPath, q), nil)
		if err != nil {
			return err
		}
		var a struct {
			Reset  *struct{ Account, Region string }
			TookMs float64
		}
		_ = json.Unmarshal(ans, &a)
		what := "every table of the server"
		if a.Reset != nil {
			what = "every table of account " + a.Reset.Account + " in " + a.Reset.Region
		}
		fmt.Fprintf(c.stdout, "dropped %s in %.1f ms\n", what, a.TookMs)
		return nil
	}
}

// callSnapshotAdmin sends one snapshot control request, signed (with its
// body's hash) when sg is set, and returns the answer's body, or the
// control's error.
func callSnapshotAdmin(ctx context.Context, sg *adminSigner, method, u string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", wire.SnapshotContentType)
	}
	if sg != nil {
		sum := sha256.Sum256(body)
		hash := hex.EncodeToString(sum[:])
		req.Header.Set("X-Amz-Content-Sha256", hash)
		if err := v4.NewSigner().SignHTTP(ctx, sg.creds, req, hash, "dynamodb", sg.region, time.Now()); err != nil {
			return nil, err
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	ans, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		var e struct{ Error string }
		if json.Unmarshal(ans, &e) != nil || e.Error == "" {
			return nil, fmt.Errorf("%s answered %s, not the snapshot endpoint (is it an extenddb?)", u, resp.Status)
		}
		return nil, fmt.Errorf("%s: %s", resp.Status, e.Error)
	}
	return ans, nil
}

// startFromSnapshot restores the snapshot file of serve --snapshot into
// eng before it serves, and keeps it on the server as "start", so
// `extenddb snapshot restore --name start` goes back to it.
func startFromSnapshot(ctx context.Context, eng *emulator.Engine, path string) (*emulator.Snapshot, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--snapshot: %w", err)
	}
	defer f.Close()
	snap, err := emulator.ReadSnapshot(f)
	if err != nil {
		return nil, fmt.Errorf("--snapshot %s: %w", path, err)
	}
	if err := eng.Restore(ctx, snap); err != nil {
		return nil, fmt.Errorf("--snapshot %s: %w", path, err)
	}
	eng.Keep("start", snap)
	return snap, nil
}
