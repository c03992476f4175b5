package terraform_test

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	code := m.Run()
	stopProxy()
	os.Exit(code)
}
