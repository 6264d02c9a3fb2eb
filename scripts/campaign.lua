-- campaign.lua: N seeded trials with random faults, in simulated time.
--
--   residentlua --mode sim --seed 1000 scripts/campaign.lua [N]
--
-- Trial i runs on a fresh simulated fabric seeded with seed+i-1 (seed is the
-- command line's --seed, or the one chosen and reported), injects a fault
-- drawn from that seed (or none), and drives one session through the
-- protocol: both submissions in a random order, then RUN (or sometimes
-- ABORT), a short wait and the close. A quarantined session's devices are
-- reset and its memory must come back. At the end: how many trials ended
-- each way, the oracle's violations, and for every failed trial the exact
-- command that replays it alone.

local n = tonumber(arg[1] or "100")
assert(n and n >= 1, "usage: campaign.lua [N]: N is a number of trials")
local base = resident.seed()
local script = arg[0] or "scripts/campaign.lua"

-- pick(k) draws a whole number from 1 to k from math.random, which each
-- trial seeds with its own seed: a trial's choices depend on its seed alone.
local pick = math.random

local faults = {
  {"gpu.dispatch", {"error(ring full)", "delay(20us)"}},
  {"npu.dispatch", {"error(command queue full)", "delay(50us)"}},
  {"gpu.run", {"hang", "crash(illegal instruction)", "delay(5us)", "ignore_abort"}},
  {"npu.run", {"hang", "crash(dma fault)", "delay(5us)", "ignore_abort"}},
  {"npu.drain", {"skip"}},
  {"gpu.complete", {"error(ecc error)"}},
  {"npu.complete", {"error(firmware timeout)"}},
  {"host.publish", {"error(doorbell write failed)", "skip"}},
  {"memory.alloc", {"error(out of memory)"}},
  {"payload.corrupt", {"flip"}},
}
local prefixes = {"", "", "50%", "1*", "2*"}

local function kind_of(err)
  if type(err) == "table" and err.kind then return err.kind end
  return nil
end

-- trial runs one trial and returns its outcome and, when it failed, why.
local function trial(seed)
  math.randomseed(seed)
  resident.fabric{mode = "sim", seed = seed}
  local before = #resident.violations()
  local fault = "none"
  if pick(5) > 1 then
    local site = faults[pick(#faults)]
    local term = prefixes[pick(#prefixes)] .. site[2][pick(#site[2])]
    resident.fault(site[1], term)
    fault = site[1] .. "=" .. term
  end

  -- step runs one protocol call: a protocol error is expected under faults
  -- (the first one is kept), any other error fails the trial.
  local first_error
  local function step(name, f, ...)
    local ok, res = pcall(f, ...)
    if not ok then
      local kind = kind_of(res)
      if not kind then return false, "script error in " .. name .. ": " .. tostring(res) end
      first_error = first_error or (kind .. " at " .. name)
      return nil
    end
    return true, res
  end

  local ok, s = pcall(startup, {gpu = pick(2) == 1 and "aql" or "pm4", rounds = pick(4),
    credits = pick(2), slot_bytes = pick(2) == 1 and 64 or 256})
  local outcome
  if not ok then
    local kind = kind_of(s)
    if not kind then return "failed", fault, "script error in startup: " .. tostring(s) end
    outcome = "startup refused (" .. kind .. ")"
  else
    local order = pick(2) == 1 and {s.submit_gpu, s.submit_npu} or {s.submit_npu, s.submit_gpu}
    for _, submit in ipairs(order) do
      local r, why = step("submit", submit, s)
      if r == false then return "failed", fault, why end
    end
    local r, why
    if s.state == "undecided" then
      if pick(7) == 1 then
        r, why = step("abort", s.abort, s)
      else
        r, why = step("start", s.start, s)
      end
      if r == false then return "failed", fault, why end
    end
    r, why = step("wait", s.wait, s, 0.01)
    if r == false then return "failed", fault, why end
    local closed
    r, closed = step("close", s.close, s, 0.01)
    if r == false then return "failed", fault, closed end
    outcome = tostring(closed)
    if first_error then outcome = outcome .. " after " .. first_error end
    -- The host's verification must catch a flipped bit or a forgotten drain,
    -- and fail for nothing else.
    local flipped, damaged = false, false
    for _, e in ipairs(s:events()) do
      if e.kind == "fault" then
        flipped = flipped or e.detail:find("^payload.corrupt") ~= nil
        damaged = damaged or flipped or e.detail:find("^npu.drain") ~= nil
      end
    end
    local v = s:stats().verification
    if v and not v.ok then
      outcome = outcome .. ", verification failed"
      if not damaged then
        return outcome, fault, "verification failed with no fault that damages the payload: " .. tostring(v.problem)
      end
    elseif v and flipped then
      return outcome, fault, "a flipped payload bit was not caught by verification"
    end
    if closed == "quarantined" then
      resident.reset("gpu")
      resident.reset("npu")
    end
  end
  resident.clear_faults()
  local b = resident.budget()
  if #resident.quarantined() > 0 or b.charged ~= 0 then
    return outcome, fault, string.format("memory not returned after reset: %d bytes charged, %d quarantined",
      b.charged, #resident.quarantined())
  end
  local violations = resident.violations()
  if #violations > before then
    local v = violations[#violations]
    return outcome, fault, "oracle violation: " .. tostring(v.message or v)
  end
  return outcome, fault, nil
end

local counts, order = {}, {}
local failures = {}
for i = 1, n do
  local seed = base + i - 1
  local outcome, fault, failure = trial(seed)
  if not counts[outcome] then
    counts[outcome] = 0
    order[#order + 1] = outcome
  end
  counts[outcome] = counts[outcome] + 1
  if failure then
    failures[#failures + 1] = {seed = seed, fault = fault, why = failure}
  end
end

table.sort(order, function(a, b) return counts[a] > counts[b] or counts[a] == counts[b] and a < b end)
print(string.format("campaign: %d trials, seeds %d..%d, simulated time", n, base, base + n - 1))
for _, outcome in ipairs(order) do
  print(string.format("%6d  %s", counts[outcome], outcome))
end
print(string.format("oracle violations: %d", #resident.violations()))
print(string.format("failures: %d", #failures))
for _, f in ipairs(failures) do
  print(string.format("FAIL seed %d (fault %s): %s", f.seed, f.fault, f.why))
  print(string.format("  replay: residentlua --mode sim --seed %d %s 1", f.seed, script))
end
if #failures > 0 then os.exit(1) end
