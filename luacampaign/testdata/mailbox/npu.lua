-- A one-slot mailbox, the NPU half; pair it with gpu.lua. The NPU waits for
-- each message's flag, reads the slot in by DMA, returns the credit
-- (drained at once: its view is not coherent) and counts the words that
-- are not the message's. At the end it writes the count of messages and of
-- wrong words; its check wants every message and no wrong word.
local function value(m, i) return (m * 7919 + i * 104729) % 4294967296 end
return {
	buffers = function(a) return {data = a.words * 4, flags = 256, result = 64} end,
	run = function(p, a)
		local data, flags, result = p.buffers.data, p.buffers.flags, p.buffers.result
		local seen = p:load(p.startup, 0)
		while seen == p.WAIT do seen = p:wait(p.startup, 0, seen) end
		p:event("observe", seen)
		if seen ~= p.RUN then return end
		local bad, words = 0, {}
		for m = 1, a.msgs do
			local r = p:load(flags, 0)
			while r < m do r = p:wait(flags, 0, r) end
			p:read(data, 0, a.words, words)
			p:store(flags, 128, m)
			p:drain(flags)
			for i = 1, a.words do if words[i] ~= value(m, i) then bad = bad + 1 end end
		end
		p:write(result, 0, {a.msgs, bad})
		p:drain(result)
	end,
	check = function(c, a)
		local n, bad = c:load(c.buffers.result, 0), c:load(c.buffers.result, 4)
		if n ~= a.msgs then return false, "the NPU received " .. n .. " messages, want " .. a.msgs end
		if bad ~= 0 then return false, bad .. " words arrived wrong: a message was read before it was written" end
		return true
	end,
}
