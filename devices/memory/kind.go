package memory

import "fmt"

// Kind is a way memory can be shared by devices: what an allocation
// profile of a fabric offers (devices.Profile.Kind).
type Kind uint8

// The kinds of memory.
const (
	// FineGrained host memory: GPU families coherent, NPU families not.
	FineGrained Kind = iota + 1
	// CoarseGrained host memory: every family non-coherent.
	CoarseGrained
	// DeviceLocal memory: not host-accessible.
	DeviceLocal
	// Pinned host memory lent by a GPU's accelerator: that GPU coherent at
	// system scope, every other family not. The only host memory offered
	// for devices that include an accelerated GPU.
	Pinned
)

// String is the kind's name ("fine-grained", "pinned", ...).
func (k Kind) String() string {
	switch k {
	case FineGrained:
		return "fine-grained"
	case CoarseGrained:
		return "coarse-grained"
	case DeviceLocal:
		return "device-local"
	case Pinned:
		return "pinned"
	}
	return fmt.Sprintf("profile(%d)", uint8(k))
}
