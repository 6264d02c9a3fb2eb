// pingpong_floor measures the host <-> GPU round trip through mapped pinned
// memory with nothing of residentlua in it: a C++ host thread spinning on
// one word, a kernel doing one ld.acquire.sys spin and one st.release.sys
// per round, parameters by value, each word on its own 128-byte line. It is
// the independent check of the backend's own floor (residentbench -gpu cuda,
// "GPU: minimal ping-pong round trip"); docs/cuda.md quotes both, measured
// in one device session. Build and run on a GPU machine:
//
//   nvcc -O3 -arch=sm_90 -o pingpong_floor pingpong_floor.cu && ./pingpong_floor 100000
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

__device__ __forceinline__ unsigned load_acquire(const unsigned *p) {
  unsigned v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void store_release(unsigned *p, unsigned v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__global__ void pong(const unsigned *ping, unsigned *pong, unsigned rounds) {
  for (unsigned i = 1; i <= rounds; i++) {
    while (load_acquire(ping) != i) {
    }
    store_release(pong, i);
  }
}

int main(int argc, char **argv) {
  unsigned rounds = argc > 1 ? atoi(argv[1]) : 100000;
  unsigned *host;
  if (cudaHostAlloc(&host, 1024, cudaHostAllocMapped | cudaHostAllocPortable) != cudaSuccess) {
    fprintf(stderr, "cudaHostAlloc failed\n");
    return 1;
  }
  std::atomic<unsigned> *ping = reinterpret_cast<std::atomic<unsigned> *>(host);
  std::atomic<unsigned> *pongw = reinterpret_cast<std::atomic<unsigned> *>(host + 32);  // +128 bytes
  ping->store(0);
  pongw->store(0);
  unsigned *dping, *dpong;
  cudaHostGetDevicePointer(&dping, host, 0);
  cudaHostGetDevicePointer(&dpong, host + 32, 0);
  pong<<<1, 1>>>(dping, dpong, rounds);
  std::vector<double> trips(rounds);
  for (unsigned i = 1; i <= rounds; i++) {
    auto t0 = std::chrono::steady_clock::now();
    ping->store(i, std::memory_order_release);
    while (pongw->load(std::memory_order_acquire) != i) {
    }
    auto t1 = std::chrono::steady_clock::now();
    trips[i - 1] = std::chrono::duration<double, std::micro>(t1 - t0).count();
  }
  cudaDeviceSynchronize();
  std::sort(trips.begin(), trips.end());
  printf("pingpong_floor: %u round trips: p50 %.3f us, p10 %.3f us, p90 %.3f us\n", rounds,
         trips[rounds / 2], trips[rounds / 10], trips[rounds * 9 / 10]);
  return 0;
}
