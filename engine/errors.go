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

// decidedMessage is why ready refuses a decided or poisoned session.
const decidedMessage = "resident startup is already decided or failed"

// decidedErrors are ready's refusals of a decided or poisoned session, one
// per operation that asks, made once: the random host plans of a
// campaign's trials provoke them a few times each.
var decidedErrors = map[string]*Error{}

func init() {
	for _, op := range []string{"submit_gpu", "submit_npu", "start", "abort", "close"} {
		decidedErrors[op] = devices.Fixed(devices.KindBusy, op, decidedMessage)
	}
}

// errDecided is ready's refusal of op on a decided or poisoned session.
func errDecided(op string) error {
	if err, ok := decidedErrors[op]; ok {
		return err
	}
	return devices.Errorf(devices.KindBusy, op, decidedMessage)
}
