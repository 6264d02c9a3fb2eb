-- Numbers print with %.14g: print and tostring.
print(0.1 + 0.2, 1/3, 2^53, 1e16, 1/0, -1/0, 1e100, 123456789012345)
print(tostring(0.1 + 0.2), tostring(1/3), tostring(2^53), tostring(1e16), tostring(1/0), tostring(-1/0))
print(1e15, 1e14, 123456789012345678, 2^63, -2^63, 1e-5, 5e-324, 1.5, 100, -100.25, 2^31, 3.0, -7)
local z = 0
print(-z, 0 * -1, tostring(-z))
