-- campaign.lua: N seeded randomized protocol trials with random faults, in
-- simulated time.
--
--   residentlua --mode sim --seed 1000 scripts/campaign.lua [N [sessions [faults]]]
--
-- Trial i is resident.trial{seed = seed + i - 1} (seed is the command line's
-- --seed, or the one chosen and reported): the engine's campaign harness,
-- which on a simulated fabric of its own opens sessions one after another,
-- submits them in a random order, starts or aborts, waits with random
-- deadlines, closes, arms up to `faults` random fault sites (default 3),
-- resets quarantined devices, and checks every step with the oracle. A trial
-- depends on its seed alone, so a failed one replays by itself. At the end:
-- how the sessions ended, which faults fired, the oracle's violations, and
-- for every failed trial the command that replays it with its whole report.

local n = tonumber(arg[1] or "100")
assert(n and n >= 1, "usage: campaign.lua [N [sessions [faults]]]: N is a number of trials")
local sessions = tonumber(arg[2])
local faults = tonumber(arg[3])
local base = resident.seed()
local script = arg[0] or "scripts/campaign.lua"
local replaying = n == 1

local outcomes, fired = {}, {}
local violations, failures = 0, {}
for i = 1, n do
  local r = resident.trial{seed = base + i - 1, sessions = sessions, faults = faults}
  for outcome, count in pairs(r.outcomes) do
    outcomes[outcome] = (outcomes[outcome] or 0) + count
  end
  for fault, count in pairs(r.fired) do
    fired[fault] = (fired[fault] or 0) + count
  end
  violations = violations + #r.violations
  if not r.ok then
    failures[#failures + 1] = r
  end
  if replaying then
    print(r.report)
  end
end

-- sortedByCount lists a table's keys, the largest count first.
local function sortedByCount(counts)
  local keys = {}
  for k in pairs(counts) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return counts[a] > counts[b] or counts[a] == counts[b] and a < b end)
  return keys
end

print(string.format("campaign: %d trials, seeds %d..%d, simulated time", n, base, base + n - 1))
print("sessions:")
for _, outcome in ipairs(sortedByCount(outcomes)) do
  print(string.format("%8d  %s", outcomes[outcome], outcome))
end
print("faults fired:")
for _, fault in ipairs(sortedByCount(fired)) do
  print(string.format("%8d  %s", fired[fault], fault))
end
print(string.format("oracle violations: %d", violations))
print(string.format("failures: %d", #failures))
for _, r in ipairs(failures) do
  local why = r.violations[1] and r.violations[1].message or r.problems[1] or "not settled"
  print(string.format("FAIL seed %d (faults %s): %s", r.seed, table.concat(r.faults, ", "), why))
  print(string.format("  replay: residentlua --mode sim --seed %d %s 1", r.seed, script))
end
if #failures > 0 then os.exit(1) end
