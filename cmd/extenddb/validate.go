package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/extenddb/extenddb/iac"
	"github.com/extenddb/extenddb/wire"
)

func validateUsage(c *cli, w io.Writer) {
	fs, _, _, _ := newValidateFlags()
	fmt.Fprint(w, "Usage: extenddb validate [flags] PATH...\n\nLoad Terraform directories, CloudFormation/SAM templates and cdk.out\ndirectories, check every table by CreateTable's rules, and print per account\nand Region the tables that would be provisioned. Exits 1 with\nfile:line:col diagnostics when anything is wrong.\n\nFlags:\n\n")
	printFlags(w, fs)
}

func newValidateFlags() (*flag.FlagSet, *iacConfig, *string, *string) {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	cfg := &iacConfig{}
	account, region := wire.DefaultAccount, wire.DefaultRegion
	fs.StringVar(&account, "default-account", account, "12-digit `ACCOUNT` of tables that declare none")
	fs.StringVar(&region, "default-region", region, "`REGION` of tables whose provider or stack declares none")
	cfg.register(fs, false)
	return fs, cfg, &account, &region
}

func runValidate(ctx context.Context, c *cli, args []string) int {
	fs, cfg, account, region := newValidateFlags()
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
	case err == nil && !accountRE.MatchString(*account):
		err = fmt.Errorf("--default-account %q: must be 12 digits", *account)
	case err == nil && !regionRE.MatchString(*region):
		err = fmt.Errorf("--default-region %q: must be a Region name such as us-east-1", *region)
	case err == nil:
		err = cfg.validate()
	}
	if err != nil {
		return usageFailed(c, "validate", flagError(fs, err))
	}
	opts, err := cfg.options(*account, *region, c.getenv)
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
