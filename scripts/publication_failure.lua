-- publication_failure.lua: the host cannot publish its decision.
--
--   residentlua --mode sim --seed 1 scripts/publication_failure.lua
--
-- Publishing RUN is a store of the decision word followed by a release for
-- every queue family of both devices. If one release fails, some device may
-- have seen RUN and another not: the host can no longer say what the devices
-- will do. The protocol records the decision before publishing, so it can
-- never publish a different one; the session is poisoned, and closing it
-- quarantines its memory until the devices are reset.

print("1. the release for one queue family fails")
resident.fault("host.publish", "1*error(doorbell write failed)")
local s = startup{rounds = 2}
s:submit_gpu()
s:submit_npu()
local ok, err = pcall(s.start, s)
print("  start raised        " .. tostring(err))
print("  error kind          " .. err.kind)
print("  state               " .. s.state .. "  (the decision is recorded, never re-published)")
ok, err = pcall(s.abort, s)
print("  abort raised        " .. tostring(err))
print("  close               " .. s:close(0.01))
local n = #resident.quarantined()
print("  quarantined         " .. n .. (n == 1 and " session" or " sessions"))
resident.reset("gpu")
resident.reset("npu")
print("  after reset         " .. #resident.quarantined() .. " quarantined, " .. resident.budget().charged .. " bytes charged")

print("2. the store happens but the NPU's release is skipped")
-- Releases go in order: gpu0 pm4, gpu0 aql, npu0 xdna. The GPU sees host
-- memory coherently; the NPU sees a host store only after a release for it.
resident.fault("host.publish", "2*off->1*skip")
s = startup{rounds = 2}
s:submit_gpu()
s:submit_npu()
s:start()
print("  start returned      state=" .. s.state)
local done = s:wait(0.01)
print("  wait(0.01)          both retired: " .. tostring(done))
for _, e in ipairs(s:events()) do
  if e.kind == "observe" then
    print(string.format("  %-20s%s", e.actor .. " observed", e.b == 1 and "RUN" or e.b == 2 and "ABORT" or tostring(e.b)))
  end
end
print("  npu0 never observed anything: without its release it still reads the old word")
print("  close               " .. s:close(0.01))
resident.reset("gpu")
resident.reset("npu")
print("  after reset         " .. #resident.quarantined() .. " quarantined, " .. resident.budget().charged .. " bytes charged")
print("violations " .. #resident.violations())
