package main

import (
	"errors"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/internal/resultfile"
	"github.com/residentlua/residentlua/trace"
)

// eventsFile is --events FILE: every session of every fabric the run
// makes, written as a trace (docs/traces.md) into a temporary file beside
// FILE that write renames into place at the end of the run.
type eventsFile struct {
	out *resultfile.Output
	rec *trace.Recorder
}

// newEventsFile opens path's temporary file.
func newEventsFile(path string) (*eventsFile, error) {
	out, err := resultfile.Create(path)
	if err != nil {
		return nil, err
	}
	return &eventsFile{out: out, rec: trace.NewRecorder(out)}, nil
}

// attach records f's sessions too.
func (e *eventsFile) attach(f *devices.Fabric) { e.rec.Attach(f) }

// hook is attach, or nil without --events.
func (e *eventsFile) hook() func(*devices.Fabric) {
	if e == nil {
		return nil
	}
	return e.attach
}

// write completes the file.
func (e *eventsFile) write() error {
	err := e.rec.Close()
	return errors.Join(err, e.out.Commit())
}

// chainFabricHooks is one hook calling each non-nil hook in order.
func chainFabricHooks(hooks ...func(*devices.Fabric)) func(*devices.Fabric) {
	return func(f *devices.Fabric) {
		for _, h := range hooks {
			if h != nil {
				h(f)
			}
		}
	}
}
