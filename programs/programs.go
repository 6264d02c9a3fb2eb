// Package programs holds the device programs residentlua ships, written in
// Lua (and one as a CUDA kernel), for Go code that runs them without a
// checkout at hand: benchmarks, tests, and tools that embed residentlua.
// docs/programs.md describes each.
package programs

import "embed"

// Files are the programs: exchange_gpu.lua and exchange_npu.lua (the
// built-in exchange in Lua), exchange_npu_early_credit.lua (a broken NPU
// half), stream_gpu.lua and stream_npu.lua (a double-buffered stream),
// and exchange_gpu.cu with its PTX (the exchange's GPU half as a kernel).
//
//go:embed *.lua *.cu *.ptx
var Files embed.FS
