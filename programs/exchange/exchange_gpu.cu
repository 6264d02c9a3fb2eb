// The GPU half of the exchange as a user's kernel on a real NVIDIA GPU: it
// plays programs/exchange/exchange_gpu.lua's part beside the NPU program
// programs/exchange/exchange_npu.lua, running in real time. Build its PTX with
// (CUDA 12 or 13):
//
//   nvcc --ptx -arch=compute_75 -O3 -o programs/exchange/exchange_gpu.ptx programs/exchange/exchange_gpu.cu
//
// and run it with --gpu cuda:
//
//   local k = resident.kernel{ptx = "programs/exchange/exchange_gpu.ptx", entry = "exchange_gpu",
//                             args = {"rounds", "credits", "slot_bytes"}}
//   local npu = resident.program{file = "programs/exchange/exchange_npu.lua"}
//   local s = resident.startup{gpu = k, npu = npu, args = {rounds = 100, credits = 4, slot_bytes = 64}}
//
// docs/cuda.md describes the argument block (ResidentArgs) and the status
// a kernel reports; this file is a whole kernel written against them.

typedef unsigned int u32;
typedef unsigned long long u64;

// ResidentArgs is the block every user's kernel receives by value.
struct Status {
  u32 observed;  // the decision seen, 0 until one is
  u32 done;      // how the kernel ended, 0 while it runs
  u64 started;
  u64 observed_at;  // %globaltimer when it saw the decision
  u64 retired_at;   // %globaltimer when it ended
};

struct ResidentArgs {
  const u32 *startup;  // word 0: WAIT 0, RUN 1, ABORT 2
  const u32 *stop;     // the host sets it to ask the kernel to leave (a reset)
  Status *status;      // what the kernel reports
  u64 delay_ns;        // the run fault's delay, after observing RUN
  u32 mode;            // the run fault: MODE_*
  u32 nbuffers;        // buffers, in name order
  u64 owner;           // the session
  u32 nvalues;         // the user's numbers
  u32 unused;
  unsigned char *buffer[16];
  u64 size[16];
  long long value[16];
};

enum { WAIT = 0, RUN = 1, ABORT = 2 };
enum { MODE_RUN = 0, MODE_HANG = 1, MODE_IGNORE_ABORT = 2, MODE_CRASH = 3 };
enum { DONE_OK = 1, DONE_CRASHED = 2, DONE_STOPPED = 3, DONE_BAD_DECISION = 4 };

__device__ __forceinline__ u32 load_acquire(const u32 *p) {
  u32 v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void store_release(u32 *p, u32 v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__device__ __forceinline__ u64 globaltimer() {
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Word i of generation g of session owner, as exchange_gpu.lua computes it.
__device__ __forceinline__ u32 pattern(u32 owner, u32 g, u32 i) {
  u32 v = owner * 0x9E3779B1u ^ g * 0x85EBCA77u ^ i * 0xC2B2AE3Du;
  v ^= v >> 15;
  v *= 0x2C1B3C6Du;
  v ^= v >> 12;
  return v;
}

// The stop word is read on every 256th poll only: each read crosses PCIe.
__device__ __forceinline__ bool stop_asked(const u32 *stop, u32 polls) {
  return polls % 256 == 0 && load_acquire(stop) != 0;
}

__device__ void retire(Status *s, u32 code) {
  s->retired_at = globaltimer();  // ordered by the release below
  store_release(&s->done, code);
}

// exchange_gpu: value[0] rounds, value[1] credits, value[2] slot_bytes;
// buffer[0] the payload, laid out as exchange_npu.lua lays it out: slot s
// at s * stride, its generation word at +0, its data at +8 and its credit
// word at +gpu, where gpu = ceil((8 + slot_bytes) / 128) * 128 and stride =
// gpu + 128.
extern "C" __global__ void exchange_gpu(const ResidentArgs a) {
  Status *s = a.status;
  s->started = globaltimer();
  if (a.mode == MODE_HANG) {  // never observes the line; only a reset ends it
    while (load_acquire(a.stop) == 0) {
    }
    retire(s, DONE_STOPPED);
    return;
  }
  u32 seen;
  for (u32 polls = 1;; polls++) {
    seen = load_acquire(a.startup);
    if (seen != WAIT && !(seen == ABORT && a.mode == MODE_IGNORE_ABORT)) break;
    if (stop_asked(a.stop, polls)) {
      retire(s, DONE_STOPPED);
      return;
    }
  }
  u64 at = globaltimer();
  s->observed_at = at;  // ordered by the release below
  store_release(&s->observed, seen);
  if (a.mode == MODE_CRASH) {
    retire(s, DONE_CRASHED);
    return;
  }
  if (seen == ABORT) {
    retire(s, DONE_OK);
    return;
  }
  if (seen != RUN) {
    retire(s, DONE_BAD_DECISION);
    return;
  }
  while (globaltimer() - at < a.delay_ns) {
    if (load_acquire(a.stop) != 0) {
      retire(s, DONE_STOPPED);
      return;
    }
  }
  const u32 rounds = (u32)a.value[0], credits = (u32)a.value[1], slot_bytes = (u32)a.value[2];
  const u32 gpu = (8 + slot_bytes + 127) / 128 * 128, stride = gpu + 128, words = slot_bytes / 4;
  unsigned char *payload = a.buffer[0];
  for (u32 g = 1; g <= rounds; g++) {
    unsigned char *base = payload + (u64)((g - 1) % credits) * stride;
    if (g > credits) {
      for (u32 polls = 1; load_acquire((const u32 *)(base + gpu)) < g - credits; polls++) {
        if (stop_asked(a.stop, polls)) {
          retire(s, DONE_STOPPED);
          return;
        }
      }
    }
    volatile u32 *data = (volatile u32 *)(base + 8);
    for (u32 i = 0; i < words; i++) data[i] = pattern((u32)a.owner, g, i);
    store_release((u32 *)base, g);
  }
  retire(s, DONE_OK);
}
