package wire

import (
	"errors"
	"testing"
	"time"
)

// TestSignIn: the console's sign-in takes a key of the credentials file
// with its secret, or temporary credentials with their secret and token,
// and refuses anything else with its reason.
func TestSignIn(t *testing.T) {
	creds, err := ParseCredentials([]byte(`users:
  - {accessKeyId: AKIDU, secretAccessKey: s3cret, account: "111111111111", arn: "arn:aws:iam::111111111111:user/path/ann",
     policies: [{Statement: [{Effect: Allow, Action: "sts:AssumeRole", Resource: "*"}]}]}
roles:
  - {arn: "arn:aws:iam::111111111111:role/r", trust: ["111111111111"]}
`))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	creds.SetClock(func() time.Time { return now })
	user, _ := creds.lookup("AKIDU")
	tmp, ok := creds.assumeRole(user, "arn:aws:iam::111111111111:role/r", "web", time.Hour, now)
	if !ok {
		t.Fatal("assumeRole refused")
	}
	c, exp, err := creds.SignIn("AKIDU", "s3cret", "")
	if err != nil || c.ARN != "arn:aws:iam::111111111111:user/path/ann" || c.Account != "111111111111" || c.UserName != "ann" || len(c.Policies) != 1 || !exp.IsZero() {
		t.Errorf("user: %+v %v %v", c, exp, err)
	}
	c, exp, err = creds.SignIn(tmp.AccessKeyID, tmp.secret, tmp.SessionToken)
	if err != nil || c.ARN != "arn:aws:sts::111111111111:assumed-role/r/web" || c.PrincipalARN != "arn:aws:iam::111111111111:role/r" || !exp.Equal(now.Add(time.Hour)) {
		t.Errorf("temporary: %+v %v %v", c, exp, err)
	}
	for _, x := range []struct {
		key, secret, token string
		want               error
	}{
		{"AKIDX", "s3cret", "", ErrUnknownAccessKey},
		{"AKIDU", "wrong", "", ErrWrongSecret},
		{"AKIDU", "", "", ErrWrongSecret},
		{"AKIDU", "s3cret", "token", ErrWrongToken},
		{tmp.AccessKeyID, tmp.secret, "", ErrWrongToken},
		{tmp.AccessKeyID, "wrong", tmp.SessionToken, ErrWrongSecret},
	} {
		if _, _, err := creds.SignIn(x.key, x.secret, x.token); !errors.Is(err, x.want) {
			t.Errorf("SignIn(%s, %s, %s): %v, want %v", x.key, x.secret, x.token, err, x.want)
		}
	}
	now = now.Add(time.Hour)
	if _, _, err := creds.SignIn(tmp.AccessKeyID, tmp.secret, tmp.SessionToken); !errors.Is(err, ErrExpiredToken) {
		t.Errorf("expired: %v", err)
	}
}
