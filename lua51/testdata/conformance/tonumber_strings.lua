-- tonumber accepts what strtod does: exponents, surrounding white space
-- (\r included), hexadecimal; nothing may follow.
print(tonumber("1e3"), tonumber("12\r"), tonumber(" 0x10 "), tonumber("  12  "), tonumber("\t5\n"))
print(tonumber("0x"), tonumber(""), tonumber(" "), tonumber("1e"), tonumber("12a"), tonumber("1 2"))
print(tonumber("-1.5e-2"), tonumber(".5"), tonumber("5."), tonumber("0xFF"), tonumber("1E+2"), tonumber("+3"))
print(tonumber(12), tonumber(nil), tonumber({}), tonumber(true))
