// Command residentbench measures every performance figure of residentlua
// beside the floor the machine sets, in one run, and prints one table
// (figure, median, ratio, goal, met) in 100 columns; -wide prints every
// column (the value with its p10, p90 and n, and the baseline). See
// docs/performance.md.
//
//	go run ./cmd/residentbench [-short] [-wide] [-wait spin|hybrid|block|all] [-only GROUPS] [-repeat N] [-gpu sim|cuda] [-json FILE] [-cpuprofile FILE] [-memprofile FILE] [-force]
//
// -wait runs the real-time publication and exchange figures under that
// wait policy (wait.Policy), or under each of them with -wait all.
// -only measures the named groups of the simulated GPU's figures alone
// (bench.Groups; a real GPU's table is measured whole), and
// -repeat N runs the table N times in a row and prints each figure's
// median run with how many runs met its goal (bench.Combine).
//
// The files of -json, -cpuprofile and -memprofile are checked before
// anything runs, and written whole or not at all (internal/resultfile):
// none may be a directory, a Lua script or another of them, and an
// existing file must look like what its option writes unless -force. A
// first Ctrl-C or SIGTERM lets the run in progress end, then prints and
// writes what the runs done measured and exits with 128 plus the signal's
// number; a second ends the command at once.
//
// With -gpu cuda it measures the figures of a real NVIDIA GPU as the GPU
// participant instead (docs/cuda.md); -gpu takes any backend the command
// links, and it links backends/cuda. There -wait (one policy) is how the
// simulated NPU and the host wait beside the real GPU.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"syscall"

	_ "github.com/residentlua/residentlua/backends/cuda" // registers the "cuda" backend
	"github.com/residentlua/residentlua/devices/backend"
	"github.com/residentlua/residentlua/devices/wait"
	"github.com/residentlua/residentlua/internal/bench"
	"github.com/residentlua/residentlua/internal/resultfile"
)

func main() {
	short := flag.Bool("short", false, "a quick run (CI runs it; no thresholds enforced)")
	wide := flag.Bool("wide", false, "print every column: each value's p10, p90 and n, and its baseline (about 200 columns)")
	jsonPath := flag.String("json", "", "also write the table as JSON to `FILE`")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile to `FILE`")
	memProfile := flag.String("memprofile", "", "write a heap profile to `FILE` at the end")
	wait := flag.String("wait", "", "wait `policy` of the real-time publication and exchange figures of the -gpu sim table (spin, hybrid, block, or all for a pair of figures under each; default hybrid), and of the simulated NPU and the host beside a real GPU (one policy; default spin where there is a core for each, else hybrid)")
	only := flag.String("only", "", "measure only these comma-separated `groups` of figures of the -gpu sim table: "+strings.Join(bench.Groups(), ", ")+" (the raw round trip is always measured)")
	repeats := flag.Int("repeat", 1, "run the table `N` times, one run after another, and print each figure's median run and how many runs met its goal")
	force := flag.Bool("force", false, "let -json, -cpuprofile and -memprofile replace an existing file that does not look like one they write")
	gpu := flag.String("gpu", backend.Sim, "GPU `backend`: sim for the simulated GPU's table, or a real GPU's figures; this build has "+strings.Join(backend.Names(), ", "))
	flag.Parse()
	waits, err := parseWaits(*wait)
	if err != nil {
		refuse("-wait: %v", err)
	}
	o := bench.Options{Short: *short, Wait: waits}
	if *only != "" {
		o.Only = strings.Split(*only, ",")
	}
	if err := o.Validate(); err != nil {
		refuse("-only: %v", err)
	}
	measure := bench.Run
	if *gpu != backend.Sim {
		switch err := backend.Check(*gpu); {
		case err != nil:
			refuse("-gpu: %v", err)
		case len(o.Only) > 0:
			refuse("-only picks groups of the simulated GPU's table; -gpu %s measures its table whole, so leave -only out", *gpu)
		case len(waits) > 1:
			refuse("-wait all: -gpu %s measures under one wait policy at a time; give spin, hybrid or block", *gpu)
		}
		backend := *gpu
		measure = func(o bench.Options) ([]bench.Figure, error) { return bench.RunBackend(o, backend) }
	}
	if *repeats < 1 {
		refuse("-repeat: %d runs; give 1 or more", *repeats)
	}
	outputs := resultfile.Checks{Outputs: []resultfile.File{
		{Option: "-json", Path: *jsonPath, Kind: resultfile.JSONArray},
		{Option: "-cpuprofile", Path: *cpuProfile, Kind: resultfile.Profile},
		{Option: "-memprofile", Path: *memProfile, Kind: resultfile.Profile},
	}, Force: *force, ForceOption: "-force"}
	if err := outputs.Check(); err != nil {
		refuse("%v", err)
	}
	stopped := stopOnSignal()
	if *repeats > 1 {
		measure = repeated(measure, *repeats, func() bool { _, ok := stopped(); return ok }, os.Stderr)
	}
	write := writeNarrow
	if *wide {
		write = writeWide
	}
	if err := run(os.Stdout, measure, write, o, *jsonPath, *cpuProfile, *memProfile); err != nil {
		fmt.Fprintln(os.Stderr, "residentbench:", err)
		os.Exit(1)
	}
	if s, ok := stopped(); ok {
		os.Exit(128 + int(s))
	}
}

// refuse reports a mistake of the command line, found before anything
// runs, and exits with status 2.
func refuse(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "residentbench: "+format+"\n", a...)
	os.Exit(2)
}

// stopOnSignal catches SIGINT and SIGTERM. The first lets the run in
// progress end, after which stopped reports it and a -repeat stops with the
// runs done; a second ends the command at once, once the result files being
// written are complete.
func stopOnSignal() (stopped func() (syscall.Signal, bool)) {
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	var first atomic.Int32
	go func() {
		s := (<-signals).(syscall.Signal)
		first.Store(int32(s))
		fmt.Fprintf(os.Stderr, "residentbench: %v: stopping after the run in progress, keeping the runs done (again to stop now)\n", s)
		resultfile.EndNow((<-signals).(syscall.Signal))
	}()
	return func() (syscall.Signal, bool) {
		s := syscall.Signal(first.Load())
		return s, s != 0
	}
}

// parseWaits reads -wait: one policy, "all" for every one, or nothing
// for each table's default.
func parseWaits(name string) ([]wait.Policy, error) {
	switch name {
	case "":
		return nil, nil
	case "all":
		return wait.Policies(), nil
	}
	w, err := wait.Parse(name)
	if err != nil {
		return nil, fmt.Errorf("%q: use spin, hybrid, block or all", name)
	}
	return []wait.Policy{w}, nil
}

// repeated measures the table n times in a row and combines the runs
// (bench.Combine), saying on progress as each run ends; an error, or
// stopped once a run has ended, ends it with the runs made so far.
func repeated(measure func(bench.Options) ([]bench.Figure, error), n int, stopped func() bool, progress io.Writer) func(bench.Options) ([]bench.Figure, error) {
	return func(o bench.Options) ([]bench.Figure, error) {
		var tables [][]bench.Figure
		for i := range n {
			figures, err := measure(o)
			if len(figures) > 0 {
				tables = append(tables, figures)
			}
			if err != nil {
				return bench.Combine(tables), err
			}
			fmt.Fprintf(progress, "residentbench: run %d of %d done\n", i+1, n)
			if stopped() {
				break
			}
		}
		return bench.Combine(tables), nil
	}
}

// waitNames is "hybrid" or "hybrid,spin,block", or "default" for none.
func waitNames(waits []wait.Policy) string {
	if len(waits) == 0 {
		return "default"
	}
	names := make([]string, len(waits))
	for i, w := range waits {
		names[i] = w.String()
	}
	return strings.Join(names, ",")
}

// run measures the figures and writes their table to out (none when no
// figure was measured, so a backend that cannot open leaves no empty
// header before its error), then the files asked for: -json with whatever
// was measured, even when a later run failed.
func run(out io.Writer, measure func(bench.Options) ([]bench.Figure, error), write func(io.Writer, []bench.Figure) error, o bench.Options, jsonPath, cpuProfile, memProfile string) error {
	var cpu *resultfile.Output
	if cpuProfile != "" {
		var err error
		if cpu, err = resultfile.Create(cpuProfile); err != nil {
			return fmt.Errorf("-cpuprofile: %w", err)
		}
		if err := pprof.StartCPUProfile(cpu); err != nil {
			cpu.Discard()
			return fmt.Errorf("-cpuprofile: %w", err)
		}
	}
	fmt.Fprintf(out, "residentbench: %d cores (GOMAXPROCS), %d CPUs, %s/%s, short=%v, wait=%s\n", runtime.GOMAXPROCS(0), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, o.Short, waitNames(o.Wait))
	figures, err := measure(o)
	release := resultfile.Hold() // a second signal waits for the files
	defer release()
	keep := func(e error) {
		if err == nil {
			err = e
		}
	}
	if cpu != nil {
		pprof.StopCPUProfile()
		if e := cpu.Commit(); e != nil {
			keep(fmt.Errorf("-cpuprofile: %w", e))
		}
	}
	if len(figures) > 0 {
		keep(write(out, figures))
		if jsonPath != "" {
			keep(writeJSON(jsonPath, figures))
		}
	}
	if memProfile != "" {
		keep(writeHeapProfile(memProfile))
	}
	return err
}

// writeJSON writes the figures to path as a JSON array (-json).
func writeJSON(path string, figures []bench.Figure) error {
	data, err := json.MarshalIndent(figures, "", "  ")
	if err != nil {
		return err
	}
	if err := resultfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(append(data, '\n'))
		return err
	}); err != nil {
		return fmt.Errorf("-json: %w", err)
	}
	return nil
}

// writeHeapProfile writes the heap profile to path (-memprofile).
func writeHeapProfile(path string) error {
	runtime.GC()
	if err := resultfile.Write(path, pprof.WriteHeapProfile); err != nil {
		return fmt.Errorf("-memprofile: %w", err)
	}
	return nil
}
