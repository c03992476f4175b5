package wire

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/extenddb/extenddb/policy"
	"go.yaml.in/yaml/v3"
)

// Credentials are what --auth=sigv4 knows: the long-term keys of the
// credentials file (--credentials), the roles they may assume, and the
// temporary credentials STS AssumeRole handed out. Temporary credentials
// live in memory only: a restart forgets them, as if they had expired.
type Credentials struct {
	users map[string]*Identity // access key ID → identity
	roles map[string]*Role     // role ARN → role

	mu       sync.RWMutex
	sessions map[string]*Identity // temporary access key ID → identity

	// signers holds one SDK signer per access key: the signer caches the
	// derived signing key per (secret, date, Region, service), so a client
	// that keeps signing with the same key derives it once a day.
	signers sync.Map // access key ID → *v4.Signer

	clock func() time.Time
}

// SetClock sets the clock that expires temporary credentials (tests move
// it forward; signatures are still checked against the real time).
func (c *Credentials) SetClock(now func() time.Time) { c.clock = now }

func (c *Credentials) now() time.Time {
	if c.clock != nil {
		return c.clock()
	}
	return time.Now()
}

// Identity is an authenticated principal.
type Identity struct {
	AccessKeyID string
	secret      string
	// Account is the principal's account: its requests act there.
	Account string
	// ARN is the principal: arn:aws:iam::ACCT:user/NAME, :root, or
	// arn:aws:sts::ACCT:assumed-role/ROLE/SESSION.
	ARN string
	// UserID is STS's UserId of the principal.
	UserID string
	// Policies are its identity-based policies (for an assumed role, the
	// role's).
	Policies []*policy.Document
	// SessionToken and Expires are set for temporary credentials.
	SessionToken string
	Expires      time.Time
}

// Role is an IAM role that AssumeRole can hand out.
type Role struct {
	ARN     string
	Account string
	Name    string
	// Trust lists the principals that may assume the role: principal ARNs,
	// account IDs or account root ARNs (any principal of that account whose
	// identity policy allows sts:AssumeRole), or "*".
	Trust              []string
	Policies           []*policy.Document
	MaxSessionDuration time.Duration
}

// credentialsFile is the --credentials file (JSON or YAML).
type credentialsFile struct {
	Users []struct {
		AccessKeyID     string `yaml:"accessKeyId" json:"accessKeyId"`
		SecretAccessKey string `yaml:"secretAccessKey" json:"secretAccessKey"`
		Account         string `yaml:"account" json:"account"`
		ARN             string `yaml:"arn" json:"arn"`
		Policies        []any  `yaml:"policies" json:"policies"`
	} `yaml:"users" json:"users"`
	Roles []struct {
		ARN                string   `yaml:"arn" json:"arn"`
		Trust              []string `yaml:"trust" json:"trust"`
		Policies           []any    `yaml:"policies" json:"policies"`
		MaxSessionDuration int      `yaml:"maxSessionDuration" json:"maxSessionDuration"`
	} `yaml:"roles" json:"roles"`
}

// LoadCredentials reads a credentials file.
func LoadCredentials(path string) (*Credentials, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("credentials: %w", err)
	}
	c, err := ParseCredentials(data)
	if err != nil {
		return nil, fmt.Errorf("credentials %s: %w", path, err)
	}
	return c, nil
}

// ParseCredentials parses a credentials file's content (JSON is YAML too).
func ParseCredentials(data []byte) (*Credentials, error) {
	var f credentialsFile
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, err
	}
	c := &Credentials{users: map[string]*Identity{}, roles: map[string]*Role{}, sessions: map[string]*Identity{}}
	for i, u := range f.Users {
		if !validToken(u.AccessKeyID) || u.SecretAccessKey == "" {
			return nil, fmt.Errorf("users[%d]: accessKeyId (letters, digits, - and _) and secretAccessKey are required", i)
		}
		if _, dup := c.users[u.AccessKeyID]; dup {
			return nil, fmt.Errorf("users[%d]: access key %s listed twice", i, u.AccessKeyID)
		}
		acct := u.Account
		if acct == "" && strings.HasPrefix(u.ARN, "arn:") {
			acct = arnAccount(u.ARN)
		}
		if !isAccountID(acct) {
			return nil, fmt.Errorf("users[%d]: account must be a 12-digit account ID", i)
		}
		arn := u.ARN
		if arn == "" {
			arn = "arn:aws:iam::" + acct + ":root"
		}
		if arnAccount(arn) != acct {
			return nil, fmt.Errorf("users[%d]: arn %q is not in account %s", i, arn, acct)
		}
		docs, err := parsePolicies(u.Policies)
		if err != nil {
			return nil, fmt.Errorf("users[%d]: %w", i, err)
		}
		c.users[u.AccessKeyID] = &Identity{AccessKeyID: u.AccessKeyID, secret: u.SecretAccessKey, Account: acct, ARN: arn,
			UserID: principalID("AIDA", arn), Policies: docs}
	}
	for i, r := range f.Roles {
		acct := arnAccount(r.ARN)
		name, ok := strings.CutPrefix(arnResource(r.ARN), "role/")
		if !strings.HasPrefix(r.ARN, "arn:aws:iam::") || !isAccountID(acct) || !ok || name == "" {
			return nil, fmt.Errorf("roles[%d]: arn must be arn:aws:iam::ACCOUNT:role/NAME", i)
		}
		if j := strings.LastIndexByte(name, '/'); j >= 0 { // a role path
			name = name[j+1:]
		}
		docs, err := parsePolicies(r.Policies)
		if err != nil {
			return nil, fmt.Errorf("roles[%d]: %w", i, err)
		}
		maxDur := time.Duration(r.MaxSessionDuration) * time.Second
		if r.MaxSessionDuration == 0 {
			maxDur = time.Hour
		}
		if maxDur < time.Hour || maxDur > 12*time.Hour {
			return nil, fmt.Errorf("roles[%d]: maxSessionDuration must be 3600 to 43200 seconds", i)
		}
		c.roles[r.ARN] = &Role{ARN: r.ARN, Account: acct, Name: name, Trust: r.Trust, Policies: docs, MaxSessionDuration: maxDur}
	}
	return c, nil
}

// parsePolicies reads inline identity policies, each a JSON string or a
// document written in place.
func parsePolicies(list []any) ([]*policy.Document, error) {
	var docs []*policy.Document
	for j, p := range list {
		text, ok := p.(string)
		if !ok {
			b, err := json.Marshal(p)
			if err != nil {
				return nil, fmt.Errorf("policies[%d]: %w", j, err)
			}
			text = string(b)
		}
		d, err := policy.ParseIdentity(text)
		if err != nil {
			return nil, fmt.Errorf("policies[%d]: %w", j, err)
		}
		docs = append(docs, d)
	}
	return docs, nil
}

// arnAccount is the account field of an ARN ("" if s is no ARN).
func arnAccount(s string) string {
	parts := strings.SplitN(s, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" {
		return ""
	}
	return parts[4]
}

func arnResource(s string) string {
	parts := strings.SplitN(s, ":", 6)
	if len(parts) != 6 {
		return ""
	}
	return parts[5]
}

// principalID is a stable IAM-style unique ID (AIDA… for users, AROA… for
// roles) derived from the principal's ARN.
func principalID(prefix, arn string) string {
	sum := sha256.Sum256([]byte(arn))
	return prefix + encodeUpper(sum[:], 17)
}

const upperAlnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

func encodeUpper(b []byte, n int) string {
	out := make([]byte, n)
	for i := range out {
		out[i] = upperAlnum[int(b[i%len(b)])%len(upperAlnum)]
	}
	return string(out)
}

func randomString(n int, alphabet string) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

// KeyAccount is the account of a long-term access key of the credentials
// file: under --auth=sigv4 the account every request signed with it acts
// in. ok is false for a key the file does not list, which the server
// refuses (`serve --load` resolves Terraform providers' keys with it).
func (c *Credentials) KeyAccount(accessKeyID string) (account string, ok bool) {
	if u := c.users[accessKeyID]; u != nil {
		return u.Account, true
	}
	return "", false
}

// lookup finds the identity of an access key at now. expired reports
// temporary credentials past their expiry.
func (c *Credentials) lookup(accessKeyID string) (id *Identity, expired bool) {
	now := c.now()
	if u := c.users[accessKeyID]; u != nil {
		return u, false
	}
	c.mu.RLock()
	s := c.sessions[accessKeyID]
	c.mu.RUnlock()
	if s == nil {
		return nil, false
	}
	return s, !now.Before(s.Expires)
}

// signer returns the signer of an access key (its key cache with it).
func (c *Credentials) signer(accessKeyID string) *v4.Signer {
	if s, ok := c.signers.Load(accessKeyID); ok {
		return s.(*v4.Signer)
	}
	s, _ := c.signers.LoadOrStore(accessKeyID, v4.NewSigner())
	return s.(*v4.Signer)
}

func (id *Identity) awsCredentials() aws.Credentials {
	return aws.Credentials{AccessKeyID: id.AccessKeyID, SecretAccessKey: id.secret, SessionToken: id.SessionToken}
}

// Durations AssumeRole accepts.
const (
	minSessionDuration     = 15 * time.Minute
	defaultSessionDuration = time.Hour
)

// assumeRole hands caller temporary credentials of role for d. It checks
// the role's trust and, for a principal not named in it by ARN (its account
// named, or another account's), the caller's identity policies, as IAM
// does. The caller reports refusals with STS's AccessDenied.
func (c *Credentials) assumeRole(caller *Identity, roleARN, sessionName string, d time.Duration, now time.Time) (*Identity, bool) {
	role := c.roles[roleARN]
	if role == nil {
		return nil, false
	}
	named, trusted := false, false
	for _, p := range role.Trust {
		switch {
		case p == caller.ARN:
			named, trusted = true, true
		case p == "*" || p == caller.Account || p == "arn:aws:iam::"+caller.Account+":root":
			trusted = true
		}
	}
	if !trusted {
		return nil, false
	}
	if !named || caller.Account != role.Account {
		req := policy.Request{Action: "sts:AssumeRole", Resource: role.ARN, Account: caller.Account, Principal: caller.ARN}
		if policy.Evaluate(req, caller.Policies, nil, "").Decision != policy.Allow {
			return nil, false
		}
	}
	arn := "arn:aws:sts::" + role.Account + ":assumed-role/" + role.Name + "/" + sessionName
	s := &Identity{
		AccessKeyID:  "ASIA" + randomString(16, upperAlnum),
		secret:       randomString(40, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"),
		Account:      role.Account,
		ARN:          arn,
		UserID:       principalID("AROA", role.ARN) + ":" + sessionName,
		Policies:     role.Policies,
		SessionToken: "IQoJb3JpZ2luX2VjE" + randomString(160, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"),
		Expires:      now.Add(d).Truncate(time.Second),
	}
	c.mu.Lock()
	// Forget sessions expired for a day: a client still using one gets
	// "invalid" rather than "expired", as STS tokens eventually do.
	for k, v := range c.sessions {
		if now.Sub(v.Expires) > 24*time.Hour {
			delete(c.sessions, k)
			c.signers.Delete(k)
		}
	}
	c.sessions[s.AccessKeyID] = s
	c.mu.Unlock()
	return s, true
}

// forget drops temporary credentials.
func (c *Credentials) forget(accessKeyID string) {
	c.mu.Lock()
	delete(c.sessions, accessKeyID)
	c.mu.Unlock()
	c.signers.Delete(accessKeyID)
}
