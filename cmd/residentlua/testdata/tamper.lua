-- A campaign of a program that tampers with what it reaches: each trial
-- runs a session of it, which first checks that nothing an earlier
-- invocation did is seen (retiring with "leaked: ..." otherwise), then
-- tampers by the route of the trial's index. The pmeta route breaks its
-- own invocation (p.load = nil), a failure that must replay.
local routes = {"fenv0", "gmeta", "string", "pmeta", "fenv2", "smeta"}
local src = [==[
local route = ...
return function(p, args)
	local bad = {}
	if getfenv(0).tampered then bad[#bad+1] = "getfenv(0)" end
	if getmetatable(_G) then bad[#bad+1] = "metatable of _G" end
	if string.tampered or ("").tampered then bad[#bad+1] = "string" end
	if rawget(p, "tampered") or getmetatable(p) then bad[#bad+1] = "p" end
	if getmetatable("").__add == nil then end
	if x ~= nil then bad[#bad+1] = "global x" end
	if #bad > 0 then p:retire("leaked: " .. table.concat(bad, ", ")) end
	local r = args.route
	if r == "fenv0" then getfenv(0).tampered = true; getfenv(0).x = 1
	elseif r == "gmeta" then setmetatable(_G, {__index = {tampered = true, x = 2}})
	elseif r == "string" then string.tampered = true; getmetatable("").__index = {tampered = true}
	elseif r == "pmeta" then p.tampered = true; p.load = nil
	elseif r == "fenv2" then local ok, e = pcall(getfenv, 2); if ok and type(e) == "table" and e.finished then e.finished() end
	elseif r == "smeta" then getmetatable("").__index.tampered = true; getmetatable("").__concat = function() return "x" end
	end
	x = 5
	while p:load(p.startup, 0) == p.WAIT do end
end
]==]
local gpu = resident.program{source = src, name = "tamper"}
local npu = resident.program{source = "return function(p) while p:load(p.startup, 0) == p.WAIT do end end", name = "npu"}
function trial(t)
	local route = routes[t.index % #routes + 1]
	local s = resident.startup{gpu = gpu, npu = npu, args = {route = route}}
	s:submit_gpu(); s:submit_npu(); s:start()
	local ok, err = pcall(s.wait, s, 1)
	local closed = s:close()
	if not ok then t.fail(route .. ": " .. tostring(err)); resident.reset("gpu0"); resident.reset("npu0") end
	t.record(route, 1)
end
