-- NaN prints as glibc's printf writes it: 0/0 on x86-64 has its sign bit set.
local z = 0
print(z / z, -(z / z), tostring(z / z))
local nan = z / z
print(nan ~= nan, nan == nan)
