-- A ring mailbox, the GPU half: msgs messages of words words each, through
-- slots slots of data. Slot s has a ready flag at byte 4*s of flags (the
-- GPU's: the last message it put in the slot) and a credit at 128+4*s (the
-- NPU's: the last message it took out). The GPU writes message m into slot
-- (m-1) % slots once the NPU took out the slot's previous message, then
-- raises the slot's flag with a release store, which publishes the data.
-- Pair it with ring_npu.lua, args {slots = 2, msgs = 3, words = 2}.
local function value(m, i) return (m * 7919 + i * 104729) % 4294967296 end
return {
	buffers = function(a) return {data = a.slots * a.words * 4, flags = 256, result = 64} end,
	run = function(p, a)
		local line, data, flags = p.startup, p.buffers.data, p.buffers.flags
		local seen = p:load(line, 0)
		while seen == p.WAIT do seen = p:wait(line, 0, seen) end
		p:event("observe", seen)
		if seen ~= p.RUN then return end
		local words = {}
		for m = 1, a.msgs do
			local s = (m - 1) % a.slots
			if m > a.slots then
				local c = p:load(flags, 128 + 4 * s)
				while c < m - a.slots do c = p:wait(flags, 128 + 4 * s, c) end
			end
			for i = 1, a.words do words[i] = value(m, i) end
			p:write(data, s * a.words * 4, words)
			p:store(flags, 4 * s, m)
		end
	end,
}
