package exchange

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/residentlua/residentlua/programs/kernel"
)

// The exchange's kernel (exchange_gpu.cu) is given only the slot bytes and
// computes its slots' offsets itself: the data at +8, the credit word at
// ceil((8 + slot_bytes) / 128) * 128 and the next slot a pair of lines
// after it. That must be Layout's answer for every slot size, or the NPU
// half would read the generations and write the credits elsewhere than
// the kernel.
func TestTheKernelLaysSlotsOutAsLayoutDoes(t *testing.T) {
	src, err := os.ReadFile("exchange_gpu.cu")
	if err != nil {
		t.Fatal(err)
	}
	for _, formula := range []string{
		"const u32 gpu = (8 + slot_bytes + 127) / 128 * 128, stride = gpu + 128",
		"(const u32 *)(base + gpu)",
		"(volatile u32 *)(base + 8)",
		"store_release((u32 *)base, g)",
	} {
		if !strings.Contains(string(src), formula) {
			t.Fatalf("exchange_gpu.cu no longer says %q; check its layout against Layout and update this test", formula)
		}
	}
	kernelLayout := func(slotBytes int) SlotLayout {
		gpu := (8 + slotBytes + 127) / 128 * 128
		return SlotLayout{Data: 8, Credit: gpu, Stride: gpu + 128}
	}
	for _, slotBytes := range []int{8, 56, 64, 112, 120, 128, 240, 248, 256, 1000, 4096, MaxSlotBytes - 8, MaxSlotBytes} {
		if got, want := Layout(slotBytes), kernelLayout(slotBytes); got != want {
			t.Errorf("%d-byte slots: Layout %+v, the kernel's %+v", slotBytes, got, want)
		}
	}
}

// The embedded PTX is the kernel the backend launches: its entry takes the
// whole ResidentArgs block (440 bytes) by value, it reads shared words only
// with ld.acquire.sys (a plain global load of mapped memory is a PCIe round
// trip), it stores its start at entry, and its modes and endings are
// programs/kernel's.
func TestTheEmbeddedKernelTakesTheGenericBlock(t *testing.T) {
	ptx := string(kernelPTX)
	for _, want := range []string{".target sm_75", ".entry " + kernelEntry + "(\n\t.param .align 8 .b8 " + kernelEntry + "_param_0[440]", "ld.acquire.sys.global.u32", "st.release.sys.global.u32", "%globaltimer"} {
		if !strings.Contains(ptx, want) {
			t.Errorf("exchange_gpu.ptx lacks %q; rebuild it from exchange_gpu.cu with the command in that file", want)
		}
	}
	if n := strings.Count(ptx, "ld.global"); n != 0 {
		t.Errorf("exchange_gpu.ptx has %d plain global loads; the kernel should read shared words only with ld.acquire.sys", n)
	}
	src, err := os.ReadFile("exchange_gpu.cu")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"s->started = globaltimer();", // at entry, which Start awaits (Block.AwaitStart)
		fmt.Sprintf("enum { MODE_RUN = %d, MODE_HANG = %d, MODE_IGNORE_ABORT = %d, MODE_CRASH = %d };", kernel.ModeRun, kernel.ModeHang, kernel.ModeIgnoreAbort, kernel.ModeCrash),
		fmt.Sprintf("enum { DONE_OK = %d, DONE_CRASHED = %d, DONE_STOPPED = %d, DONE_BAD_DECISION = %d };", kernel.DoneOK, kernel.DoneCrashed, kernel.DoneStopped, kernel.DoneBadDecision),
	} {
		if !strings.Contains(string(src), want) {
			t.Errorf("exchange_gpu.cu does not say %q: its modes or endings differ from programs/kernel's", want)
		}
	}
}
