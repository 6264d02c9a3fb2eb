package bench

import "runtime"

// Workers is one worker per core the Go scheduler may use.
func Workers() int { return runtime.GOMAXPROCS(0) }
