-- NPU: waits for each chunk's flag in order, sums its words, stores the sum.
return {
	buffers = function(a) return {data = a.chunks * a.words * 4, flags = 4 * a.chunks, result = 8} end,
	run = function(p, a)
		local seen = p:load(p.startup, 0)
		while seen == p.WAIT do seen = p:wait(p.startup, 0, seen) end
		p:event("observe", seen)
		if seen ~= p.RUN then return end
		local data, flags = p.buffers.data, p.buffers.flags
		local sum = 0
		for k = 0, a.chunks - 1 do
			local f = p:load(flags, 4 * k)
			while f == 0 do f = p:wait(flags, 4 * k, f) end
			local w = p:read(data, k * a.words * 4, a.words)
			for i = 1, #w do sum = sum + w[i] end
		end
		p:store(p.buffers.result, 0, sum % 4294967296)
		p:drain(p.buffers.result)
	end,
	check = function(c, a)
		local want = 0
		for k = 0, a.chunks - 1 do for i = 1, a.words do want = want + (k + 1) * 1000 + i end end
		want = want % 4294967296
		local got = c:load(c.buffers.result, 0)
		if got ~= want then return false, "sum " .. got .. ", want " .. want end
		return true
	end,
}
