package engine

import "github.com/residentlua/residentlua/devices"

// Error is a protocol or device error with a kind, the operation and a message.
type Error = devices.Error

// Sentinels for errors.Is, one per kind of error.
var (
	// ErrUnsupported: the devices or memory cannot host a resident session.
	ErrUnsupported = devices.ErrUnsupported
	// ErrBusy: the operation is not allowed in the session's state.
	ErrBusy = devices.ErrBusy
	// ErrDevice: a device rejected a dispatch or failed.
	ErrDevice = devices.ErrDevice
	// ErrPublish: publishing the decision failed; the session is poisoned.
	ErrPublish = devices.ErrPublish
	// ErrBudget: the memory budget is exhausted.
	ErrBudget = devices.ErrBudget
	// ErrInvalid: an argument was bad.
	ErrInvalid = devices.ErrInvalid
)
