package bench

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"residentlua/devices"
)

// residentBytes reads the process's resident set size from /proc.
func residentBytes() (int64, error) {
	file, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/self/status")
}

// settledRSS collects garbage, returns freed memory to the system, and reads RSS.
func settledRSS() (int64, error) {
	runtime.GC()
	debug.FreeOSMemory()
	return residentBytes()
}

// ResidentAfterSessions runs `first` closed sessions on a simulated fabric,
// reads the resident memory, runs up to `total`, and reads it again.
func ResidentAfterSessions(first, total int) (atFirst, atTotal int64, err error) {
	f, err := devices.NewFabric(devices.Config{Mode: devices.Simulated, Seed: 1})
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	run := func(n int) error {
		for i := 0; i < n; i++ {
			if _, _, err := lifecycle(f, devices.DefaultExchange()); err != nil {
				return err
			}
		}
		return nil
	}
	if err = run(first); err != nil {
		return 0, 0, err
	}
	if atFirst, err = settledRSS(); err != nil {
		return 0, 0, err
	}
	if err = run(total - first); err != nil {
		return 0, 0, err
	}
	atTotal, err = settledRSS()
	return atFirst, atTotal, err
}
