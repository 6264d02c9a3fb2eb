package engine

import "github.com/residentlua/residentlua/devices"

// errDecided is ready's refusal of op on a decided or poisoned session.
func errDecided(op string) error {
	return devices.Errorf(devices.KindBusy, op, "resident startup is already decided or failed")
}
