package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/extenddb/extenddb/accounts"
	"github.com/extenddb/extenddb/iac"
	"github.com/extenddb/extenddb/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configures New.
type Options struct {
	// Endpoint is the base URL of the ExtendDB server the tools act on,
	// such as http://localhost:8000. Required.
	Endpoint string
	// Region is the Region of requests that name none. Default "us-east-1".
	Region string
	// Credentials sign the requests (the server's --auth=sigv4 needs a key
	// it knows). Default: the static key "test"/"test", which a server
	// with --auth=off places in its default account.
	Credentials aws.CredentialsProvider
	// AllowWrites adds the tools that change data: put_item, delete_item,
	// load_iac, and PartiQL statements other than SELECT. Default false:
	// the server is read-only.
	AllowWrites bool
	// HTTPClient sends every request to Endpoint. Default
	// http.DefaultClient.
	HTTPClient *http.Client
	// Load is the options load_iac reads Terraform and CloudFormation
	// with (DefaultAccount, DefaultRegion, the account rule). Zero: the
	// tables that declare no account are in 000000000000, those that
	// declare no Region in Region.
	Load iac.Options
	// Provision, when set, provisions the tables load_iac read, such as
	// iac.ProvisionWith into an engine in this process. Default nil: they
	// are created over the API (see load.go for what that covers).
	Provision func(ctx context.Context, specs []iac.TableSpec) ([]iac.Outcome, iac.Diagnostics)
	// Version is the version the server reports to clients.
	Version string
}

// server holds what the tools share.
type server struct {
	opts Options
	base *url.URL
}

// New returns the MCP server: its tools act on opts.Endpoint.
func New(opts Options) (*mcp.Server, error) {
	base, err := url.Parse(strings.TrimRight(opts.Endpoint, "/"))
	if err != nil || base.Host == "" || (base.Scheme != "http" && base.Scheme != "https") {
		return nil, fmt.Errorf("endpoint %q: want a URL such as http://localhost:8000", opts.Endpoint)
	}
	if opts.Region == "" {
		opts.Region = "us-east-1"
	}
	if opts.Credentials == nil {
		opts.Credentials = credentials.NewStaticCredentialsProvider("test", "test", "")
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = http.DefaultClient
	}
	if opts.Load.DefaultAccount == "" {
		opts.Load.DefaultAccount = wire.DefaultAccount
	}
	if opts.Load.DefaultRegion == "" {
		opts.Load.DefaultRegion = opts.Region
	}
	s := &server{opts: opts, base: base}
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "extenddb", Title: "ExtendDB", Version: version},
		&mcp.ServerOptions{Instructions: s.instructions()})
	s.addReadTools(srv)
	if opts.AllowWrites {
		s.addWriteTools(srv)
	}
	return srv, nil
}

func (s *server) instructions() string {
	mode := "This server is read-only (started without --allow-writes): it can list, describe, read, query and scan, and run PartiQL SELECT statements, but it cannot change data."
	if s.opts.AllowWrites {
		mode = "Writes are allowed (--allow-writes): put_item, delete_item, load_iac and PartiQL INSERT, UPDATE and DELETE change the server's data."
	}
	return "Tools for ExtendDB, a local Amazon DynamoDB at " + s.base.String() + ". " +
		"Items, keys and expression attribute values are in DynamoDB's JSON form: {\"pk\":{\"S\":\"a\"},\"n\":{\"N\":\"1\"}}. " +
		"The table and item tools take an optional region (default " + s.opts.Region + ") and account (a 12-digit ID; on a server with --auth=off it picks that account's tables). " +
		mode
}

// where is the (account, Region) a tool call names; empty members take
// the server's defaults.
type where struct {
	account, region string
}

// target is where a DynamoDB request in w goes: its Region, and for an
// account, that account's ID as the access key (a 12-digit key is that
// account, the server's rule).
func (s *server) target(w where) (target, error) {
	t := target{region: s.opts.Region, creds: s.opts.Credentials}
	if w.region != "" {
		t.region = w.region
	}
	if w.account != "" {
		if !accounts.IsID(w.account) {
			return target{}, fmt.Errorf("account %q: want a 12-digit account ID", w.account)
		}
		t.creds = credentials.NewStaticCredentialsProvider(w.account, "test", "")
	}
	return t, nil
}

// errReadOnly is the refusal of a write on a read-only server.
var errReadOnly = errors.New("this MCP server is read-only: restart it with --allow-writes to change data")

func ptr[T any](v T) *T { return &v }
