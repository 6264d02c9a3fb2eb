-- os.clock is a number of seconds of processor time, and it does not go back.
local t1 = os.clock()
print(type(t1), t1 >= 0)
local x = 0
for i = 1, 200000 do x = x + i end
local t2 = os.clock()
print(t2 >= t1, t2 - t1 < 60)
