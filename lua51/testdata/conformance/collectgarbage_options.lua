-- collectgarbage's options and the types of their results.
print(type(collectgarbage("count")), collectgarbage("count") > 0)
print(collectgarbage("collect"), collectgarbage())
print(type(collectgarbage("step")))
print(collectgarbage("setpause", 200), collectgarbage("setstepmul", 200))
print(collectgarbage("stop"), collectgarbage("restart"))
print(pcall(function() return collectgarbage("bogus") end))
