-- GPU: writes args.chunks chunks of args.words words, raising flag k after chunk k.
return {
	buffers = function(a) return {data = a.chunks * a.words * 4, flags = 4 * a.chunks, result = 8} end,
	run = function(p, a)
		local seen = p:load(p.startup, 0)
		while seen == p.WAIT do seen = p:wait(p.startup, 0, seen) end
		p:event("observe", seen)
		if seen ~= p.RUN then return end
		local data, flags = p.buffers.data, p.buffers.flags
		for k = 0, a.chunks - 1 do
			local w = {}
			for i = 1, a.words do w[i] = (k + 1) * 1000 + i end
			p:write(data, k * a.words * 4, w)
			p:store(flags, 4 * k, 1)
		end
	end,
}
