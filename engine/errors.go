package engine

import "github.com/residentlua/residentlua/devices"

// Error is a protocol or device error with a kind, the operation and a message.
type Error = devices.Error

// The kinds of error, for errors.Is: errors.Is(err, ErrBusy) matches
// every Busy error.
const (
	// ErrUnsupported: the devices or memory cannot host a resident session.
	ErrUnsupported = devices.KindUnsupported
	// ErrBusy: the operation is not allowed in the session's state.
	ErrBusy = devices.KindBusy
	// ErrDevice: a device rejected a dispatch or failed.
	ErrDevice = devices.KindDevice
	// ErrPublish: publishing the decision failed; the session is poisoned.
	ErrPublish = devices.KindPublish
	// ErrBudget: the memory budget is exhausted.
	ErrBudget = devices.KindBudget
	// ErrInvalid: an argument was bad.
	ErrInvalid = devices.KindInvalid
	// ErrStale: the session or startup line was made before its fabric
	// was renewed (devices.Fabric.Renew); the operation did nothing.
	ErrStale = devices.KindStale
)

// errDecided is ready's refusal of op on a decided or poisoned session.
func errDecided(op string) error {
	return devices.Errorf(devices.KindBusy, op, "resident startup is already decided or failed")
}
