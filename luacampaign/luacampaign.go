// Package luacampaign runs a campaign's trials from a Lua trial script: a
// script that defines function trial(t), which package campaign calls once
// for every seed, each worker in a Lua state of its own with the module
// resident open (package luaapi) on a simulated fabric of the trial's
// seed. It is what residentlua campaign SCRIPT runs; docs/campaigns.md
// says what a trial script may do.
//
//	sum, err := campaign.Run(ctx, campaign.Config{
//		Trials:  1000,
//		Runners: luacampaign.Script("trial.lua", luacampaign.Options{}),
//	})
//
// It lives beside the Lua module rather than in package campaign, so that
// a Go program that runs campaigns of its own Go trials links neither the
// Lua interpreter nor the module.
package luacampaign

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"

	"github.com/residentlua/residentlua/campaign"
	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/luaapi"
)

// Options are what a script's trials print to and report their fabrics to.
type Options struct {
	// Stdout receives what the script prints; nil discards it.
	Stdout io.Writer
	// OnFabric, when set, is called with every fabric a trial makes,
	// before the trial uses it (a replay's trace).
	OnFabric func(*devices.Fabric)
	// Args are the script's named arguments (the command's --arg k=v):
	// each runner's state sees the global arg as a script does (arg[0]
	// the script's path, the words after, arg[-1] "campaign"), and each
	// trial reads their
	// values as t.args. The summary records the words, and the replay
	// commands of its failures give them again.
	Args luaapi.ScriptArgs
}

// Script is the trial script at path ("-" for standard input) as a
// campaign's trials. The script is read once, when the first runner is
// made, whatever the number of workers; each runner loads it into a Lua
// state of its own. The summary names the trials by path and records the
// SHA-256 of the script's bytes and of its trial_fabric.
func Script(path string, opts Options) campaign.Runners {
	if opts.Stdout == nil {
		opts.Stdout = io.Discard
	}
	return &scriptRunners{path: path, opts: opts}
}

// scriptRunners makes the runners of a trial script: Lua states with the
// script loaded.
type scriptRunners struct {
	path string
	opts Options
	read sync.Once
	src  *script
	err  error // why the script could not be read
	mu   sync.Mutex
	// fabricDigest is the digest of the first runner's trial_fabric,
	// which every other runner's must equal.
	fabricDigest string
	made         bool
	// files holds the digest of each file the runners' states read a
	// program or kernel from, by path.
	files map[string]string
}

// readFile records the digest of a file a runner's state read.
func (s *scriptRunners) readFile(path string, content []byte) {
	d := digest(content)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.files == nil {
		s.files = map[string]string{}
	}
	if _, ok := s.files[path]; !ok {
		s.files[path] = d
	}
}

// script reads the script, once.
func (s *scriptRunners) script() (*script, error) {
	s.read.Do(func() {
		s.src, s.err = readScript(s.path)
		if s.err != nil {
			s.err = fmt.Errorf("campaign: %w", s.err)
		}
	})
	return s.src, s.err
}

// NewRunner loads the script into a Lua state of its own. Its trial_fabric
// must come out as every other runner's did: one that depends on the time
// or the environment would make the trials of different workers differ.
func (s *scriptRunners) NewRunner(ctx context.Context, seed uint64) (campaign.Runner, error) {
	src, err := s.script()
	if err != nil {
		return nil, err
	}
	r, err := newLuaRunner(ctx, seed, src, s.opts, s.readFile)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.made {
		s.made, s.fabricDigest = true, r.optsDigest
	} else if r.optsDigest != s.fabricDigest {
		r.Close()
		return nil, errors.New("campaign: the script's trial_fabric came out differently in two workers' Lua states: it must follow from the script alone (not the time, the environment or a file)")
	}
	return r, nil
}

// Describe names the trials by the script's path, with the digests of its
// bytes, of its trial_fabric (none when no runner was made) and of each
// file its states read a program or kernel from.
func (s *scriptRunners) Describe(sum *campaign.Summary) error {
	src, err := s.script()
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sum.Script, sum.ScriptSHA256, sum.TrialFabricSHA256 = s.path, src.digest, s.fabricDigest
	sum.FilesSHA256 = maps.Clone(s.files)
	sum.Args = slices.Clone(s.opts.Args.Words)
	return nil
}
