-- partial_admission.lua: one participant is admitted, the other is not.
--
--   residentlua --mode sim --seed 1 scripts/partial_admission.lua
--
-- The protocol's promise: a participant that was accepted is never left
-- polling for a decision that will not come. When the peer's dispatch is
-- rejected, the host publishes ABORT *before* returning the error; the
-- accepted program observes ABORT and retires at once, touching no payload.

local function show(s, what)
  print(string.format("  %-27sstate=%s", what, s.state))
end

local function kinds(s)
  local seen = {}
  for _, e in ipairs(s:events()) do seen[e.kind] = (seen[e.kind] or 0) + 1 end
  return seen
end

print("1. GPU accepted, NPU rejected by the device")
resident.fault("npu.dispatch", "1*error(command queue full)")
local s = startup{rounds = 4}
s:submit_gpu()
show(s, "submit_gpu accepted")
local ok, err = pcall(s.submit_npu, s)
print("  submit_npu raised          " .. tostring(err))
print("  error kind/op              " .. err.kind .. " / " .. err.op)
show(s, "after the rejection")
print("  GPU and NPU retired        " .. tostring(s:wait(1)))
local seen = kinds(s)
print("  ABORT published            " .. tostring((seen["published"] or 0) > 0))
print("  payload writes by the GPU  " .. (seen["payload.write"] or 0) .. "  (ABORT: nothing touched)")
print("  close                      " .. s:close())

print("2. NPU accepted first, GPU rejected: the same path, the other way round")
resident.fault("gpu.dispatch", "1*error(ring full)")
s = startup{rounds = 4}
s:submit_npu()
ok, err = pcall(s.submit_gpu, s)
print("  submit_gpu raised          " .. tostring(err))
print("  GPU and NPU retired        " .. tostring(s:wait(1)))
print("  close                      " .. s:close())

print("3. Why a rejected session cannot start")
resident.fault("npu.dispatch", "1*error(command queue full)")
s = startup{}
s:submit_gpu()
pcall(s.submit_npu, s)
ok, err = pcall(s.start, s)
print("  start raised               " .. tostring(err))
s:close()

local b = resident.budget()
print(string.format("budget charged %d bytes, violations %d", b.charged, #resident.violations()))
