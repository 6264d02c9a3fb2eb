-- x ^ y is glibc's pow, rounded correctly: Go's math.Pow can be a unit in the last place off,
-- which 1 % v can turn into a difference that %.14g shows.
local e2 = 1/3^2
print(string.format("%.17g %.17g", e2 ^ 3, 1 % (e2 ^ 3)), 1 % (e2 ^ 3) * 2)
print(string.format("%.17g", 3.9967746539026381 ^ -14))
print(string.format("%.17g", 37.229780125073056 ^ -3.487768728978824))
print(string.format("%.17g", 17.616918132462033 ^ -1.0163387148717129))
print(string.format("%.17g", 0.050000000000000003 ^ 0.75))
print(string.format("%.17g", 2.3248496941872174e-07 ^ 1.4423885203164017))
print(string.format("%.17g", 55.581407228289827 ^ 8.1803453518917539))
print(string.format("%.17g", 70.750335823162615 ^ 5.4869421364213071))
print(string.format("%.17g", 1.7154252606723467e+209 ^ 1.3809444447424934))
print(string.format("%.17g", 0.083333333333333329 ^ 0.2857142857142857))
print(string.format("%.17g", 8.207507998779187 ^ -15))
print((-2) ^ 3, (-8) ^ (1/3), 2 ^ -1074, 2 ^ 0.5, 10 ^ 15, 3 ^ 40)
