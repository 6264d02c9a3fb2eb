-- A sweep of the mailbox pair over the words of a message, in simulated
-- time under the published timing: trial i sends 4 messages of
-- sizes[i % 5 + 1] words and records the time from the decision until both
-- programs retired, under the message's size. The published stall (up to
-- 100 us, one step in eight) is a bound for exploring orders, not a
-- measurement: a latency figure takes a stall of 10 us, which keeps the
-- figures' spread without drowning a line's DMA in it.
trial_fabric = {timing = {profile = "published", stall = "10us"}}
local gpu = resident.program{file = "gpu.lua"}
local npu = resident.program{file = "npu.lua"}
local sizes = {4, 8, 16, 32, 64}

function trial(t)
	local words = sizes[t.index % #sizes + 1]
	local s = resident.startup{gpu = gpu, npu = npu, args = {msgs = 4, words = words}}
	s:submit_gpu(); s:submit_npu(); s:start()
	if not s:wait(1) then t.fail("the session did not retire") end
	local st = s:stats()
	t.record(string.format("%02d words", words), math.max(st.gpu.retired, st.npu.retired) - st.decided)
	return s:close()
end
