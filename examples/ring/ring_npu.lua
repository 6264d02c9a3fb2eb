-- A ring mailbox, the NPU half; pair it with ring_gpu.lua. The NPU waits
-- for each message's flag, reads the slot in by DMA, returns the slot's
-- credit (drained at once: its view is not coherent), and counts the words
-- that are not the message's. At the end it writes the count of messages
-- and of wrong words; its check wants every message and no wrong word.
local function value(m, i) return (m * 7919 + i * 104729) % 4294967296 end
return {
	buffers = function(a) return {data = a.slots * a.words * 4, flags = 256, result = 64} end,
	run = function(p, a)
		local line, data, flags, result = p.startup, p.buffers.data, p.buffers.flags, p.buffers.result
		local seen = p:load(line, 0)
		while seen == p.WAIT do seen = p:wait(line, 0, seen) end
		p:event("observe", seen)
		if seen ~= p.RUN then return end
		local bad, words = 0, {}
		for m = 1, a.msgs do
			local s = (m - 1) % a.slots
			local r = p:load(flags, 4 * s)
			while r < m do r = p:wait(flags, 4 * s, r) end
			p:read(data, s * a.words * 4, a.words, words)
			p:store(flags, 128 + 4 * s, m)
			p:drain(flags)
			for i = 1, a.words do if words[i] ~= value(m, i) then bad = bad + 1 end end
		end
		p:write(result, 0, {a.msgs, bad})
		p:drain(result)
	end,
	check = function(c, a)
		local n, bad = c:load(c.buffers.result, 0), c:load(c.buffers.result, 4)
		if n ~= a.msgs then return false, "the NPU received " .. n .. " messages, want " .. a.msgs end
		if bad ~= 0 then return false, bad .. " words arrived wrong: a message was read before it was written, or overwritten" end
		return true
	end,
}
