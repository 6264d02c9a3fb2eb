-- A fault campaign of the built-in exchange's Lua text (programs/): each
-- trial is the randomized protocol trial (random faults at random sites,
-- random host operations, every invariant watched) with the two Lua
-- programs in place of the built-in exchange. Run it from the repository's
-- root, on every core:
--
--   go run ./cmd/residentlua campaign scripts/program_campaign.lua --trials 10000
--
-- A trial fails when the trial's oracle finds a violation or the harness a
-- problem; its replay command reruns it alone.

local gpu = resident.program{file = "programs/exchange/exchange_gpu.lua"}
local npu = resident.program{file = "programs/exchange/exchange_npu.lua"}

function trial(t)
	local r = resident.trial{seed = t.seed, gpu = gpu, npu = npu}
	for _, v in ipairs(r.violations) do
		t.fail("invariant " .. v.invariant .. " in session " .. v.session .. ": " .. v.message)
	end
	for _, p in ipairs(r.problems) do
		t.fail(p)
	end
	t.record("events", r.events)
	for outcome, n in pairs(r.outcomes) do
		t.record("sessions " .. outcome, n)
	end
end

if arg and arg[-1] ~= "campaign" then -- run directly, not by a campaign
	-- Run directly, it runs one trial and says how to run many.
	local records = {}
	trial{
		seed = resident.seed(), index = 0, random = math.random,
		record = function(name, value) records[#records + 1] = string.format("%s = %s", name, value) end,
		fail = function(msg) error(msg, 2) end,
	}
	table.sort(records)
	print("one trial, seed " .. resident.seed() .. ", no violation")
	for _, r in ipairs(records) do print("  " .. r) end
	print("for a campaign: residentlua campaign " .. arg[0] .. " --trials 10000")
end
