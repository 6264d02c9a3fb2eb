package bench

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/programs/exchange"
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

// memoryRing is the event ring of the memory figure's fabric: the default size.
const memoryRing = 1 << 16

// ResidentAfterSessions measures steady-state memory growth on a simulated
// fabric. It first runs closed sessions until the fabric's event ring is full
// (the ring is bounded and then stops growing: memory it takes then is a
// fixed cost, not growth), then `first` more sessions, reads the resident
// memory, runs on until `total` sessions have run after the warm-up, and
// reads it again. warm is how many sessions the warm-up took.
func ResidentAfterSessions(first, total int) (atFirst, atTotal int64, warm int, err error) {
	f, err := devices.NewFabric(devices.Config{Mode: devices.Simulated, Seed: 1, EventCapacity: memoryRing})
	if err != nil {
		return 0, 0, 0, err
	}
	defer f.Close()
	once := func() error {
		_, _, err := lifecycle(f, exchange.Default())
		return err
	}
	for ; f.Events().Count() < memoryRing; warm++ {
		if err = once(); err != nil {
			return 0, 0, warm, err
		}
	}
	run := func(n int) error {
		for i := 0; i < n; i++ {
			if err := once(); err != nil {
				return err
			}
		}
		return nil
	}
	if err = run(first); err != nil {
		return 0, 0, warm, err
	}
	if atFirst, err = settledRSS(); err != nil {
		return 0, 0, warm, err
	}
	if err = run(total - first); err != nil {
		return 0, 0, warm, err
	}
	atTotal, err = settledRSS()
	return atFirst, atTotal, warm, err
}
