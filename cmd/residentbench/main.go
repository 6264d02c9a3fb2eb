// Command residentbench measures every performance figure of residentlua
// beside the floor the machine sets, in one run, and prints one table
// (figure, value, baseline, ratio, goal, met). See docs/performance.md.
//
//	go run ./cmd/residentbench [-short] [-gpu sim|cuda] [-json FILE] [-cpuprofile FILE] [-memprofile FILE]
//
// With -gpu cuda it measures the figures of a real NVIDIA GPU as the GPU
// participant instead (docs/cuda.md); -gpu takes any backend the command
// links, and it links devices/cuda.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"text/tabwriter"

	"github.com/residentlua/residentlua/bench"
	"github.com/residentlua/residentlua/devices"
	_ "github.com/residentlua/residentlua/devices/cuda" // registers the "cuda" backend
)

func main() {
	short := flag.Bool("short", false, "a quick run (CI runs it; no thresholds enforced)")
	jsonPath := flag.String("json", "", "also write the table as JSON to `FILE`")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile to `FILE`")
	memProfile := flag.String("memprofile", "", "write a heap profile to `FILE` at the end")
	gpu := flag.String("gpu", devices.SimBackend, "GPU `backend`: sim for the simulated GPU's table, or a real GPU's figures; this build has "+strings.Join(devices.Backends(), ", "))
	flag.Parse()
	measure := bench.Run
	if *gpu != devices.SimBackend {
		if err := devices.CheckBackend(*gpu); err != nil {
			fmt.Fprintln(os.Stderr, "residentbench: -gpu:", err)
			os.Exit(2)
		}
		backend := *gpu
		measure = func(o bench.Options) ([]bench.Figure, error) { return bench.RunBackend(o, backend) }
	}
	if err := run(measure, *short, *jsonPath, *cpuProfile, *memProfile); err != nil {
		fmt.Fprintln(os.Stderr, "residentbench:", err)
		os.Exit(1)
	}
}

func run(measure func(bench.Options) ([]bench.Figure, error), short bool, jsonPath, cpuProfile, memProfile string) error {
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
	fmt.Printf("residentbench: %d cores (GOMAXPROCS), %s/%s, short=%v\n", runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, short)
	figures, err := measure(bench.Options{Short: short})
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "figure\tvalue\tbaseline (same run)\tratio\tgoal\tmet")
	for _, f := range figures {
		row := f.Row()
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", row[0], row[1], row[2], row[3], row[4], row[5])
	}
	w.Flush()
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
