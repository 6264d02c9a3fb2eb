-- faults.lua: inject faults and watch the protocol roll back, quarantine and
-- recover after a reset.
--
--   residentlua --mode sim --seed 1 examples/faults.lua

-- 1. Rollback. The GPU is accepted; the NPU's dispatch is rejected by an
--    injected fault. Before the error reaches us, ABORT is published, so the
--    accepted GPU program retires without touching the payload.
resident.fault("npu.dispatch", "1*error(queue full)")
local s = startup{}
s:submit_gpu()
local ok, err = pcall(s.submit_npu, s)
print("submit_npu  failed: " .. tostring(err) .. " (kind " .. err.kind .. ")")
print("wait        both retired: " .. tostring(s:wait(1)) .. ", state=" .. s.state)
print("close       " .. s:close())

-- 2. Quarantine. The GPU program hangs: it never retires, so closing the
--    session cannot free memory the GPU may still reach. The session is
--    quarantined: its memory stays mapped and charged, its devices occupied.
resident.fault("gpu.run", "hang")
s = startup{}
s:submit_gpu(); s:submit_npu(); s:start()
print("wait        both retired: " .. tostring(s:wait(0.01)))
print("close       " .. s:close(0.01))
resident.fault("gpu.run", "off")
local b = resident.budget()
print(string.format("budget      %d bytes charged, %d bytes of them quarantined", b.charged, b.quarantined))
local n = #resident.quarantined()
print("quarantined " .. n .. (n == 1 and " session" or " sessions"))

-- A quarantined session keeps its devices: a new one cannot be admitted.
local s2 = startup{}
ok, err = pcall(s2.submit_gpu, s2)
print("new session " .. tostring(err))
s2:close()

-- 3. Reset. Resetting both devices stops what runs there; the quarantined
--    session is then released and its memory returned.
resident.reset("gpu")
resident.reset("npu")
b = resident.budget()
print(string.format("after reset %d sessions quarantined, %d bytes charged", #resident.quarantined(), b.charged))

-- And the fabric works again.
s = startup{}
s:submit_gpu(); s:submit_npu(); s:start()
print("new session both retired: " .. tostring(s:wait(1)) .. ", close: " .. s:close())
print("violations  " .. #resident.violations())
