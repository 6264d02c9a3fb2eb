// Kernels of the CUDA backend: the ping-pongs that align the kernel's clock
// with the fabric's and measure the floor of a host <-> kernel round trip.
// The backend runs no program of its own: a session's GPU half, the
// built-in exchange's (programs/exchange/exchange_gpu.cu) as well as a
// user's, is PTX loaded and launched through kernel.Launcher (user.go).
// kernels.ptx beside this file is generated from it and embedded in the Go
// package; regenerate it with (CUDA 13):
//
//   nvcc --ptx -arch=compute_75 -O3 -o kernels.ptx kernels.cu
//
// Each kernel takes its arguments by value: the driver copies them into the
// kernel's parameter space at launch, so the kernel never reads them over
// PCIe again (a kernel that took a pointer to arguments in mapped host
// memory reloaded them after every acquire, each reload a PCIe round trip).
// Words that the host shares with a kernel are read with ld.acquire.sys and
// written with st.release.sys, so both sides agree on order across PCIe,
// and a word the kernel writes never shares a 128-byte line with a word the
// host writes (docs/cuda.md, "The floor").

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
