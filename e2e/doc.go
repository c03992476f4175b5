// Package e2e holds black-box tests: the real aws-sdk-go-v2 client against an
// in-process server (internal/testserver), and the built extenddb binary run
// as a user would (signals, flags, the AWS CLI, restarts). It has no non-test
// code.
package e2e
