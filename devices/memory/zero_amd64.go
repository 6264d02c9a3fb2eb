package memory

import "unsafe"

// zeroEvicting zeroes b, whole lines from a line boundary, with
// non-temporal stores: the zeros go to memory, and no cache of this core
// keeps the lines (zero_amd64.s).
func zeroEvicting(b []byte) {
	zeroNonTemporal(unsafe.Pointer(unsafe.SliceData(b)), len(b)/LineBytes)
}

// zeroNonTemporal stores zeros into the lines whole cache lines from p.
//
//go:noescape
func zeroNonTemporal(p unsafe.Pointer, lines int)
