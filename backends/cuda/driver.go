package cuda

import (
	"fmt"
	"runtime"

	"github.com/ebitengine/purego"
)

// driver is the part of the CUDA driver API (libcuda.so.1) the backend uses,
// loaded with purego, so the default build needs no cgo. Every argument is
// an integer or the address of memory outside the Go heap (a mapped scratch
// region or pinned host memory): no Go pointer is ever passed.
type driver struct {
	lib uintptr
	fn  map[string]uintptr
}

// symbols lists the entry points, by their versioned names in libcuda.
var symbols = []string{
	"cuInit", "cuDeviceGetCount", "cuDeviceGet", "cuDeviceGetName", "cuDeviceGetAttribute",
	"cuCtxCreate_v2", "cuCtxDestroy_v2", "cuCtxSetCurrent",
	"cuMemHostAlloc", "cuMemFreeHost", "cuMemHostGetDevicePointer_v2",
	"cuModuleLoadData", "cuModuleUnload", "cuModuleGetFunction",
	"cuStreamCreate", "cuStreamDestroy_v2", "cuStreamQuery", "cuLaunchKernel",
}

// libraryName is the driver library, found through the loader's path.
const libraryName = "libcuda.so.1"

// loadDriver opens the driver library name and resolves every symbol.
func loadDriver(name string) (*driver, error) {
	// dlerror is per thread: stay on one between dlopen and reading it.
	runtime.LockOSThread()
	lib, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	runtime.UnlockOSThread()
	if err != nil {
		why := ""
		if msg := err.Error(); msg != "" {
			why = " (" + msg + ")"
		}
		return nil, fmt.Errorf("%s was not found%s; the CUDA backend needs the NVIDIA driver installed", name, why)
	}
	d := &driver{lib: lib, fn: map[string]uintptr{}}
	for _, symbol := range symbols {
		p, err := purego.Dlsym(lib, symbol)
		if err != nil {
			_ = purego.Dlclose(lib)
			return nil, fmt.Errorf("%s has no %s (%w); the driver is older than CUDA 12", name, symbol, err)
		}
		d.fn[symbol] = p
	}
	return d, nil
}

// call runs a driver entry point and turns its CUresult into an error.
func (d *driver) call(name string, args ...uintptr) error {
	r, _, _ := purego.SyscallN(d.fn[name], args...)
	return result(name, r)
}

// status runs a driver entry point and returns its raw CUresult.
func (d *driver) status(name string, args ...uintptr) uintptr {
	r, _, _ := purego.SyscallN(d.fn[name], args...)
	return r
}

// CUresult values the backend tells apart.
const (
	cudaSuccess     = 0
	cudaErrNoDevice = 100
	cudaErrNotReady = 600
)

// resultNames names the CUresult codes a user is likely to meet.
var resultNames = map[uintptr]string{
	1: "CUDA_ERROR_INVALID_VALUE", 2: "CUDA_ERROR_OUT_OF_MEMORY", 3: "CUDA_ERROR_NOT_INITIALIZED",
	4: "CUDA_ERROR_DEINITIALIZED", 34: "CUDA_ERROR_STUB_LIBRARY", 46: "CUDA_ERROR_DEVICE_UNAVAILABLE",
	100: "CUDA_ERROR_NO_DEVICE", 101: "CUDA_ERROR_INVALID_DEVICE", 200: "CUDA_ERROR_INVALID_IMAGE",
	201: "CUDA_ERROR_INVALID_CONTEXT", 209: "CUDA_ERROR_NO_BINARY_FOR_GPU", 218: "CUDA_ERROR_INVALID_PTX",
	222: "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", 400: "CUDA_ERROR_INVALID_HANDLE", 500: "CUDA_ERROR_NOT_FOUND",
	600: "CUDA_ERROR_NOT_READY", 700: "CUDA_ERROR_ILLEGAL_ADDRESS", 701: "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
	702: "CUDA_ERROR_LAUNCH_TIMEOUT", 719: "CUDA_ERROR_LAUNCH_FAILED", 801: "CUDA_ERROR_NOT_SUPPORTED",
	999: "CUDA_ERROR_UNKNOWN",
}

// resultError is a failed driver call.
type resultError struct {
	call string
	code uintptr
}

// Error names the call and the CUresult, by name where it is known.
func (e *resultError) Error() string {
	name := resultNames[e.code]
	if name == "" {
		name = "CUresult"
	}
	return fmt.Sprintf("%s failed: %s (%d)", e.call, name, e.code)
}

func result(call string, code uintptr) error {
	if code == cudaSuccess {
		return nil
	}
	return &resultError{call: call, code: code}
}
