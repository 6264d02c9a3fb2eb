-- A syntax error in the script itself: nothing runs, lua.c prints the
-- message and exits with status 1.
print("never printed")
local x = = 1
