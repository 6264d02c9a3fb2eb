-- user_kernel.lua: your own kernel on a real NVIDIA GPU, beside an NPU
-- program written in Lua.
--
--   residentlua scripts/user_kernel.lua [rounds]
--
-- programs/exchange/exchange_gpu.ptx (built from exchange_gpu.cu, docs/cuda.md)
-- plays the GPU half of the exchange as a resident kernel that polls the
-- startup line in pinned host memory; programs/exchange/exchange_npu.lua, the NPU
-- half, runs beside it in real time and checks every generation. Then the
-- kernel is made to hang: its session is quarantined, and resetting both
-- devices releases it.

local rounds = tonumber(arg[1] or "1000")
if not rounds or rounds ~= math.floor(rounds) or rounds < 1 then
  io.stderr:write("user_kernel.lua: rounds must be a whole number of at least 1, got ", tostring(arg[1]), "\n")
  os.exit(1)
end

local ok, f = pcall(resident.fabric, {mode = "realtime", timing = "ideal", gpu = {backend = "cuda"}})
if not ok then
  io.stderr:write("user_kernel.lua needs a real NVIDIA GPU: ", tostring(f), "\n",
    "run it on a machine with an NVIDIA GPU and its driver; docs/cuda.md says how\n")
  os.exit(1)
end
print("gpu          " .. f.gpu)

local k = resident.kernel{ptx = "programs/exchange/exchange_gpu.ptx", entry = "exchange_gpu", args = {"rounds", "credits", "slot_bytes"}}
local npu = resident.program{file = "programs/exchange/exchange_npu.lua"}
print("kernel       " .. tostring(k))

local function exchange(n)
  return resident.startup{gpu = k, npu = npu, args = {rounds = n, credits = 4, slot_bytes = 64}}
end

print("1. one session, rounds=" .. rounds)
local s = exchange(rounds)
s:submit_gpu(); s:submit_npu(); s:start()
print("  wait       both retired: " .. tostring(s:wait(20)))
local st = s:stats()
print("  check      " .. tostring(st.check and st.check.ok) .. (st.check and st.check.problem and (": " .. st.check.problem) or ""))
if st.gpu.kernel_observed and st.decided then
  print(string.format("  kernel saw RUN %.2f us after the decision (its own clock)", (st.gpu.kernel_observed - st.decided) * 1e6))
end
print("  close      " .. s:close())

print("2. the kernel hangs (gpu.run hang)")
resident.fault("gpu.run", "1*hang")
local h = exchange(10)
h:submit_gpu(); h:submit_npu(); h:start()
print("  wait(0.2)  both retired: " .. tostring(h:wait(0.2)))
print("  close      " .. h:close(0.1))
resident.reset("gpu"); resident.reset("npu")
print("  after reset " .. #resident.quarantined() .. " quarantined")
local again = exchange(10)
again:submit_gpu(); again:submit_npu(); again:start()
print("  new session both retired: " .. tostring(again:wait(20)) .. ", close: " .. again:close())
print("violations   " .. #resident.violations())
