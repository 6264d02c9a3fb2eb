-- A small trial script for the tests: one session with a random fault,
-- driven to its close; records the time from the decision to the last
-- retirement and the rounds.
trial_fabric = {timing = "published"}
local sites = {"none", "gpu.run", "npu.dispatch", "host.publish"}
local terms = {["gpu.run"] = "hang", ["npu.dispatch"] = "error(full)", ["host.publish"] = "skip"}

function trial(t)
  local site = sites[t.random(#sites)]
  if site ~= "none" then resident.fault(site, terms[site]) end
  local rounds = t.random(1, 4)
  local s = startup{rounds = rounds}
  s:submit_gpu()
  if not pcall(s.submit_npu, s) then return s:close(0.01) end
  s:start()
  s:wait(0.01)
  local st = s:stats()
  if st.gpu.retired and st.npu.retired then
    t.record("latency", math.max(st.gpu.retired, st.npu.retired) - st.decided)
  end
  t.record("rounds", rounds)
  return s:close(0.01)
end
