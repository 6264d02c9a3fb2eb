-- gpu_lifecycle.lua: the resident session with a real NVIDIA GPU.
--
--   residentlua scripts/gpu_lifecycle.lua [sessions] [rounds]
--
-- The GPU participant is a resident CUDA kernel that polls the startup line
-- in pinned host memory over PCIe; the NPU stays simulated and exchanges
-- with the kernel through the same memory. The kernel reads %globaltimer
-- when it sees the decision and when it retires, so the latencies below are
-- the kernel's own, not when the host noticed. docs/cuda.md says how to run
-- this on a machine with an NVIDIA GPU.

-- count reads argument i as a whole number of at least 1 (default def),
-- and refuses anything else before the GPU is opened.
local function count(i, what, def)
  if arg[i] == nil then return def end
  local n = tonumber(arg[i])
  if not n or n ~= math.floor(n) or n < 1 then
    io.stderr:write(string.format("gpu_lifecycle.lua: %s must be a whole number of at least 1, got %q\n", what, arg[i]),
      "usage: gpu_lifecycle.lua [sessions [rounds]]\n")
    os.exit(1)
  end
  return n
end

local sessions = count(1, "sessions", 100)
local rounds = count(2, "rounds", 1000)

local ok, f = pcall(resident.fabric, {mode = "realtime", timing = "ideal", gpu = {backend = "cuda"}})
if not ok then
  io.stderr:write("gpu_lifecycle.lua needs a real NVIDIA GPU: ", tostring(f), "\n",
    "run it on a machine with an NVIDIA GPU and its driver; docs/cuda.md says how\n")
  os.exit(1)
end
print("gpu          " .. f.gpu)

local function us(seconds) return seconds * 1e6 end
local function quantiles(xs)
  table.sort(xs)
  local function q(p) return xs[math.max(1, math.ceil(p * #xs))] end
  return string.format("median %.2f us, p10 %.2f us, p90 %.2f us (n=%d)", q(0.5), q(0.1), q(0.9), #xs)
end

print("1. one lifecycle, step by step")
local s = startup{rounds = 1}
s:submit_gpu(); s:submit_npu()
print("  admitted   the kernel is resident and polling; state=" .. s.state)
s:start()
print("  wait       both retired: " .. tostring(s:wait(10)))
local st = s:stats()
print("  verified   " .. tostring(st.verification.ok))
print(string.format("  kernel saw RUN %.2f us after the decision; the host noticed at %.2f us",
  us(st.gpu.kernel_observed - st.decided), us(st.gpu.observed - st.decided)))
print("  close      " .. s:close())

print(string.format("2. %d lifecycles, rounds=%d, credits=1, 8-byte slots", sessions, rounds))
local observe, perRound = {}, {}
for _ = 1, sessions do
  s = startup{rounds = rounds, credits = 1, slot_bytes = 8}
  s:submit_gpu(); s:submit_npu(); s:start()
  assert(s:wait(10), "a session did not retire within 10 s")
  st = s:stats()
  assert(st.verification.ok, st.verification.problem)
  observe[#observe + 1] = us(st.gpu.kernel_observed - st.decided)
  perRound[#perRound + 1] = us(st.gpu.kernel_retired - st.gpu.kernel_observed) / rounds
  s:close()
end
print("  observation latency (kernel's clock)   " .. quantiles(observe))
print("  exchange per round (GPU -> NPU -> GPU)  " .. quantiles(perRound))

print(string.format("3. %d one-round lifecycles, each step timed with resident.now()", sessions))
local steps = {"startup", "submit_gpu", "submit_npu", "start", "wait", "close"}
local took = {}
for _, name in ipairs(steps) do took[name] = {} end
took.total = {}
for _ = 1, sessions do
  local t0 = resident.now()
  local t = t0
  local function lap(name)
    local now = resident.now()
    took[name][#took[name] + 1] = us(now - t)
    t = now
  end
  s = startup{rounds = 1}; lap("startup")
  s:submit_gpu(); lap("submit_gpu")
  s:submit_npu(); lap("submit_npu")
  s:start(); lap("start")
  assert(s:wait(10), "a session did not retire within 10 s"); lap("wait")
  assert(s:close() == "retired", "a session did not close retired"); lap("close")
  took.total[#took.total + 1] = us(t - t0)
end
local function median(xs) table.sort(xs); return xs[math.max(1, math.ceil(#xs / 2))] end
local row = {}
for _, name in ipairs(steps) do row[#row + 1] = string.format("%s %.1f", name, median(took[name])) end
print("  medians (us): " .. table.concat(row, ", "))
print(string.format("  whole lifecycle: median %.1f us", median(took.total)))

print("4. a hung kernel: quarantine, then reset")
resident.fault("gpu.run", "1*hang")
s = startup{}
s:submit_gpu(); s:submit_npu(); s:start()
print("  wait(0.1)  both retired: " .. tostring(s:wait(0.1)))
print("  close      " .. s:close(0.1))
resident.reset("gpu"); resident.reset("npu")
print("  after reset " .. #resident.quarantined() .. " quarantined")
s = startup{rounds = 7, credits = 4}
s:submit_gpu(); s:submit_npu(); s:start()
print("  new session both retired: " .. tostring(s:wait(10)) .. ", close: " .. s:close())
print("violations   " .. #resident.violations())
