// Kernels of the CUDA backend. kernels.ptx beside this file is generated
// from it and embedded in the Go package; regenerate it with (CUDA 13):
//
//   nvcc --ptx -arch=compute_75 -O3 -o kernels.ptx kernels.cu
//
// Each kernel takes its arguments by value: the driver copies them into the
// kernel's parameter space at launch, so the kernel never reads them over
// PCIe again (a kernel that took a pointer to arguments in mapped host
// memory reloaded them after every acquire, each reload a PCIe round trip).
// Words that the host or the simulated NPU shares with a kernel are read
// with ld.acquire.sys and written with st.release.sys, so both sides agree
// on order across PCIe, and a word the kernel writes never shares a 128-byte
// line with a word the host writes (docs/cuda.md, "The floor").

typedef unsigned int u32;
typedef unsigned long long u64;

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

// Values of the startup word (exchange.StartupWait, Run, Abort).
enum { WAIT = 0, RUN = 1, ABORT = 2 };

// Modes: how the gpu.run fault shapes the kernel.
enum { MODE_RUN = 0, MODE_HANG = 1, MODE_IGNORE_ABORT = 2, MODE_CRASH = 3 };

// Completion codes in Status.done.
enum { DONE_OK = 1, DONE_CRASHED = 2, DONE_STOPPED = 3, DONE_BAD_DECISION = 4 };

// Status is written by the exchange kernel and read by the host: one
// 128-byte line that only the kernel writes. The host's stop word is on a
// line of its own.
struct Status {
  u32 observed;  // the decision seen, 0 until one is
  u32 done;      // a DONE_ code, 0 while running
  u64 started;   // %globaltimer at entry
  u64 observed_at;
  u64 retired_at;
};

// ExchangeArgs matches exchange.Config and the payload layout of
// exchange.Exchange (programs/exchange, SlotLayout): credits slots of stride
// bytes, each with the generation word at +0, the data at data_at and the
// credit word at credit_at.
struct ExchangeArgs {
  const u32 *startup;
  unsigned char *payload;
  Status *status;
  const u32 *stop;  // set by the host: leave at once (reset)
  u64 delay_ns;
  u32 rounds, credits, slot_bytes, stride;
  u32 data_at, credit_at;
  u32 owner, mode;
};

// pattern is word i of generation g of session owner (devices.pattern).
__device__ __forceinline__ u32 pattern(u32 owner, u32 g, u32 i) {
  u32 v = owner * 0x9E3779B1u ^ g * 0x85EBCA77u ^ i * 0xC2B2AE3Du;
  v ^= v >> 15;
  v *= 0x2C1B3C6Du;
  v ^= v >> 12;
  return v;
}

// stop_asked reads the host's stop word on every STOP_EVERY-th poll only:
// each read crosses PCIe, and reading it on every poll would double the
// time the kernel takes to see the word it is waiting for.
enum : u32 { STOP_EVERY = 256 };

__device__ __forceinline__ bool stop_asked(const u32 *stop, u32 polls) {
  return polls % STOP_EVERY == 0 && load_acquire(stop) != 0;
}

__device__ void retire(Status *s, u32 code) {
  s->retired_at = globaltimer();  // ordered by the release below
  store_release(&s->done, code);
}

// resident_exchange is the GPU half of the exchange as one resident thread:
// poll the startup word; on ABORT retire without touching the payload; on
// RUN produce every generation into a free credit slot. Its polling loops
// read only the word they wait for (and the stop word, rarely).
extern "C" __global__ void resident_exchange(const ExchangeArgs a) {
  Status *s = a.status;
  s->started = globaltimer();
  if (a.mode == MODE_HANG) {  // never observes the line; only a reset ends it
    while (load_acquire(a.stop) == 0) {
    }
    retire(s, DONE_STOPPED);
    return;
  }
  const bool ignore_abort = a.mode == MODE_IGNORE_ABORT;
  u32 seen;
  for (u32 polls = 1;; polls++) {
    seen = load_acquire(a.startup);
    if (seen != WAIT && !(seen == ABORT && ignore_abort)) break;
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
  if (a.delay_ns != 0) {
    while (globaltimer() - at < a.delay_ns) {
      if (load_acquire(a.stop) != 0) {
        retire(s, DONE_STOPPED);
        return;
      }
    }
  }
  const u32 words = a.slot_bytes / 4;
  for (u32 g = 1; g <= a.rounds; g++) {
    u32 slot = (g - 1) % a.credits;
    unsigned char *base = a.payload + (u64)slot * a.stride;
    if (g > a.credits) {
      u32 need = g - a.credits;
      for (u32 polls = 1; load_acquire((const u32 *)(base + a.credit_at)) < need; polls++) {
        if (stop_asked(a.stop, polls)) {
          retire(s, DONE_STOPPED);
          return;
        }
      }
    }
    volatile u32 *data = (volatile u32 *)(base + a.data_at);
    for (u32 i = 0; i < words; i++) data[i] = pattern(a.owner, g, i);
    store_release((u32 *)base, g);
  }
  retire(s, DONE_OK);
}

// PingArgs drives a raw round trip: the host writes ping = i, the kernel
// answers pong = i. The ping word is a line the host alone writes; pong and
// clock share a line the kernel alone writes. A ping of PING_STOP ends
// either kernel early.
struct PingArgs {
  const u32 *ping;
  u32 *pong;
  u64 *clock;
  u32 rounds;
};

enum : u32 { PING_STOP = 0xFFFFFFFFu };

// ping_pong answers rounds pings and does nothing else: one acquire poll
// and one release store per round, its arguments in registers. It is the
// floor of a host <-> kernel round trip over mapped memory, the baseline of
// every GPU figure.
extern "C" __global__ void ping_pong(const PingArgs a) {
  const u32 *ping = a.ping;
  u32 *pong = a.pong;
  for (u32 i = 1; i <= a.rounds; i++) {
    u32 p;
    while ((p = load_acquire(ping)) != i) {
      if (p == PING_STOP) return;
    }
    store_release(pong, i);
  }
}

// ping_pong_clock is ping_pong that also writes its %globaltimer to clock
// before each answer: the samples that align the kernel's clock with the
// host's, and a figure of its own (what a timestamp costs a round trip).
extern "C" __global__ void ping_pong_clock(const PingArgs a) {
  const u32 *ping = a.ping;
  u32 *pong = a.pong;
  volatile u64 *clock = a.clock;
  for (u32 i = 1; i <= a.rounds; i++) {
    u32 p;
    while ((p = load_acquire(ping)) != i) {
      if (p == PING_STOP) return;
    }
    *clock = globaltimer();  // ordered by the release below
    store_release(pong, i);
  }
}
