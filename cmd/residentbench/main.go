// Command residentbench measures every performance figure of residentlua
// beside the floor the machine sets, in one run, and prints one table
// (figure, median, ratio, goal, met) in 100 columns; -wide prints every
// column (the value with its p10, p90 and n, and the baseline). See
// docs/performance.md.
//
//	go run ./cmd/residentbench [-short] [-wide] [-wait spin|hybrid|block|all] [-only GROUPS] [-repeat N] [-gpu sim|cuda] [-json FILE] [-cpuprofile FILE] [-memprofile FILE]
//
// -wait runs the real-time publication and exchange figures under that
// wait policy (devices.WaitPolicy), or under each of them with -wait all.
// -only measures the named groups of figures alone (bench.Groups), and
// -repeat N runs the table N times in a row and prints each figure's
// median run with how many runs met its goal (bench.Combine).
//
// With -gpu cuda it measures the figures of a real NVIDIA GPU as the GPU
// participant instead (docs/cuda.md); -gpu takes any backend the command
// links, and it links devices/cuda. There -wait (one policy) is how the
// simulated NPU and the host wait beside the real GPU.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"

	"github.com/residentlua/residentlua/bench"
	"github.com/residentlua/residentlua/devices"
	_ "github.com/residentlua/residentlua/devices/cuda" // registers the "cuda" backend
)

func main() {
	short := flag.Bool("short", false, "a quick run (CI runs it; no thresholds enforced)")
	wide := flag.Bool("wide", false, "print every column: each value's p10, p90 and n, and its baseline (about 200 columns)")
	jsonPath := flag.String("json", "", "also write the table as JSON to `FILE`")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile to `FILE`")
	memProfile := flag.String("memprofile", "", "write a heap profile to `FILE` at the end")
	wait := flag.String("wait", "", "wait `policy` of the real-time publication and exchange figures of the -gpu sim table (spin, hybrid, block, or all for a pair of figures under each; default hybrid), and of the simulated NPU and the host beside a real GPU (one policy; default spin where there is a core for each, else hybrid)")
	only := flag.String("only", "", "measure only these comma-separated `groups` of figures: "+strings.Join(bench.Groups(), ", ")+" (the raw round trip is always measured)")
	repeats := flag.Int("repeat", 1, "run the table `N` times, one run after another, and print each figure's median run and how many runs met its goal")
	gpu := flag.String("gpu", devices.SimBackend, "GPU `backend`: sim for the simulated GPU's table, or a real GPU's figures; this build has "+strings.Join(devices.Backends(), ", "))
	flag.Parse()
	waits, err := parseWaits(*wait)
	if err != nil {
		fmt.Fprintln(os.Stderr, "residentbench: -wait:", err)
		os.Exit(2)
	}
	measure := bench.Run
	if *gpu != devices.SimBackend {
		if err := devices.CheckBackend(*gpu); err != nil {
			fmt.Fprintln(os.Stderr, "residentbench: -gpu:", err)
			os.Exit(2)
		}
		backend := *gpu
		measure = func(o bench.Options) ([]bench.Figure, error) { return bench.RunBackend(o, backend) }
	}
	if *repeats < 1 {
		fmt.Fprintf(os.Stderr, "residentbench: -repeat: %d runs; give 1 or more\n", *repeats)
		os.Exit(2)
	}
	if *repeats > 1 {
		measure = repeated(measure, *repeats)
	}
	write := writeNarrow
	if *wide {
		write = writeWide
	}
	o := bench.Options{Short: *short, Wait: waits}
	if *only != "" {
		o.Only = strings.Split(*only, ",")
	}
	if err := run(os.Stdout, measure, write, o, *jsonPath, *cpuProfile, *memProfile); err != nil {
		fmt.Fprintln(os.Stderr, "residentbench:", err)
		os.Exit(1)
	}
}

// parseWaits reads -wait: one policy, "all" for every one, or nothing
// for each table's default.
func parseWaits(name string) ([]devices.WaitPolicy, error) {
	switch name {
	case "":
		return nil, nil
	case "all":
		return devices.WaitPolicies(), nil
	}
	w, err := devices.ParseWaitPolicy(name)
	if err != nil {
		return nil, fmt.Errorf("%q: use spin, hybrid, block or all", name)
	}
	return []devices.WaitPolicy{w}, nil
}

// repeated measures the table n times in a row and combines the runs
// (bench.Combine); an error ends it with the runs made so far.
func repeated(measure func(bench.Options) ([]bench.Figure, error), n int) func(bench.Options) ([]bench.Figure, error) {
	return func(o bench.Options) ([]bench.Figure, error) {
		var tables [][]bench.Figure
		for range n {
			figures, err := measure(o)
			if len(figures) > 0 {
				tables = append(tables, figures)
			}
			if err != nil {
				return bench.Combine(tables), err
			}
		}
		return bench.Combine(tables), nil
	}
}

// waitNames is "hybrid" or "hybrid,spin,block", or "default" for none.
func waitNames(waits []devices.WaitPolicy) string {
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
// header before its error), then the files asked for.
func run(out io.Writer, measure func(bench.Options) ([]bench.Figure, error), write func(io.Writer, []bench.Figure) error, o bench.Options, jsonPath, cpuProfile, memProfile string) error {
	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	fmt.Fprintf(out, "residentbench: %d cores (GOMAXPROCS), %d CPUs, %s/%s, short=%v, wait=%s\n", runtime.GOMAXPROCS(0), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, o.Short, waitNames(o.Wait))
	figures, err := measure(o)
	if len(figures) > 0 {
		if werr := write(out, figures); werr != nil && err == nil {
			err = werr
		}
	}
	if err != nil {
		return err
	}
	if jsonPath != "" {
		data, err := json.MarshalIndent(figures, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(jsonPath, append(data, '\n'), 0o644); err != nil {
			return err
		}
	}
	if memProfile != "" {
		f, err := os.Create(memProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		runtime.GC()
		return pprof.WriteHeapProfile(f)
	}
	return nil
}
