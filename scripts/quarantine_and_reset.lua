-- quarantine_and_reset.lua: a device never retires; the session is
-- quarantined; resetting the devices releases it.
--
--   residentlua --mode sim --seed 1 scripts/quarantine_and_reset.lua
--
-- Closing a session joins both programs for a while. A program that has not
-- retired may still reach the session's memory, so that memory must not be
-- freed: the session is quarantined instead, its buffers kept mapped and
-- charged to the budget, and its devices kept occupied so nothing new lands
-- on them. Resetting a device stops what runs there; once both devices of a
-- quarantined session are reset, its memory is returned.

resident.fault("npu.run", "hang")
local s = startup{rounds = 8, credits = 2, slot_bytes = 1024}
s:submit_gpu()
s:submit_npu()
s:start()
print("wait(0.01)      both retired: " .. tostring(s:wait(0.01)) .. "  (the NPU hangs)")
print("close(0.01)     " .. s:close(0.01))
print("state           " .. s.state)
resident.fault("npu.run", "off")

local b = resident.budget()
print(string.format("budget          limit %d bytes, %d bytes charged, %d bytes of them quarantined", b.limit, b.charged, b.quarantined))
for _, q in ipairs(resident.quarantined()) do
  print(string.format("quarantined     session %d, %d bytes, waiting for %s", q.session, q.bytes,
    table.concat(q.waiting, " and ")))
end

local s2 = startup{}
local ok, err = pcall(s2.submit_npu, s2)
print("new session     " .. tostring(err) .. "  (the NPU is still occupied)")
s2:close()

resident.reset("npu")
print("reset npu       " .. #resident.quarantined() .. " quarantined (the GPU may still reach the memory)")
resident.reset("gpu")
b = resident.budget()
print("reset gpu       " .. #resident.quarantined() .. " quarantined, " .. b.charged .. " bytes charged")

s = startup{}
s:submit_gpu(); s:submit_npu(); s:start()
print("new session     both retired: " .. tostring(s:wait(1)) .. ", close: " .. s:close())
print("violations      " .. #resident.violations())
