-- A one-slot mailbox, the GPU half: msgs messages of words words each. The
-- GPU waits for the NPU's credit for the previous message, writes the
-- message into the slot, raises the slot's flag (byte 0 of flags) with a
-- release store, and counts the message as written (byte 8), another
-- release store. Pair it with npu.lua, args {msgs = 4, words = 16}.
local function value(m, i) return (m * 7919 + i * 104729) % 4294967296 end
return {
	buffers = function(a) return {data = a.words * 4, flags = 256, result = 64} end,
	run = function(p, a)
		local data, flags = p.buffers.data, p.buffers.flags
		local seen = p:load(p.startup, 0)
		while seen == p.WAIT do seen = p:wait(p.startup, 0, seen) end
		p:event("observe", seen)
		if seen ~= p.RUN then return end
		local words = {}
		for m = 1, a.msgs do
			if m > 1 then
				local c = p:load(flags, 128)
				while c < m - 1 do c = p:wait(flags, 128, c) end
			end
			for i = 1, a.words do words[i] = value(m, i) end
			p:write(data, 0, words)
			p:store(flags, 0, m)
			p:store(flags, 8, m)
		end
	end,
}
