// Package mallocarenas keeps the C library's malloc to one arena in a
// process whose threads are started by C (cgo, or purego's stand-in for
// it, which the CUDA backend brings in). glibc gives each thread that
// frees memory an arena of its own, up to eight per core, and reserves 64
// MiB of address space for each: the thread starter frees a small block
// in every new thread, so each of the Go runtime's threads costs 64 MiB of
// address space that nothing uses. Under a limit on the address space
// (ulimit -v) that is room the Go heap no longer has: the seven threads of
// an idle residentlua took 448 MiB of its 1.8 GB. Importing the package
// sets glibc's arena limit to one (mallopt M_ARENA_MAX) as the program's
// packages are initialised, before most of its threads exist; the three or
// four the runtime started before keep the arenas they have (the idle
// command is then about 1.5 GB, of which Go's own reservations are 1.1 GB). It lives
// in the commands' reach rather than in a library because it changes a
// setting of the whole process.
package mallocarenas

import "github.com/ebitengine/purego"

// mArenaMax is glibc's M_ARENA_MAX option of mallopt.
var mArenaMax = -8

// set tells whether the limit was set: false where the C library has no
// mallopt (not glibc) or no C library is loaded.
var set = func() bool {
	fn, err := purego.Dlsym(purego.RTLD_DEFAULT, "mallopt")
	if err != nil || fn == 0 {
		return false
	}
	ok, _, _ := purego.SyscallN(fn, uintptr(mArenaMax), 1)
	return ok == 1
}()
