// Package programs holds the device programs residentlua ships, one folder
// a program, for Go code that runs them without a checkout at hand:
// benchmarks, tests, and tools that embed residentlua. The built-in
// exchange is in exchange/ (its Go text is package exchange; its Lua text,
// a broken NPU half and its GPU half as a CUDA kernel lie beside it), a
// double-buffered stream in stream/, and the launch of a user's own kernel
// in kernel/. docs/programs.md describes each.
package programs

import "embed"

// Files are the programs' texts, by their paths under programs/:
// exchange/exchange_gpu.lua and exchange/exchange_npu.lua (the built-in
// exchange in Lua), exchange/exchange_npu_early_credit.lua (a broken NPU
// half), stream/stream_gpu.lua and stream/stream_npu.lua (a
// double-buffered stream), and exchange/exchange_gpu.cu with its PTX (the
// exchange's GPU half as a user's kernel).
//
//go:embed exchange/*.lua exchange/*.cu exchange/*.ptx stream/*.lua
var Files embed.FS
