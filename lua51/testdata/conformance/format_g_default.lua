-- %g has a default precision of 6.
print(string.format("%g", 123456789), string.format("%g", 0.1), string.format("%g", 1e-5))
print(string.format("%g", 100000), string.format("%g", 1e6), string.format("%g", 1/3), string.format("%g", 2^53))
print(string.format("%.3g|%10g|%-10g|%G", 1234.5678, 1.5, 2.5, 1e-20))
