package wire

import (
	"crypto/subtle"
	"errors"
	"strings"
	"time"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/policy"
)

// Reasons a sign-in is refused (SignIn). The console logs them; it shows
// the person signing in one text for all, as AWS's sign-in does.
var (
	ErrUnknownAccessKey = errors.New("the access key ID is not in the credentials file nor a live session's")
	ErrWrongSecret      = errors.New("the secret access key does not match")
	ErrWrongToken       = errors.New("the session token does not match (temporary credentials need theirs; long-term keys none)")
	ErrExpiredToken     = errors.New("the temporary credentials have expired")
)

// SignIn authenticates a web console sign-in: an access key ID of the
// credentials file with its secret, or temporary credentials AssumeRole
// handed out with their secret and session token, compared in constant
// time. It returns the principal as the engine's Caller (its SourceIP is
// the console's to set per request) and, for temporary credentials, when
// they expire (zero for long-term keys). It is the console's
// console.Authenticator.
func (c *Credentials) SignIn(accessKeyID, secret, sessionToken string) (*emulator.Caller, time.Time, error) {
	id, expired := c.lookup(accessKeyID)
	if id == nil {
		return nil, time.Time{}, ErrUnknownAccessKey
	}
	if subtle.ConstantTimeCompare([]byte(secret), []byte(id.secret)) != 1 {
		return nil, time.Time{}, ErrWrongSecret
	}
	if subtle.ConstantTimeCompare([]byte(sessionToken), []byte(id.SessionToken)) != 1 {
		return nil, time.Time{}, ErrWrongToken
	}
	if expired {
		return nil, time.Time{}, ErrExpiredToken
	}
	return id.caller(), id.Expires, nil
}

// caller is the engine's view of the identity, without a source address.
func (id *Identity) caller() *emulator.Caller {
	c := &emulator.Caller{Account: id.Account, ARN: id.ARN, PrincipalARN: id.ARN, Policies: id.Policies, UserID: id.UserID}
	if role := policy.RoleOfSession(id.ARN); role != "" {
		c.PrincipalARN = role
	}
	if _, user, ok := strings.Cut(id.ARN, ":user/"); ok {
		c.UserName = user[strings.LastIndexByte(user, '/')+1:]
	}
	return c
}
