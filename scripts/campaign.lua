-- campaign.lua: a trial script for `residentlua campaign`. Each trial drives
-- one session of a random shape through the Lua API with up to two random
-- faults armed, closes it, records how long the devices took from the
-- decision to their retirement, and returns how the close ended.
--
--   residentlua campaign scripts/campaign.lua --trials 100000
--   residentlua campaign scripts/campaign.lua --seed 1 --replay 46
--
-- The command makes each trial a simulated fabric seeded with the trial's
-- seed (with the options of trial_fabric below) and seeds t.random with it,
-- so a trial depends on its seed alone and a failed one replays by itself.
-- The module's oracle checks every step: a violation fails the trial.
-- Run directly (residentlua scripts/campaign.lua), it runs one trial on the
-- run's fabric and prints what the trial returned and recorded.

trial_fabric = {timing = "published"}

-- The faults a trial draws from: site and term (see docs/faults.md).
local faults = {
  {"gpu.dispatch", "error(ring full)"},
  {"npu.dispatch", "error(queue full)"},
  {"gpu.run", "hang"},
  {"npu.run", "crash(bad opcode)"},
  {"npu.run", "delay(20us)"},
  {"npu.drain", "1*skip"},
  {"host.publish", "skip"},
  {"host.publish", "error(bus error)"},
  {"gpu.complete", "error(ecc)"},
  {"payload.corrupt", "1*flip"},
  {"memory.alloc", "1*error(out of memory)"},
}

-- retirement is the later of the two retirements, nil unless both retired.
local function retirement(st)
  if st.gpu.retired and st.npu.retired then
    return math.max(st.gpu.retired, st.npu.retired)
  end
end

function trial(t)
  for _ = 1, t.random(0, 2) do
    local f = faults[t.random(#faults)]
    resident.fault(f[1], f[2])
  end
  local made, s = pcall(startup, {rounds = t.random(1, 8), credits = t.random(1, 4), slot_bytes = 64 * t.random(1, 4)})
  if not made then
    return "not made"
  end
  local accepted = pcall(s.submit_gpu, s) and pcall(s.submit_npu, s)
  if accepted and t.random() < 0.9 then
    pcall(s.start, s)
  else
    pcall(s.abort, s)
  end
  pcall(s.wait, s, 0.01)
  local outcome = s:close(0.01)
  local st = s:stats()
  local retired = retirement(st)
  if st.decided and retired then
    t.record("decision to retirement", retired - st.decided)
  end
  t.record("payload bytes", st.bytes)
  if outcome == "retired" and st.verification and not st.verification.ok then
    return "retired, verification failed"
  end
  return outcome
end

-- times are the measurements that are times, in seconds; the others are
-- counts.
local times = {["decision to retirement"] = true}

-- shown writes a recorded value with its unit: a time in s, ms, µs or ns.
local function shown(name, value)
  if not times[name] then
    return string.format("%d", value)
  end
  if value == 0 then
    return "0 s"
  end
  for _, unit in ipairs{{1, "s"}, {1e-3, "ms"}, {1e-6, "µs"}} do
    if value >= unit[1] then
      return string.format("%.3g %s", value / unit[1], unit[2])
    end
  end
  return string.format("%.3g ns", value * 1e9)
end

if arg and arg[-1] ~= "campaign" then -- run directly, not by a campaign
  local records = {}
  local outcome = trial{
    seed = resident.seed(), index = 0, fabric = resident.fabric(), random = math.random,
    record = function(name, value) records[#records + 1] = string.format("%s = %s", name, shown(name, value)) end,
    fail = function(msg) error(msg, 2) end,
  }
  print("one trial, seed " .. resident.seed() .. ": " .. outcome)
  for _, r in ipairs(records) do print("  " .. r) end
  print("for a campaign: residentlua campaign " .. arg[0] .. " --trials 1000")
end
