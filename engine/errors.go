package engine

import "github.com/residentlua/residentlua/devices/failure"

// errDecided is ready's refusal of op on a decided or poisoned session.
func errDecided(op string) error {
	return failure.Errorf(failure.Busy, op, "resident startup is already decided or failed")
}
