-- An uncaught runtime error ends the script after what it printed: lua.c
-- prints the message (and a traceback) and exits with status 1.
print("before")
io.write("partial line ")
local function f() error("fatal problem") end
f()
print("never printed")
