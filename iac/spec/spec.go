package spec

import (
	"os"
	"sort"
	"strings"

	"github.com/extenddb/extenddb/accounts"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
)

// TableSpec is one table to provision in one (account, Region).
type TableSpec struct {
	Account string
	Region  string
	// Pos is where the table is declared.
	Pos Pos
	// Source names the declaration: "aws_dynamodb_table.orders[0]",
	// "module.users.aws_dynamodb_table.this", "Resources.Orders".
	Source string
	// AccountFrom, when set, says how Account was chosen: "provider
	// aws.dr: access key AKIADR0000000000, --access-key-account".
	AccountFrom string
	// Create is exactly what CreateTable receives, so a declared table is
	// validated by the engine's own rules.
	Create api.CreateTableInput
	// TTL, when set, is applied with UpdateTimeToLive.
	TTL *api.TimeToLiveSpecification
	// PITR, when set, is applied with UpdateContinuousBackups.
	PITR *api.PointInTimeRecoverySpecification
	// Insights are the declared Contributor Insights settings, by GSI name
	// ("" for the table), applied with UpdateContributorInsights; a table
	// or GSI not in the map is left as it is.
	Insights map[string]InsightsSetting
	// Kinesis, when set, is the table's Kinesis streaming destination
	// (CloudFormation KinesisStreamSpecification, Terraform
	// aws_dynamodb_kinesis_streaming_destination), enabled with
	// EnableKinesisStreamingDestination; an active destination not declared
	// is disabled.
	Kinesis *KinesisSpec
	// Items are seed items, written when absent.
	Items []av.Item
	// ItemPos is where each seed item is declared (parallel to Items).
	ItemPos []Pos
	// StreamPolicy is the resource-based policy of the table's latest
	// stream (CloudFormation StreamSpecification.ResourcePolicy, Terraform
	// aws_dynamodb_resource_policy on a stream_arn); the table's own is
	// Create.ResourcePolicy.
	StreamPolicy *string
	// ConfirmRemoveSelf is sent as ConfirmRemoveSelfResourceAccess when a
	// policy is put on an existing table or stream.
	ConfirmRemoveSelf bool
	// Import, when set, creates the table with ImportTable from the S3
	// stand-in (Terraform import_table, CloudFormation
	// ImportSourceSpecification) instead of CreateTable; its
	// TableCreationParameters are taken from Create.
	Import *api.ImportTableInput
	// Replicas lists the Regions of the global table this table belongs
	// to, its own included; empty for a single-Region table.
	Replicas []string
	// DisassociationProtection, when set, is the replica's disassociation
	// protection (CloudFormation GlobalTable Replicas[].
	// DisassociationProtectionEnabled), set with UpdateTable once the
	// global table has its replicas; nil leaves the service's default (on).
	DisassociationProtection *bool
	// LegacyGlobal is the global table version 2017.11.29 (legacy) this
	// table is a member of (Terraform aws_dynamodb_global_table), shared
	// by its members' specs; nil for none.
	LegacyGlobal *LegacyGlobal
	// Where maps a member path of Create ("BillingMode", "KeySchema[1]",
	// "GlobalSecondaryIndexes[0].Projection.ProjectionType") to the
	// attribute, block or property that declares it, so an error the
	// engine reports about that member points there (see PosOf). Filled
	// by the loaders with At; read-only afterwards (replicas share it).
	Where map[string]Pos
}

// InsightsSetting is one declared Contributor Insights setting
// (CloudFormation ContributorInsightsSpecification, Terraform
// aws_dynamodb_contributor_insights).
type InsightsSetting struct {
	Enabled bool
	// Mode is ContributorInsightsMode; nil leaves the service's default.
	Mode *string
	// Pos is where it is declared.
	Pos Pos
}

// SetInsights records the setting of index ("" for the table).
func (s *TableSpec) SetInsights(index string, v InsightsSetting) {
	if s.Insights == nil {
		s.Insights = map[string]InsightsSetting{}
	}
	s.Insights[index] = v
}

// KinesisSpec is a Kinesis streaming destination.
type KinesisSpec struct {
	StreamArn string
	// Precision is ApproximateCreationDateTimePrecision; empty is the
	// service's default (MILLISECOND).
	Precision string
	Pos       Pos
}

// LegacyGlobal is a global table version 2017.11.29: tables of one name
// in the Regions listed, linked by CreateGlobalTable once they exist.
type LegacyGlobal struct {
	Name    string
	Account string
	Regions []string
	Pos     Pos
	Source  string
}

// At records that the member at path is declared at pos; an unknown pos is
// ignored.
func (s *TableSpec) At(path string, pos Pos) {
	if pos.File == "" {
		return
	}
	if s.Where == nil {
		s.Where = map[string]Pos{}
	}
	s.Where[path] = pos
}

// PosOf is where the first of paths that is declared is: each path is
// tried, then its parents ("A[1].B.C", "A[1].B", "A[1]", "A"), before the
// next path; the table's own position when none is.
func (s *TableSpec) PosOf(paths ...string) Pos {
	for _, p := range paths {
		for p != "" {
			if pos, ok := s.Where[p]; ok {
				return pos
			}
			p = parentPath(p)
		}
	}
	return s.Pos
}

// parentPath drops the last member or index of a path: "A[1].B" → "A[1]",
// "A[1]" → "A", "A" → "".
func parentPath(p string) string {
	i := strings.LastIndexAny(p, ".[")
	if i < 0 {
		return ""
	}
	return p[:i]
}

// Namespace is the (account, Region) of the table.
func (s *TableSpec) Namespace() api.Namespace {
	return api.Namespace{Account: s.Account, Region: s.Region}
}

// Name is the table name ("" when undeclared).
func (s *TableSpec) Name() string {
	if s.Create.TableName == nil {
		return ""
	}
	return *s.Create.TableName
}

// ARN is the table's ARN in its namespace.
func (s *TableSpec) ARN() string { return s.Namespace().TableARN(s.Name()) }

// SetTag sets or replaces tag key, keeping Tags sorted by key so specs are
// deterministic.
func (s *TableSpec) SetTag(key, value string) {
	for i, t := range s.Create.Tags {
		if t.Key != nil && *t.Key == key {
			s.Create.Tags[i].Value = Str(value)
			return
		}
	}
	s.Create.Tags = append(s.Create.Tags, api.Tag{Key: Str(key), Value: Str(value)})
	sort.SliceStable(s.Create.Tags, func(i, j int) bool { return *s.Create.Tags[i].Key < *s.Create.Tags[j].Key })
}

// TagsFromMap returns tags sorted by key.
func TagsFromMap(m map[string]string) []api.Tag {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []api.Tag
	for _, k := range keys {
		out = append(out, api.Tag{Key: Str(k), Value: Str(m[k])})
	}
	return out
}

// Options are the loaders' inputs besides the files.
type Options struct {
	// DefaultAccount is the account of tables that declare none.
	DefaultAccount string
	// DefaultRegion is the Region of tables whose provider or stack
	// declares none (and neither AWS_REGION nor AWS_DEFAULT_REGION is set).
	DefaultRegion string

	// Terraform: -var NAME=VALUE and -var-file PATH, in that order of
	// precedence after the files of the root module.
	Vars     []string
	VarFiles []string

	// CloudFormation: --param KEY=VALUE, --param-file PATH (the aws
	// cloudformation parameters JSON format), the stack's name, Region and
	// account (default: the template file name, DefaultRegion,
	// DefaultAccount), and exported values Fn::ImportValue resolves.
	Params       []string
	ParamFiles   []string
	StackName    string
	StackRegion  string
	StackAccount string
	Exports      map[string]string

	// AccessKeyAccounts and AccountPerAccessKey are serve's
	// --access-key-account and --account-per-access-key. With
	// DefaultAccount they are the rule (package accounts) that resolves a
	// Terraform provider's access key to an account exactly as the server
	// resolves a request signed with that key (KeyAccount).
	AccessKeyAccounts   map[string]string
	AccountPerAccessKey bool
	// CredentialsAccount, when set, is serve's --auth=sigv4 with
	// --credentials: the server then knows only the file's keys, each in
	// the account the file gives it, and refuses any other. It replaces
	// the rule above for a provider's key; a key it does not know is an
	// error (terraform apply would be refused).
	CredentialsAccount func(accessKeyID string) (account string, ok bool)

	// Getenv reads the environment (TF_VAR_*, AWS_REGION,
	// AWS_DEFAULT_REGION, AWS_ACCESS_KEY_ID). Nil means os.LookupEnv.
	Getenv func(string) (string, bool)
}

// Env looks up an environment variable through Getenv.
func (o *Options) Env(name string) (string, bool) {
	if o.Getenv != nil {
		return o.Getenv(name)
	}
	return os.LookupEnv(name)
}

// Account returns DefaultAccount or the documented fallback.
func (o *Options) Account() string {
	if o.DefaultAccount != "" {
		return o.DefaultAccount
	}
	return DefaultAccount
}

// KeyAccount is the account of a request signed with accessKeyID on a
// server started with these options' account flags (the single rule of
// package accounts, the wire's own; CredentialsAccount under
// --auth=sigv4), and the flag that placed it. known is false for a key
// CredentialsAccount does not know: the server refuses it, and account is
// the default account.
func (o *Options) KeyAccount(accessKeyID string) (account, by string, known bool) {
	if o.CredentialsAccount != nil && accessKeyID != "" {
		if a, ok := o.CredentialsAccount(accessKeyID); ok {
			return a, "--credentials", true
		}
		return o.Account(), "--default-account", false
	}
	a, by := o.ruleAccount(accessKeyID)
	return a, by, true
}

func (o *Options) ruleAccount(accessKeyID string) (account, by string) {
	a, why := accounts.Rule{Default: o.Account(), Keys: o.AccessKeyAccounts, PerKey: o.AccountPerAccessKey}.Resolve(accessKeyID)
	switch why {
	case accounts.ByKey:
		return a, "a 12-digit key is that account"
	case accounts.ByMap:
		return a, "--access-key-account"
	case accounts.ByPerKey:
		return a, "--account-per-access-key"
	}
	return a, "--default-account"
}

// Region returns the Region from AWS_REGION, AWS_DEFAULT_REGION,
// DefaultRegion, or the documented fallback, in that order.
func (o *Options) Region() string {
	if v, ok := o.Env("AWS_REGION"); ok && v != "" {
		return v
	}
	if v, ok := o.Env("AWS_DEFAULT_REGION"); ok && v != "" {
		return v
	}
	if o.DefaultRegion != "" {
		return o.DefaultRegion
	}
	return DefaultRegion
}

// Fallbacks when neither the definitions nor the options name an account
// or Region.
const (
	DefaultAccount = accounts.Default
	DefaultRegion  = "us-east-1"
)

// Str returns a pointer to s.
func Str(s string) *string { return &s }

// Int returns a pointer to n.
func Int(n int64) *int64 { return &n }

// Bool returns a pointer to b.
func Bool(b bool) *bool { return &b }
