package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/extenddb/extenddb/accounts"
	"github.com/extenddb/extenddb/iac"
	"github.com/extenddb/extenddb/wire"
)

func validateUsage(c *cli, w io.Writer) {
	fs, _ := newValidateFlags()
	fmt.Fprint(w, "Usage: extenddb validate [flags] PATH...\n\nLoad Terraform directories, CloudFormation/SAM templates and cdk.out\ndirectories, check every table by CreateTable's rules, and print per account\nand Region the tables that would be provisioned. Exits 1 with\nfile:line:col diagnostics when anything is wrong.\n\nFlags:\n\n")
	printFlags(w, fs)
}

// validateFlags are validate's flags: the loaders' (as serve's) and the
// account and Region flags serve resolves requests with, so a table is
// shown in the account and Region serve would provision it in.
type validateFlags struct {
	iac     iacConfig
	account string
	region  string
	keys    accessKeyAccounts
	perKey  bool
}

func newValidateFlags() (*flag.FlagSet, *validateFlags) {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	v := &validateFlags{account: wire.DefaultAccount, region: wire.DefaultRegion, keys: accessKeyAccounts{}}
	fs.StringVar(&v.account, "default-account", v.account, "12-digit `ACCOUNT` of access keys that are not 12 digits or mapped, and of tables that declare no key or account")
	fs.StringVar(&v.region, "default-region", v.region, "`REGION` of tables whose provider or stack declares none")
	registerKeyFlags(fs, v.keys, &v.perKey)
	v.iac.register(fs, false)
	return fs, v
}

func runValidate(ctx context.Context, c *cli, args []string) int {
	fs, v := newValidateFlags()
	cfg := &v.iac
	// Flags may come before, between or after the paths.
	var paths []string
	err := fs.Parse(args)
	for err == nil && fs.NArg() > 0 {
		paths = append(paths, fs.Arg(0))
		err = fs.Parse(fs.Args()[1:])
	}
	switch {
	case errors.Is(err, flag.ErrHelp):
		validateUsage(c, c.stdout)
		return 0
	case err == nil && len(paths) == 0:
		err = errors.New("give at least one PATH")
	case err == nil && !accounts.IsID(v.account):
		err = fmt.Errorf("--default-account %q: must be 12 digits", v.account)
	case err == nil && !accounts.IsRegion(v.region):
		err = fmt.Errorf("--default-region %q: must be a Region name such as us-east-1", v.region)
	case err == nil:
		err = cfg.validate()
	}
	if err != nil {
		return usageFailed(c, "validate", flagError(fs, err))
	}
	opts, err := cfg.options(accounts.Rule{Default: v.account, Keys: v.keys, PerKey: v.perKey}, v.region, c.getenv)
	if err != nil {
		fmt.Fprintf(c.stderr, "extenddb validate: %v\n", err)
		return 2
	}
	specs, err := loadAndCheck(ctx, paths, opts, printTo(c.stderr), iac.ProvisionOptions{})
	if err != nil {
		fmt.Fprintf(c.stderr, "extenddb validate: %v\n", err)
		return 1
	}
	printSpecs(c.stdout, specs)
	return 0
}
