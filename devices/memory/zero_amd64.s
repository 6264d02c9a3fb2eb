#include "textflag.h"

// func zeroNonTemporal(p unsafe.Pointer, lines int)
//
// Stores zeros into lines whole cache lines from p (line-aligned) with
// non-temporal stores (MOVNTI), then fences them (SFENCE): the zeros are
// ordered before every later store of this thread, as plain stores are.
TEXT ·zeroNonTemporal(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), DI
	MOVQ lines+8(FP), CX
	XORQ AX, AX
	TESTQ CX, CX
	JLE done
loop:
	MOVNTIQ AX, 0(DI)
	MOVNTIQ AX, 8(DI)
	MOVNTIQ AX, 16(DI)
	MOVNTIQ AX, 24(DI)
	MOVNTIQ AX, 32(DI)
	MOVNTIQ AX, 40(DI)
	MOVNTIQ AX, 48(DI)
	MOVNTIQ AX, 56(DI)
	ADDQ $64, DI
	DECQ CX
	JNZ loop
done:
	SFENCE
	RET
