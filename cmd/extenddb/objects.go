package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/extenddb/extenddb/objstore"
	"github.com/extenddb/extenddb/objstore/s3store"
	"github.com/rs/zerolog"
)

// openObjects returns the S3 stand-in exports and imports use: the
// --s3-endpoint server, else the --s3-dir folder (default DATA-DIR/s3, or
// a temporary folder removed by cleanup with --in-memory).
func openObjects(cfg serveConfig, log zerolog.Logger) (objstore.Store, func(), error) {
	nothing := func() {}
	if cfg.s3Endpoint != "" {
		s, err := s3store.New(s3store.Options{Endpoint: cfg.s3Endpoint, Region: cfg.defaultRegion,
			AccessKeyID: os.Getenv("AWS_ACCESS_KEY_ID"), SecretAccessKey: os.Getenv("AWS_SECRET_ACCESS_KEY")})
		if err != nil {
			return nil, nil, err
		}
		log.Info().Str("s3_endpoint", cfg.s3Endpoint).Msg("exports and imports use an S3 endpoint")
		return s, nothing, nil
	}
	dir, cleanup := cfg.s3Dir, nothing
	switch {
	case dir != "":
	case cfg.inMemory:
		tmp, err := os.MkdirTemp("", "extenddb-s3-")
		if err != nil {
			return nil, nil, fmt.Errorf("creating the S3 folder: %w", err)
		}
		dir, cleanup = tmp, func() { _ = os.RemoveAll(tmp) }
	default:
		dir = filepath.Join(cfg.dataDir, "s3")
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, nil, fmt.Errorf("creating the S3 folder: %w", err)
	}
	log.Debug().Str("s3_dir", dir).Msg("exports and imports use a folder per bucket")
	return objstore.Dir{Root: dir}, cleanup, nil
}
