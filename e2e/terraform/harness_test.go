package terraform_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/internal/testserver"
	"github.com/extenddb/extenddb/wire"
	"github.com/rs/zerolog"
)

// requireEnv makes a missing Terraform or provider a failure instead of a
// skip; .ci/run sets it so CI never silently stops running these tests.
const requireEnv = "EXTENDDB_REQUIRE_TERRAFORM"

// mirrorEnv names a filesystem mirror holding
// registry.terraform.io/hashicorp/aws/<version>/<os>_<arch>/.
const mirrorEnv = "EXTENDDB_TF_PROVIDER_MIRROR"

// mirrorDirs are where a provider mirror is looked for when mirrorEnv is
// unset: the machine image's directory, then Terraform's implied local
// mirror directories.
func mirrorDirs() []string {
	dirs := []string{"/opt/tf-plugins"}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, ".terraform.d", "plugins"))
	}
	return append(dirs, "/usr/local/share/terraform/plugins", "/usr/share/terraform/plugins")
}

// logDirEnv names a directory where each scenario leaves its whole server
// log, for a failure the printed lines do not explain.
const logDirEnv = "EXTENDDB_TF_LOG_DIR"

// keepLog writes the scenario's server log to dir.
func (s *scenario) keepLog(dir string) {
	name := strings.NewReplacer("/", "_", " ", "_").Replace(s.t.Name()) + ".log"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(s.logs.since(0), "\n")+"\n"), 0o644); err != nil {
		s.t.Errorf("keeping the server log: %v", err)
	}
}

// commandTimeout bounds one Terraform command, so a hang fails its step
// instead of the whole test binary.
const commandTimeout = 4 * time.Minute

// tools are the Terraform binary and the provider mirror a test runs with.
type tools struct {
	terraform string // path of the terraform binary
	mirror    string // root of the filesystem mirror
	version   string // provider version found in the mirror, e.g. 5.100.0
}

// findTools locates Terraform and the AWS provider, or skips (fails under
// EXTENDDB_REQUIRE_TERRAFORM=1) with a message saying what is missing.
func findTools(t *testing.T) tools {
	t.Helper()
	missing := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...) + " (see docs/terraform.md, \"Running the Terraform tests\")"
		if os.Getenv(requireEnv) == "1" {
			t.Fatalf("%s=1 but %s", requireEnv, msg)
		}
		t.Skip("skipping the real-Terraform tests: " + msg)
	}
	if testing.Short() {
		t.Skip("skipping the real-Terraform tests in -short mode")
	}
	bin, err := exec.LookPath("terraform")
	if err != nil {
		missing("terraform is not on PATH")
	}
	dirs := mirrorDirs()
	if d := os.Getenv(mirrorEnv); d != "" {
		dirs = []string{d}
	}
	for _, d := range dirs {
		pattern := filepath.Join(d, "registry.terraform.io", "hashicorp", "aws", "*", "linux_amd64", "terraform-provider-aws_*")
		matches, _ := filepath.Glob(pattern)
		sort.Strings(matches)
		if len(matches) > 0 {
			// The newest version when several are mirrored.
			version := filepath.Base(filepath.Dir(filepath.Dir(matches[len(matches)-1])))
			return tools{terraform: bin, mirror: d, version: version}
		}
	}
	missing("no hashicorp/aws provider found in a filesystem mirror (looked in %s; set %s)", strings.Join(dirs, ", "), mirrorEnv)
	return tools{}
}

// logBuffer collects the server's log lines; zerolog writes one line per Write.
type logBuffer struct {
	mu    sync.Mutex
	lines []string
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lines = append(b.lines, strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func (b *logBuffer) len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.lines)
}

func (b *logBuffer) since(i int) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.lines[i:]...)
}

// account is an AWS account the scenario's provider blocks act as.
type account struct {
	id        string // 12 digits
	accessKey string
}

// scenario is one Terraform working directory against its own ExtendDB.
type scenario struct {
	t     *testing.T
	tools tools
	srv   *testserver.Server
	logs  *logBuffer
	dir   string   // working directory
	env   []string // Terraform's whole environment
	// reattach points every command but init at the shared provider
	// proxy (proxy_test.go); empty under EXTENDDB_TF_DIRECT=1.
	reattach string
}

type scenarioOptions struct {
	accounts []account
	// transitionDelay keeps tables and indexes in CREATING/UPDATING/DELETING
	// for this long, so the provider's waiters poll.
	transitionDelay time.Duration
	// engine, when set, adjusts the server's engine options.
	engine func(*emulator.Options)
}

// defaultTransitionDelay exercises the provider's waiters at a small cost:
// each wait's first poll sees the transitional state and the next one
// (200 ms later in the provider's backoff) the final one.
const defaultTransitionDelay = 150 * time.Millisecond

// newScenario starts a server on a real TCP listener and prepares a
// working directory and a CLI configuration that installs the provider from
// the mirror only (no network: a filesystem mirror installs by symlink, so
// every scenario shares the one copy of the provider binary).
func newScenario(t *testing.T, tl tools, opts scenarioOptions) *scenario {
	t.Helper()
	logs := &logBuffer{}
	lg := zerolog.New(logs).Level(zerolog.DebugLevel).With().Timestamp().Logger()
	so := []testserver.Option{
		testserver.WithTransitionDelay(opts.transitionDelay),
		testserver.WithWireOptions(func(o *wire.Options) { o.Logger = &lg }),
	}
	for _, a := range opts.accounts {
		so = append(so, testserver.WithAccessKeyAccount(a.accessKey, a.id))
	}
	if opts.engine != nil {
		so = append(so, testserver.WithEngineOptions(opts.engine))
	}
	s := &scenario{t: t, tools: tl, srv: testserver.New(t, so...), logs: logs}
	if dir := os.Getenv(logDirEnv); dir != "" {
		t.Cleanup(func() { s.keepLog(dir) })
	}
	root := t.TempDir()
	s.dir = filepath.Join(root, "work")
	home := filepath.Join(root, "home")
	for _, d := range []string{s.dir, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cli := filepath.Join(root, "cli.tfrc")
	cfg := fmt.Sprintf(`provider_installation {
  filesystem_mirror {
    path    = %q
    include = ["registry.terraform.io/hashicorp/aws"]
  }
  direct {
    exclude = ["registry.terraform.io/*/*"]
  }
}
disable_checkpoint = true
`, tl.mirror)
	if err := os.WriteFile(cli, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	// A whole environment, not the test's: no AWS_* credentials, profiles,
	// CA bundles or endpoints leak in; the provider blocks say everything.
	s.env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"TMPDIR=" + root,
		"TF_CLI_CONFIG_FILE=" + cli,
		"TF_IN_AUTOMATION=1",
		"TF_INPUT=0",
		"CHECKPOINT_DISABLE=1",
		"AWS_CONFIG_FILE=" + filepath.Join(home, "no-aws-config"),
		"AWS_SHARED_CREDENTIALS_FILE=" + filepath.Join(home, "no-aws-credentials"),
		// Keeps the instance metadata service out of the credential chain
		// without a skip_* flag in the provider block.
		"AWS_EC2_METADATA_DISABLED=true",
	}
	if os.Getenv(directEnv) != "1" {
		p, err := sharedProxy(tl)
		if err != nil {
			t.Fatalf("starting the provider proxy (%s=1 runs without it): %v", directEnv, err)
		}
		s.reattach = "TF_REATTACH_PROVIDERS=" + p.reattach
	}
	return s
}

// client is an SDK client acting as a in region.
func (s *scenario) client(region string, a account) *dynamodb.Client {
	return s.srv.ClientFor(region, a.accessKey)
}

// providerBlock is the provider configuration users copy (docs/terraform.md),
// pointed at this scenario's server.
func (s *scenario) providerBlock(alias, region string, a account) string {
	al := ""
	if alias != "" {
		al = fmt.Sprintf("  alias  = %q\n", alias)
	}
	return fmt.Sprintf(`provider "aws" {
%s  region = %q
  access_key = %q
  secret_key = "x"
  endpoints {
    dynamodb = %q
    kms      = %q
    sts      = %q
  }
}
`, al, region, a.accessKey, s.srv.URL, s.srv.URL, s.srv.URL)
}

// terraformBlock pins the provider to the mirrored version.
func (s *scenario) terraformBlock() string {
	return fmt.Sprintf(`terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = %q
    }
  }
}
`, s.tools.version)
}

// write replaces the working directory's main.tf.
func (s *scenario) write(name, content string) {
	s.t.Helper()
	if err := os.WriteFile(filepath.Join(s.dir, name), []byte(content), 0o644); err != nil {
		s.t.Fatal(err)
	}
}

// tf runs one Terraform command as step and returns its output and exit
// code; an exit code other than the wanted ones fails the test with the
// step, Terraform's output and the server's log lines.
func (s *scenario) tf(step string, want []int, args ...string) (string, int) {
	s.t.Helper()
	mark := s.logs.len()
	ctx, cancel := context.WithTimeout(s.t.Context(), commandTimeout)
	defer cancel()
	full := append([]string{args[0], "-no-color"}, args[1:]...)
	cmd := exec.CommandContext(ctx, s.tools.terraform, full...)
	cmd.Dir = s.dir
	cmd.Env = s.env
	// init installs the provider from the mirror as a user's would; the
	// other commands use the proxy's.
	if s.reattach != "" && args[0] != "init" {
		cmd.Env = append(cmd.Env[:len(cmd.Env):len(cmd.Env)], s.reattach)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			s.fail(step, out.String(), mark, fmt.Sprintf("terraform %s: %v", strings.Join(args, " "), err))
		}
		code = ee.ExitCode()
	}
	s.t.Logf("step %q: terraform %s: exit %d in %s", step, args[0], code, time.Since(start).Round(100*time.Millisecond))
	for _, w := range want {
		if code == w {
			return out.String(), code
		}
	}
	s.fail(step, out.String(), mark, fmt.Sprintf("terraform %s exited %d, want %v", strings.Join(args, " "), code, want))
	return "", 0
}

var requestIDPattern = regexp.MustCompile(`RequestID: ([A-Z0-9]{52})`)

// fail reports a broken step: what broke, Terraform's output, and the
// server's log lines — those of the requests Terraform names in its errors,
// every refused request of the step, and the step's last lines.
func (s *scenario) fail(step, output string, mark int, what string) {
	s.t.Helper()
	lines := s.logs.since(mark)
	ids := map[string]bool{}
	for _, m := range requestIDPattern.FindAllStringSubmatch(output, -1) {
		ids[m[1]] = true
	}
	var picked []string
	for i, l := range lines {
		named := false
		for id := range ids {
			if strings.Contains(l, id) {
				named = true
			}
		}
		if named || strings.Contains(l, `"error":`) || strings.Contains(l, `"level":"error"`) || i >= len(lines)-15 {
			picked = append(picked, l)
		}
	}
	s.t.Fatalf("step %q: %s\n--- terraform output ---\n%s\n--- server log: requests named above, refused requests and the step's last lines (%d of %d) ---\n%s",
		step, what, output, len(picked), len(lines), strings.Join(picked, "\n"))
}

// init runs terraform init.
func (s *scenario) init() {
	s.t.Helper()
	s.tf("init", []int{0}, "init", "-input=false")
}

// apply runs terraform apply and returns its output.
func (s *scenario) apply(step string, extra ...string) string {
	s.t.Helper()
	out, _ := s.tf(step, []int{0}, append([]string{"apply", "-auto-approve", "-input=false"}, extra...)...)
	return out
}

// planClean runs terraform plan -detailed-exitcode, which must find no
// change (exit 0; 2 means changes).
func (s *scenario) planClean(step string) {
	s.t.Helper()
	s.tf(step+": plan is clean", []int{0}, "plan", "-detailed-exitcode", "-input=false")
}

// applyClean applies and then checks that a plan finds nothing to do.
func (s *scenario) applyClean(step string, extra ...string) string {
	s.t.Helper()
	out := s.apply(step, extra...)
	s.planClean(step)
	return out
}

// destroy runs terraform destroy, which must succeed.
func (s *scenario) destroy(step string) string {
	s.t.Helper()
	out, _ := s.tf(step, []int{0}, "destroy", "-auto-approve", "-input=false")
	return out
}

// outputs returns the root outputs from the local state file (what
// `terraform output -json` prints, without starting the provider again).
func (s *scenario) outputs() map[string]any {
	s.t.Helper()
	b, err := os.ReadFile(filepath.Join(s.dir, "terraform.tfstate"))
	if err != nil {
		s.t.Fatal(err)
	}
	return parseOutputs(s.t, b)
}
