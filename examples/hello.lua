-- hello.lua: one resident session, from startup to close, in a few lines.
--
--   residentlua examples/hello.lua
--   residentlua --mode sim --seed 1 examples/hello.lua   (the same events every run)
--
-- The GPU and the NPU programs are both accepted before anything runs; RUN is
-- published once; they exchange four rounds through two credits with no
-- host action; the host joins both under one deadline and checks every round.

local s = startup{gpu = "aql", rounds = 4, credits = 2, slot_bytes = 256}
print("made        " .. tostring(s))

s:submit_gpu()                      -- the GPU participant is accepted
s:submit_npu()                      -- so is the NPU participant
s:start()                           -- RUN is published to both queues
print("started     state=" .. s.state)

local done = s:wait(1.0)            -- join both, under one deadline of 1 s
local st = s:stats()
print("waited      both retired: " .. tostring(done) .. ", state=" .. s.state)
print(string.format("exchanged   %d rounds, %d bytes, verified: %s",
  st.rounds, st.bytes, tostring(st.verification and st.verification.ok)))

print("closed      " .. s:close())  -- the drop path: "retired" or "quarantined"
print("budget      " .. resident.budget().charged .. " bytes still charged")
