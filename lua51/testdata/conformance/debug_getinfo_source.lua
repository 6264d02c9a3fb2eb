-- debug.getinfo's source is the chunkname a function was loaded with,
-- short_src its chunk id, and only the options asked for are set.
local function show(i)
  print(i.source, i.short_src, i.what, i.linedefined, i.currentline, i.func ~= nil)
end
show(debug.getinfo(1, "S"))
show(debug.getinfo(1, "l"))
show(debug.getinfo(show))
show(debug.getinfo(print))
show(debug.getinfo(assert(load(function() return nil end, "modname"))))
show(debug.getinfo(assert(loadstring("return 1"))))
show(debug.getinfo(assert(loadstring("return 1", "=named"))))
show(debug.getinfo(assert(loadstring(("x = 1\n"):rep(3) .. ("-"):rep(80)))))
print(pcall(function() show(debug.getinfo(1)) end))
print(debug.getinfo(100))
