package main

import (
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// emptySHA256 is the SHA-256 of an empty body, which every control
// request has.
const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// adminSigner signs the requests `extenddb throttle` and `extenddb top`
// send to a server's controls (/_extenddb/…) with SigV4, as a server
// under --auth=sigv4 requires, with the environment's credentials
// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN). A nil
// signer, where the environment holds no key, sends requests unsigned,
// which a server with --auth=off serves.
type adminSigner struct {
	creds  aws.Credentials
	region string
}

// newAdminSigner is the environment's signer for region (the command's
// --region, else AWS_REGION, AWS_DEFAULT_REGION, us-east-1), or nil.
func newAdminSigner(getenv func(string) string, region string) *adminSigner {
	key, secret := getenv("AWS_ACCESS_KEY_ID"), getenv("AWS_SECRET_ACCESS_KEY")
	if key == "" || secret == "" {
		return nil
	}
	for _, r := range []string{region, getenv("AWS_REGION"), getenv("AWS_DEFAULT_REGION"), "us-east-1"} {
		if r != "" {
			region = r
			break
		}
	}
	return &adminSigner{creds: aws.Credentials{AccessKeyID: key, SecretAccessKey: secret, SessionToken: getenv("AWS_SESSION_TOKEN")}, region: region}
}

// do signs req (when s is not nil) and sends it.
func (s *adminSigner) do(req *http.Request) (*http.Response, error) {
	if s != nil {
		req.Header.Set("X-Amz-Content-Sha256", emptySHA256)
		if err := v4.NewSigner().SignHTTP(req.Context(), s.creds, req, emptySHA256, "dynamodb", s.region, time.Now()); err != nil {
			return nil, err
		}
	}
	return http.DefaultClient.Do(req)
}
