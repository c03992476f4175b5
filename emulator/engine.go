package emulator

import (
	"time"

	"github.com/extenddb/extenddb/kv"
	"github.com/rs/zerolog"
)

// Clock tells the engine the time, so tests can replay timelines.
type Clock interface {
	Now() time.Time
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

// SystemClock is the wall clock.
var SystemClock Clock = systemClock{}

// Options configures an Engine. The zero value of every field but Store is a
// documented default.
type Options struct {
	// Store holds all data. Required.
	Store kv.Store
	// Clock defaults to SystemClock.
	Clock Clock
	// Sync makes every acknowledged write durable (fsync per commit).
	Sync bool
	// TransitionDelay is how long tables and indexes stay in CREATING,
	// UPDATING and DELETING. Zero makes transitions immediate.
	TransitionDelay time.Duration
	// Logger defaults to a disabled logger.
	Logger *zerolog.Logger
}

// Engine is the DynamoDB engine. Its methods are safe for concurrent use.
type Engine struct {
	opts Options
	log  zerolog.Logger
}

// New returns an engine over opts.Store. Close the store after the engine.
func New(opts Options) (*Engine, error) {
	if opts.Clock == nil {
		opts.Clock = SystemClock
	}
	e := &Engine{opts: opts, log: zerolog.Nop()}
	if opts.Logger != nil {
		e.log = *opts.Logger
	}
	return e, nil
}

// Close stops the engine's background work. It does not close the store.
func (e *Engine) Close() error { return nil }

func (e *Engine) now() time.Time { return e.opts.Clock.Now() }
