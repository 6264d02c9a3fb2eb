package lua51

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// The expected results of patternCases were printed by the reference
// interpreter (Debian's lua5.1, Lua 5.1.5); the test itself does not need it.
// To check the recorded results against it, and print the table afresh with
// its results (between the "cases" markers) after adding cases:
//
//	go test ./lua51/ -run TestPatternCases -v -args -pattern.lua51=lua5.1
var patternLua51 = flag.String("pattern.lua51", "", "run the pattern cases through this Lua 5.1 interpreter and print the case table with its results")

// patternPrelude is loaded (as chunk "prelude") before the cases, in
// gopher-lua and in lua5.1 alike:
//   - pack(...) returns the values and their number (n);
//   - G(s, p) returns the captures of every iteration of s:gmatch(p), each
//     iteration's after a "[" marker (at most 50 iterations);
//   - ALL is the 256 bytes in order, for testing classes;
//   - upper(t) is t with an __index that gives a string key in upper case.
const patternPrelude = `function pack(...) return {n = select("#", ...), ...} end
function G(s, p) local out, it = {}, string.gmatch(s, p) for i = 1, 50 do local r = pack(it()) if r.n == 0 then break end out[#out + 1] = "[" for j = 1, r.n do out[#out + 1] = r[j] end end return unpack(out) end
ALL = "" for i = 0, 255 do ALL = ALL .. string.char(i) end
function upper(t) return setmetatable(t, {__index = function(_, k) return type(k) == "string" and k:upper() or nil end}) end
`

// patternCase is a Lua expression list (evaluated as the arguments of pack
// in a chunk named "case") and what Lua 5.1 returns for it, as patternShow
// writes it.
type patternCase struct{ code, want string }

// patternCases: see patternLua51 for where the results come from.
var patternCases = []patternCase{
	// cases
	{`("hello world"):find("o w")`, `ok: 5, 7`},
	{`("hello"):find("l")`, `ok: 3, 3`},
	{`("hello"):find("xyz")`, `ok: nil`},
	{`("hello"):find("")`, `ok: 1, 0`},
	{`("hello"):find("", 10)`, `ok: 6, 5`},
	{`("hello"):find("", 6)`, `ok: 6, 5`},
	{`("hello"):find("", 5)`, `ok: 5, 4`},
	{`("hello"):find("", -1)`, `ok: 5, 4`},
	{`("hello"):find("l", -2)`, `ok: 4, 4`},
	{`("hello"):find("l", -100)`, `ok: 3, 3`},
	{`("hello"):find("h", 0)`, `ok: 1, 1`},
	{`("hello"):find("l", 1e100)`, `ok: 3, 3`},
	{`("hello"):find("l", -1e100)`, `ok: 3, 3`},
	{`("hello"):find("l", 0/0)`, `ok: 3, 3`},
	{`("hello"):find("l", "3")`, `ok: 3, 3`},
	{`("hello"):find("l", " 0x3 ")`, `ok: 3, 3`},
	{`("hello"):find("l", "3\r")`, `ok: 3, 3`},
	{`("hello"):find("l", 2.9)`, `ok: 3, 3`},
	{`("hello"):find("l", -2.5)`, `ok: 4, 4`},
	{`("hello"):find("l", nil)`, `ok: 3, 3`},
	{`("hello"):find("l", nil, true)`, `ok: 3, 3`},
	{`("hello"):find("l+", 1, false)`, `ok: 3, 4`},
	{`("hello"):find("l+", 1, nil)`, `ok: 3, 4`},
	{`("hello"):find("l+", 1, 0)`, `ok: nil`},
	{`("hello"):find("l+", 1, "")`, `ok: nil`},
	{`("a.b"):find(".", 1, true)`, `ok: 2, 2`},
	{`("a.b"):find(".")`, `ok: 1, 1`},
	{`("a+b"):find("+", 1, 1)`, `ok: 2, 2`},
	{`("a+b"):find("+")`, `ok: 2, 2`},
	{`("a%b"):find("%", 1, true)`, `ok: 2, 2`},
	{`("a%b"):find("%")`, `error: "case:1: malformed pattern (ends with '%')"`},
	{`("a(b"):find("(", 1, true)`, `ok: 2, 2`},
	{`("a(b"):find("(")`, `error: "case:1: unfinished capture"`},
	{`("a[b"):find("[", 1, true)`, `ok: 2, 2`},
	{`("a[b"):find("[")`, `error: "case:1: malformed pattern (missing ']')"`},
	{`("a]b"):find("]")`, `ok: 2, 2`},
	{`("a^b"):find("^b")`, `ok: nil`},
	{`("a^b"):find("a^b")`, `ok: 1, 3`},
	{`("a$b"):find("$b")`, `ok: 2, 3`},
	{`("a$b"):find("a$b")`, `ok: 1, 3`},
	{`("a$b"):find("$", 1, true)`, `ok: 2, 2`},
	{`("a-b"):find("-")`, `ok: 2, 2`},
	{`("a?b"):find("?")`, `ok: 2, 2`},
	{`("a*b"):find("*")`, `ok: 2, 2`},
	{`("aXb"):find("X", 10)`, `ok: nil`},
	{`("hello"):find("lo", 4)`, `ok: 4, 5`},
	{`("hello"):find("lo", 5)`, `ok: nil`},
	{`("hello"):find("hello!")`, `ok: nil`},
	{`("hello"):find("", 100, true)`, `ok: 6, 5`},
	{`("a\0b"):find("\0")`, `ok: 2, 2`},
	{`("a\0b"):find("\0b")`, `ok: 2, 3`},
	{`("a\0b"):find("b\0")`, `ok: nil`},
	{`("a\0b"):find("%z")`, `ok: 2, 2`},
	{`("a\0b.c"):find("\0b.")`, `ok: 2, 4`},
	{`("a\0b.c"):find(".\0")`, `ok: 1, 1`},
	{`("x\0."):find("x\0.")`, `ok: 1, 3`},
	{`("a\0b"):match("\0b")`, `ok: ""`},
	{`("a\0b"):match("b\0")`, `ok: "b"`},
	{`("a\0b"):match("[%z]")`, `ok: "\000"`},
	{`("a\0b"):match("[\0]")`, `error: "case:1: malformed pattern (missing ']')"`},
	{`("a\0b"):match("%Z+")`, `ok: "a"`},
	{`("a\0b"):match(".+")`, `ok: "a\000b"`},
	{`("a\0b"):match("a%z()")`, `ok: 3`},
	{`("a\0b"):match("%f[%z]()")`, `ok: 2`},
	{`("a\0b"):gsub("%z", "0")`, `ok: "a0b", 1`},
	{`("a\0b"):gsub("\0", "0")`, `ok: "0a0\0000b0", 4`},
	{`("abc"):gsub("b", "\0")`, `ok: "a\000c", 1`},
	{`("abc"):gsub("b", "x\0y")`, `ok: "ax\000yc", 1`},
	{`("a\0b\0c"):gsub("[^%z]", "%0%0")`, `ok: "aa\000bb\000cc", 3`},
	{`("a\0b"):find("b", -1)`, `ok: 3, 3`},
	{`string.find(12345, 34)`, `ok: 3, 4`},
	{`string.find(12345, 34, 2, true)`, `ok: 3, 4`},
	{`string.find(1.5, ".", 1, true)`, `ok: 2, 2`},
	{`string.find(1.5, ".")`, `ok: 1, 1`},
	{`string.match(2^53, "%d+")`, `ok: "9"`},
	{`string.match(2^53, ".+")`, `ok: "9.007199254741e+15"`},
	{`string.match(0.1 + 0.2, ".+")`, `ok: "0.3"`},
	{`string.match(1/3, ".+")`, `ok: "0.33333333333333"`},
	{`string.match(1/0, ".+")`, `ok: "inf"`},
	{`string.match(-1/0, ".+")`, `ok: "-inf"`},
	{`string.match(1e16, ".+")`, `ok: "1e+16"`},
	{`string.match(-0.0, ".+")`, `ok: "-0"`},
	{`string.gsub(0.1, "%.", ",")`, `ok: "0,1", 1`},
	{`string.gsub("x", "x", 0.1 + 0.2)`, `ok: "0.3", 1`},
	{`string.gsub("x", "x", 1/0)`, `ok: "inf", 1`},
	{`string.gsub("x", "x", 2^53)`, `ok: "9.007199254741e+15", 1`},
	{`string.gsub(1234, 2, 9)`, `ok: "1934", 1`},
	{`string.gsub("a1b", 1, "%0%0")`, `ok: "a11b", 1`},
	{`string.find(1e100, "e")`, `ok: 2, 2`},
	{`string.find("x1e+100y", 1e100)`, `ok: nil`},
	{`string.match("abc", 98)`, `ok: nil`},
	{`(ALL:gsub("%A", ""))`, `ok: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"`},
	{`(ALL:gsub("%a", ""))`, "ok: \"\\000\\001\\002\\003\\004\\005\\006\\007\\008\\009\\010\\011\\012\\013\\014\\015\\016\\017\\018\\019\\020\\021\\022\\023\\024\\025\\026\\027\\028\\029\\030\\031 !\\034#$%&'()*+,-./0123456789:;<=>?@[\\092]^_`{|}~\\127\\128\\129\\130\\131\\132\\133\\134\\135\\136\\137\\138\\139\\140\\141\\142\\143\\144\\145\\146\\147\\148\\149\\150\\151\\152\\153\\154\\155\\156\\157\\158\\159\\160\\161\\162\\163\\164\\165\\166\\167\\168\\169\\170\\171\\172\\173\\174\\175\\176\\177\\178\\179\\180\\181\\182\\183\\184\\185\\186\\187\\188\\189\\190\\191\\192\\193\\194\\195\\196\\197\\198\\199\\200\\201\\202\\203\\204\\205\\206\\207\\208\\209\\210\\211\\212\\213\\214\\215\\216\\217\\218\\219\\220\\221\\222\\223\\224\\225\\226\\227\\228\\229\\230\\231\\232\\233\\234\\235\\236\\237\\238\\239\\240\\241\\242\\243\\244\\245\\246\\247\\248\\249\\250\\251\\252\\253\\254\\255\""},
	{`(ALL:gsub("%C", ""))`, `ok: "\000\001\002\003\004\005\006\007\008\009\010\011\012\013\014\015\016\017\018\019\020\021\022\023\024\025\026\027\028\029\030\031\127"`},
	{`(ALL:gsub("%c", ""))`, "ok: \" !\\034#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\092]^_`abcdefghijklmnopqrstuvwxyz{|}~\\128\\129\\130\\131\\132\\133\\134\\135\\136\\137\\138\\139\\140\\141\\142\\143\\144\\145\\146\\147\\148\\149\\150\\151\\152\\153\\154\\155\\156\\157\\158\\159\\160\\161\\162\\163\\164\\165\\166\\167\\168\\169\\170\\171\\172\\173\\174\\175\\176\\177\\178\\179\\180\\181\\182\\183\\184\\185\\186\\187\\188\\189\\190\\191\\192\\193\\194\\195\\196\\197\\198\\199\\200\\201\\202\\203\\204\\205\\206\\207\\208\\209\\210\\211\\212\\213\\214\\215\\216\\217\\218\\219\\220\\221\\222\\223\\224\\225\\226\\227\\228\\229\\230\\231\\232\\233\\234\\235\\236\\237\\238\\239\\240\\241\\242\\243\\244\\245\\246\\247\\248\\249\\250\\251\\252\\253\\254\\255\""},
	{`(ALL:gsub("%D", ""))`, `ok: "0123456789"`},
	{`(ALL:gsub("%d", ""))`, "ok: \"\\000\\001\\002\\003\\004\\005\\006\\007\\008\\009\\010\\011\\012\\013\\014\\015\\016\\017\\018\\019\\020\\021\\022\\023\\024\\025\\026\\027\\028\\029\\030\\031 !\\034#$%&'()*+,-./:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\092]^_`abcdefghijklmnopqrstuvwxyz{|}~\\127\\128\\129\\130\\131\\132\\133\\134\\135\\136\\137\\138\\139\\140\\141\\142\\143\\144\\145\\146\\147\\148\\149\\150\\151\\152\\153\\154\\155\\156\\157\\158\\159\\160\\161\\162\\163\\164\\165\\166\\167\\168\\169\\170\\171\\172\\173\\174\\175\\176\\177\\178\\179\\180\\181\\182\\183\\184\\185\\186\\187\\188\\189\\190\\191\\192\\193\\194\\195\\196\\197\\198\\199\\200\\201\\202\\203\\204\\205\\206\\207\\208\\209\\210\\211\\212\\213\\214\\215\\216\\217\\218\\219\\220\\221\\222\\223\\224\\225\\226\\227\\228\\229\\230\\231\\232\\233\\234\\235\\236\\237\\238\\239\\240\\241\\242\\243\\244\\245\\246\\247\\248\\249\\250\\251\\252\\253\\254\\255\""},
	{`(ALL:gsub("%L", ""))`, `ok: "abcdefghijklmnopqrstuvwxyz"`},
	{`(ALL:gsub("%l", ""))`, "ok: \"\\000\\001\\002\\003\\004\\005\\006\\007\\008\\009\\010\\011\\012\\013\\014\\015\\016\\017\\018\\019\\020\\021\\022\\023\\024\\025\\026\\027\\028\\029\\030\\031 !\\034#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\092]^_`{|}~\\127\\128\\129\\130\\131\\132\\133\\134\\135\\136\\137\\138\\139\\140\\141\\142\\143\\144\\145\\146\\147\\148\\149\\150\\151\\152\\153\\154\\155\\156\\157\\158\\159\\160\\161\\162\\163\\164\\165\\166\\167\\168\\169\\170\\171\\172\\173\\174\\175\\176\\177\\178\\179\\180\\181\\182\\183\\184\\185\\186\\187\\188\\189\\190\\191\\192\\193\\194\\195\\196\\197\\198\\199\\200\\201\\202\\203\\204\\205\\206\\207\\208\\209\\210\\211\\212\\213\\214\\215\\216\\217\\218\\219\\220\\221\\222\\223\\224\\225\\226\\227\\228\\229\\230\\231\\232\\233\\234\\235\\236\\237\\238\\239\\240\\241\\242\\243\\244\\245\\246\\247\\248\\249\\250\\251\\252\\253\\254\\255\""},
	{`(ALL:gsub("%P", ""))`, "ok: \"!\\034#$%&'()*+,-./:;<=>?@[\\092]^_`{|}~\""},
	{`(ALL:gsub("%p", ""))`, `ok: "\000\001\002\003\004\005\006\007\008\009\010\011\012\013\014\015\016\017\018\019\020\021\022\023\024\025\026\027\028\029\030\031 0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz\127\128\129\130\131\132\133\134\135\136\137\138\139\140\141\142\143\144\145\146\147\148\149\150\151\152\153\154\155\156\157\158\159\160\161\162\163\164\165\166\167\168\169\170\171\172\173\174\175\176\177\178\179\180\181\182\183\184\185\186\187\188\189\190\191\192\193\194\195\196\197\198\199\200\201\202\203\204\205\206\207\208\209\210\211\212\213\214\215\216\217\218\219\220\221\222\223\224\225\226\227\228\229\230\231\232\233\234\235\236\237\238\239\240\241\242\243\244\245\246\247\248\249\250\251\252\253\254\255"`},
	{`(ALL:gsub("%S", ""))`, `ok: "\009\010\011\012\013 "`},
	{`(ALL:gsub("%s", ""))`, "ok: \"\\000\\001\\002\\003\\004\\005\\006\\007\\008\\014\\015\\016\\017\\018\\019\\020\\021\\022\\023\\024\\025\\026\\027\\028\\029\\030\\031!\\034#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\092]^_`abcdefghijklmnopqrstuvwxyz{|}~\\127\\128\\129\\130\\131\\132\\133\\134\\135\\136\\137\\138\\139\\140\\141\\142\\143\\144\\145\\146\\147\\148\\149\\150\\151\\152\\153\\154\\155\\156\\157\\158\\159\\160\\161\\162\\163\\164\\165\\166\\167\\168\\169\\170\\171\\172\\173\\174\\175\\176\\177\\178\\179\\180\\181\\182\\183\\184\\185\\186\\187\\188\\189\\190\\191\\192\\193\\194\\195\\196\\197\\198\\199\\200\\201\\202\\203\\204\\205\\206\\207\\208\\209\\210\\211\\212\\213\\214\\215\\216\\217\\218\\219\\220\\221\\222\\223\\224\\225\\226\\227\\228\\229\\230\\231\\232\\233\\234\\235\\236\\237\\238\\239\\240\\241\\242\\243\\244\\245\\246\\247\\248\\249\\250\\251\\252\\253\\254\\255\""},
	{`(ALL:gsub("%U", ""))`, `ok: "ABCDEFGHIJKLMNOPQRSTUVWXYZ"`},
	{`(ALL:gsub("%u", ""))`, "ok: \"\\000\\001\\002\\003\\004\\005\\006\\007\\008\\009\\010\\011\\012\\013\\014\\015\\016\\017\\018\\019\\020\\021\\022\\023\\024\\025\\026\\027\\028\\029\\030\\031 !\\034#$%&'()*+,-./0123456789:;<=>?@[\\092]^_`abcdefghijklmnopqrstuvwxyz{|}~\\127\\128\\129\\130\\131\\132\\133\\134\\135\\136\\137\\138\\139\\140\\141\\142\\143\\144\\145\\146\\147\\148\\149\\150\\151\\152\\153\\154\\155\\156\\157\\158\\159\\160\\161\\162\\163\\164\\165\\166\\167\\168\\169\\170\\171\\172\\173\\174\\175\\176\\177\\178\\179\\180\\181\\182\\183\\184\\185\\186\\187\\188\\189\\190\\191\\192\\193\\194\\195\\196\\197\\198\\199\\200\\201\\202\\203\\204\\205\\206\\207\\208\\209\\210\\211\\212\\213\\214\\215\\216\\217\\218\\219\\220\\221\\222\\223\\224\\225\\226\\227\\228\\229\\230\\231\\232\\233\\234\\235\\236\\237\\238\\239\\240\\241\\242\\243\\244\\245\\246\\247\\248\\249\\250\\251\\252\\253\\254\\255\""},
	{`(ALL:gsub("%W", ""))`, `ok: "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"`},
	{`(ALL:gsub("%w", ""))`, "ok: \"\\000\\001\\002\\003\\004\\005\\006\\007\\008\\009\\010\\011\\012\\013\\014\\015\\016\\017\\018\\019\\020\\021\\022\\023\\024\\025\\026\\027\\028\\029\\030\\031 !\\034#$%&'()*+,-./:;<=>?@[\\092]^_`{|}~\\127\\128\\129\\130\\131\\132\\133\\134\\135\\136\\137\\138\\139\\140\\141\\142\\143\\144\\145\\146\\147\\148\\149\\150\\151\\152\\153\\154\\155\\156\\157\\158\\159\\160\\161\\162\\163\\164\\165\\166\\167\\168\\169\\170\\171\\172\\173\\174\\175\\176\\177\\178\\179\\180\\181\\182\\183\\184\\185\\186\\187\\188\\189\\190\\191\\192\\193\\194\\195\\196\\197\\198\\199\\200\\201\\202\\203\\204\\205\\206\\207\\208\\209\\210\\211\\212\\213\\214\\215\\216\\217\\218\\219\\220\\221\\222\\223\\224\\225\\226\\227\\228\\229\\230\\231\\232\\233\\234\\235\\236\\237\\238\\239\\240\\241\\242\\243\\244\\245\\246\\247\\248\\249\\250\\251\\252\\253\\254\\255\""},
	{`(ALL:gsub("%X", ""))`, `ok: "0123456789ABCDEFabcdef"`},
	{`(ALL:gsub("%x", ""))`, "ok: \"\\000\\001\\002\\003\\004\\005\\006\\007\\008\\009\\010\\011\\012\\013\\014\\015\\016\\017\\018\\019\\020\\021\\022\\023\\024\\025\\026\\027\\028\\029\\030\\031 !\\034#$%&'()*+,-./:;<=>?@GHIJKLMNOPQRSTUVWXYZ[\\092]^_`ghijklmnopqrstuvwxyz{|}~\\127\\128\\129\\130\\131\\132\\133\\134\\135\\136\\137\\138\\139\\140\\141\\142\\143\\144\\145\\146\\147\\148\\149\\150\\151\\152\\153\\154\\155\\156\\157\\158\\159\\160\\161\\162\\163\\164\\165\\166\\167\\168\\169\\170\\171\\172\\173\\174\\175\\176\\177\\178\\179\\180\\181\\182\\183\\184\\185\\186\\187\\188\\189\\190\\191\\192\\193\\194\\195\\196\\197\\198\\199\\200\\201\\202\\203\\204\\205\\206\\207\\208\\209\\210\\211\\212\\213\\214\\215\\216\\217\\218\\219\\220\\221\\222\\223\\224\\225\\226\\227\\228\\229\\230\\231\\232\\233\\234\\235\\236\\237\\238\\239\\240\\241\\242\\243\\244\\245\\246\\247\\248\\249\\250\\251\\252\\253\\254\\255\""},
	{`(ALL:gsub("%Z", ""))`, `ok: "\000"`},
	{`(ALL:gsub("%z", ""))`, "ok: \"\\001\\002\\003\\004\\005\\006\\007\\008\\009\\010\\011\\012\\013\\014\\015\\016\\017\\018\\019\\020\\021\\022\\023\\024\\025\\026\\027\\028\\029\\030\\031 !\\034#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\092]^_`abcdefghijklmnopqrstuvwxyz{|}~\\127\\128\\129\\130\\131\\132\\133\\134\\135\\136\\137\\138\\139\\140\\141\\142\\143\\144\\145\\146\\147\\148\\149\\150\\151\\152\\153\\154\\155\\156\\157\\158\\159\\160\\161\\162\\163\\164\\165\\166\\167\\168\\169\\170\\171\\172\\173\\174\\175\\176\\177\\178\\179\\180\\181\\182\\183\\184\\185\\186\\187\\188\\189\\190\\191\\192\\193\\194\\195\\196\\197\\198\\199\\200\\201\\202\\203\\204\\205\\206\\207\\208\\209\\210\\211\\212\\213\\214\\215\\216\\217\\218\\219\\220\\221\\222\\223\\224\\225\\226\\227\\228\\229\\230\\231\\232\\233\\234\\235\\236\\237\\238\\239\\240\\241\\242\\243\\244\\245\\246\\247\\248\\249\\250\\251\\252\\253\\254\\255\""},
	{`(ALL:gsub("[^%a]", ""))`, `ok: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"`},
	{`(ALL:gsub("[^%A]", ""))`, "ok: \"\\000\\001\\002\\003\\004\\005\\006\\007\\008\\009\\010\\011\\012\\013\\014\\015\\016\\017\\018\\019\\020\\021\\022\\023\\024\\025\\026\\027\\028\\029\\030\\031 !\\034#$%&'()*+,-./0123456789:;<=>?@[\\092]^_`{|}~\\127\\128\\129\\130\\131\\132\\133\\134\\135\\136\\137\\138\\139\\140\\141\\142\\143\\144\\145\\146\\147\\148\\149\\150\\151\\152\\153\\154\\155\\156\\157\\158\\159\\160\\161\\162\\163\\164\\165\\166\\167\\168\\169\\170\\171\\172\\173\\174\\175\\176\\177\\178\\179\\180\\181\\182\\183\\184\\185\\186\\187\\188\\189\\190\\191\\192\\193\\194\\195\\196\\197\\198\\199\\200\\201\\202\\203\\204\\205\\206\\207\\208\\209\\210\\211\\212\\213\\214\\215\\216\\217\\218\\219\\220\\221\\222\\223\\224\\225\\226\\227\\228\\229\\230\\231\\232\\233\\234\\235\\236\\237\\238\\239\\240\\241\\242\\243\\244\\245\\246\\247\\248\\249\\250\\251\\252\\253\\254\\255\""},
	{`(ALL:gsub("[^%p%d]", ""))`, "ok: \"!\\034#$%&'()*+,-./0123456789:;<=>?@[\\092]^_`{|}~\""},
	{`(ALL:gsub("[^%w_]", ""))`, `ok: "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"`},
	{`(ALL:gsub("[^%S]", ""))`, "ok: \"\\000\\001\\002\\003\\004\\005\\006\\007\\008\\014\\015\\016\\017\\018\\019\\020\\021\\022\\023\\024\\025\\026\\027\\028\\029\\030\\031!\\034#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\092]^_`abcdefghijklmnopqrstuvwxyz{|}~\\127\\128\\129\\130\\131\\132\\133\\134\\135\\136\\137\\138\\139\\140\\141\\142\\143\\144\\145\\146\\147\\148\\149\\150\\151\\152\\153\\154\\155\\156\\157\\158\\159\\160\\161\\162\\163\\164\\165\\166\\167\\168\\169\\170\\171\\172\\173\\174\\175\\176\\177\\178\\179\\180\\181\\182\\183\\184\\185\\186\\187\\188\\189\\190\\191\\192\\193\\194\\195\\196\\197\\198\\199\\200\\201\\202\\203\\204\\205\\206\\207\\208\\209\\210\\211\\212\\213\\214\\215\\216\\217\\218\\219\\220\\221\\222\\223\\224\\225\\226\\227\\228\\229\\230\\231\\232\\233\\234\\235\\236\\237\\238\\239\\240\\241\\242\\243\\244\\245\\246\\247\\248\\249\\250\\251\\252\\253\\254\\255\""},
	{`(ALL:gsub("[^%Z]", ""))`, "ok: \"\\001\\002\\003\\004\\005\\006\\007\\008\\009\\010\\011\\012\\013\\014\\015\\016\\017\\018\\019\\020\\021\\022\\023\\024\\025\\026\\027\\028\\029\\030\\031 !\\034#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\092]^_`abcdefghijklmnopqrstuvwxyz{|}~\\127\\128\\129\\130\\131\\132\\133\\134\\135\\136\\137\\138\\139\\140\\141\\142\\143\\144\\145\\146\\147\\148\\149\\150\\151\\152\\153\\154\\155\\156\\157\\158\\159\\160\\161\\162\\163\\164\\165\\166\\167\\168\\169\\170\\171\\172\\173\\174\\175\\176\\177\\178\\179\\180\\181\\182\\183\\184\\185\\186\\187\\188\\189\\190\\191\\192\\193\\194\\195\\196\\197\\198\\199\\200\\201\\202\\203\\204\\205\\206\\207\\208\\209\\210\\211\\212\\213\\214\\215\\216\\217\\218\\219\\220\\221\\222\\223\\224\\225\\226\\227\\228\\229\\230\\231\\232\\233\\234\\235\\236\\237\\238\\239\\240\\241\\242\\243\\244\\245\\246\\247\\248\\249\\250\\251\\252\\253\\254\\255\""},
	{`(ALL:gsub("[%Z]", ""))`, `ok: "\000"`},
	{`(ALL:gsub("[^\128-\255]", ""))`, `ok: "\128\129\130\131\132\133\134\135\136\137\138\139\140\141\142\143\144\145\146\147\148\149\150\151\152\153\154\155\156\157\158\159\160\161\162\163\164\165\166\167\168\169\170\171\172\173\174\175\176\177\178\179\180\181\182\183\184\185\186\187\188\189\190\191\192\193\194\195\196\197\198\199\200\201\202\203\204\205\206\207\208\209\210\211\212\213\214\215\216\217\218\219\220\221\222\223\224\225\226\227\228\229\230\231\232\233\234\235\236\237\238\239\240\241\242\243\244\245\246\247\248\249\250\251\252\253\254\255"`},
	{`(ALL:gsub("[^\200-\210]", ""))`, `ok: "\200\201\202\203\204\205\206\207\208\209\210"`},
	{`(ALL:gsub("[^%.]", ""))`, `ok: "."`},
	{`(ALL:gsub("[^.]", ""))`, `ok: "."`},
	{`(ALL:gsub("[^%%]", ""))`, `ok: "%"`},
	{`(ALL:gsub("[^%-]", ""))`, `ok: "-"`},
	{`(ALL:gsub("[^-]", ""))`, `ok: "-"`},
	{`(ALL:gsub("[^%]]", ""))`, `ok: "]"`},
	{`(ALL:gsub("[^]]", ""))`, `ok: "]"`},
	{`(ALL:gsub("[^%^]", ""))`, `ok: "^"`},
	{`(ALL:gsub("[^^]", ""))`, `ok: "^"`},
	{`(ALL:gsub("[^]^]", ""))`, `ok: "]^"`},
	{`(ALL:gsub("[^%g]", ""))`, `ok: "g"`},
	{`(ALL:gsub("[^%G]", ""))`, `ok: "G"`},
	{`(ALL:gsub("[^%1]", ""))`, `ok: "1"`},
	{`(ALL:gsub("[^a-c-e]", ""))`, `ok: "-abce"`},
	{`(ALL:gsub("[^z-a]", ""))`, `ok: ""`},
	{`(ALL:gsub("[^a-]", ""))`, `ok: "-a"`},
	{`(ALL:gsub("[^-a]", ""))`, `ok: "-a"`},
	{`(ALL:gsub("[^%a-]", ""))`, `ok: "-ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"`},
	{`(ALL:gsub("[^!-%]]", ""))`, `ok: "!\034#$%]"`},
	{`(ALL:gsub("[^%d-z]", ""))`, `ok: "-0123456789z"`},
	{`(ALL:gsub("[^%]-a]", ""))`, `ok: "-]a"`},
	{`(ALL:gsub("[^a%-z]", ""))`, `ok: "-az"`},
	{`(ALL:gsub("[^\0-\31]", ""))`, `error: "case:1: malformed pattern (missing ']')"`},
	{`(ALL:gsub("[^\250-]", ""))`, `ok: "-\250"`},
	{`("%g"):find("%g")`, `ok: 2, 2`},
	{`("g"):find("%g")`, `ok: 1, 1`},
	{`("G"):find("%G")`, `ok: 1, 1`},
	{`("."):find("%.")`, `ok: 1, 1`},
	{`("a"):find("%.")`, `ok: nil`},
	{`("%"):find("%%")`, `ok: 1, 1`},
	{`("]"):find("%]")`, `ok: 1, 1`},
	{`("]"):find("[]]")`, `ok: 1, 1`},
	{`("a]"):find("[]a]+")`, `ok: 1, 2`},
	{`("-"):find("[a-]")`, `ok: 1, 1`},
	{`("b"):find("[a-]")`, `ok: nil`},
	{`("x]"):find("[^]]")`, `ok: 1, 1`},
	{`("]]x"):find("[^]]")`, `ok: 3, 3`},
	{`("abc"):find("[]")`, `error: "case:1: malformed pattern (missing ']')"`},
	{`("abc"):find("[^]")`, `error: "case:1: malformed pattern (missing ']')"`},
	{`("abc"):find("[")`, `error: "case:1: malformed pattern (missing ']')"`},
	{`("abc"):find("[a")`, `error: "case:1: malformed pattern (missing ']')"`},
	{`("abc"):find("[^")`, `error: "case:1: malformed pattern (missing ']')"`},
	{`("abc"):find("[%")`, `error: "case:1: malformed pattern (missing ']')"`},
	{`("abc"):find("[%]")`, `error: "case:1: malformed pattern (missing ']')"`},
	{`("abc"):find("[a-")`, `error: "case:1: malformed pattern (missing ']')"`},
	{`("abc"):find("%")`, `error: "case:1: malformed pattern (ends with '%')"`},
	{`("abc"):find("a%")`, `error: "case:1: malformed pattern (ends with '%')"`},
	{`("abc"):find("[%a")`, `error: "case:1: malformed pattern (missing ']')"`},
	{`("abc"):match("[]]")`, `ok: nil`},
	{`("abc"):match("[^]]")`, `ok: "a"`},
	{`("abc"):match("(")`, `error: "case:1: unfinished capture"`},
	{`("abc"):match(")")`, `error: "case:1: invalid pattern capture"`},
	{`("abc"):match("a)")`, `error: "case:1: invalid pattern capture"`},
	{`("abc"):match("(()")`, `error: "case:1: unfinished capture"`},
	{`("abc"):match("%1")`, `error: "case:1: invalid capture index"`},
	{`("abc"):match("%0")`, `error: "case:1: invalid capture index"`},
	{`("abc"):match("(a)%2")`, `error: "case:1: invalid capture index"`},
	{`("abc"):match("(a%1)")`, `error: "case:1: invalid capture index"`},
	{`("abc"):match("%b")`, `error: "case:1: unbalanced pattern"`},
	{`("abc"):match("%ba")`, `error: "case:1: unbalanced pattern"`},
	{`("abc"):match("%f")`, `error: "case:1: missing '[' after '%f' in pattern"`},
	{`("abc"):match("%fa")`, `error: "case:1: missing '[' after '%f' in pattern"`},
	{`("abc"):match("%f[a")`, `error: "case:1: malformed pattern (missing ']')"`},
	{`("abc"):match("%f[")`, `error: "case:1: malformed pattern (missing ']')"`},
	{`("abc"):match(("(a)"):rep(32))`, `ok: nil`},
	{`("a"):rep(40):match(("(a)"):rep(32))`, `ok: "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a"`},
	{`("a"):rep(40):match(("(a)"):rep(33))`, `error: "case:1: too many captures"`},
	{`("a"):rep(40):match(("()"):rep(33))`, `error: "case:1: too many captures"`},
	{`("a"):rep(40):find(("()"):rep(32))`, `ok: 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1`},
	{`("aaa"):match("a*")`, `ok: "aaa"`},
	{`("aaa"):match("a+")`, `ok: "aaa"`},
	{`("aaa"):match("a-")`, `ok: ""`},
	{`("aaa"):match("a?")`, `ok: "a"`},
	{`("aaa"):match("a-$")`, `ok: "aaa"`},
	{`("aaab"):match("a-b")`, `ok: "aaab"`},
	{`("aaab"):match("(a-)(a*)b")`, `ok: "", "aaa"`},
	{`("aaab"):match("(a*)(a*)b")`, `ok: "aaa", ""`},
	{`("aaab"):match("(a+)(a+)b")`, `ok: "aa", "a"`},
	{`("aaab"):match("(a?)(a?)(.*)")`, `ok: "a", "a", "ab"`},
	{`("b"):match("a*")`, `ok: ""`},
	{`("b"):match("a+")`, `ok: nil`},
	{`("b"):match("a-b")`, `ok: "b"`},
	{`("b"):match("a?b")`, `ok: "b"`},
	{`("ab"):match("a?b")`, `ok: "ab"`},
	{`("<a><b>"):match("<(.-)>")`, `ok: "a"`},
	{`("<a><b>"):match("<(.*)>")`, `ok: "a><b"`},
	{`("<a><b>"):match("<(.+)>")`, `ok: "a><b"`},
	{`("3.14e10"):match("^%d+%.?%d*[eE]?%d*$")`, `ok: "3.14e10"`},
	{`("  x  "):match("^%s*(.-)%s*$")`, `ok: "x"`},
	{`("    "):match("^%s*(.-)%s*$")`, `ok: ""`},
	{`("a*"):match("a**")`, `ok: "a*"`},
	{`("aa*"):match("a**")`, `ok: "aa*"`},
	{`("*a"):match("*a")`, `ok: "*a"`},
	{`("+a"):match("+a")`, `ok: "+a"`},
	{`("?a"):match("?a")`, `ok: "?a"`},
	{`("-a"):match("-a")`, `ok: "-a"`},
	{`("a"):match("a-+")`, `ok: nil`},
	{`("a--"):match("a--")`, `ok: "a-"`},
	{`("ab"):match(".-")`, `ok: ""`},
	{`("ab"):match(".-$")`, `ok: "ab"`},
	{`("abc"):match("a.c")`, `ok: "abc"`},
	{`("a\nc"):match("a.c")`, `ok: "a\010c"`},
	{`("aXc"):match("a[^a-z]c")`, `ok: "aXc"`},
	{`("key = value"):match("^(%w+)%s*=%s*(%w+)$")`, `ok: "key", "value"`},
	{`("2024-01-15"):match("(%d+)-(%d+)-(%d+)")`, `ok: "2024", "01", "15"`},
	{`("hello"):find("^h")`, `ok: 1, 1`},
	{`("hello"):find("^e")`, `ok: nil`},
	{`("hello"):find("^e", 2)`, `ok: 2, 2`},
	{`("hello"):find("^l", -2)`, `ok: 4, 4`},
	{`("hello"):match("^(h)(e)")`, `ok: "h", "e"`},
	{`("hello"):find("o$")`, `ok: 5, 5`},
	{`("hello"):find("l$")`, `ok: nil`},
	{`("hel$lo"):find("l$l")`, `ok: 3, 5`},
	{`("hello"):find("$")`, `ok: 6, 5`},
	{`("hello"):find("^$")`, `ok: nil`},
	{`(""):find("^$")`, `ok: 1, 0`},
	{`(""):find("")`, `ok: 1, 0`},
	{`(""):match("")`, `ok: ""`},
	{`(""):match(".")`, `ok: nil`},
	{`(""):match("x*")`, `ok: ""`},
	{`("hello"):find("^", 3)`, `ok: 3, 2`},
	{`("^a"):match("^^a")`, `ok: "^a"`},
	{`("a^"):match("a^")`, `ok: "a^"`},
	{`("hello"):match("%bhl")`, `ok: "hel"`},
	{`("(a(b)c)d"):match("%b()")`, `ok: "(a(b)c)"`},
	{`("x(a(b)c"):match("%b()")`, `ok: "(b)"`},
	{`("x(a(b)c))"):match("%b()")`, `ok: "(a(b)c)"`},
	{`("[[x]]"):find("%b[]")`, `ok: 1, 5`},
	{`("\"a\"b\""):match('%b""')`, `ok: "\034a\034"`},
	{`("abc"):find("%b")`, `error: "case:1: unbalanced pattern"`},
	{`("abc"):find("%bx")`, `error: "case:1: unbalanced pattern"`},
	{`("(a)"):gsub("%b()", "X")`, `ok: "X", 1`},
	{`("(a)*"):match("%b()*")`, `ok: "(a)*"`},
	{`("f(a,(b),c) g()"):gsub("%b()", "")`, `ok: "f g", 2`},
	{`("((("):match("%b()")`, `ok: nil`},
	{`("THE (quick) fox"):gsub("%f[%a]%a+", "W")`, `ok: "W (W) W", 3`},
	{`("THE (quick) fox"):find("%f[%a]", 5)`, `ok: 6, 5`},
	{`("hello world"):find("%f[%w]%w+", 2)`, `ok: 7, 11`},
	{`("abc"):find("%f[%a]")`, `ok: 1, 0`},
	{`("abc"):find("%f[%A]")`, `ok: 4, 3`},
	{`("abc"):find("%f[%z]")`, `ok: 4, 3`},
	{`("abc"):find("%f[^%z]")`, `ok: 1, 0`},
	{`(""):find("%f[%z]")`, `ok: nil`},
	{`(""):find("%f[^%z]")`, `ok: nil`},
	{`("aXb"):gsub("%f[%u]", "|")`, `ok: "a|Xb", 1`},
	{`("aXYb"):gsub("%f[%l]", "|")`, `ok: "|aXY|b", 2`},
	{`("hello"):match("%f[%l]()")`, `ok: 1`},
	{`("hello"):match("()%f[%L]")`, `ok: 6`},
	{`("the cat sat"):gsub("%f[%w]%w+%f[%W]", "<%0>")`, `ok: "<the> <cat> <sat>", 3`},
	{`("x1 22 a3"):gsub("%f[%d]%d+", "#")`, `ok: "x# # a#", 3`},
	{`("abc"):find("%f[b]", 2)`, `ok: 2, 1`},
	{`("abc"):find("%f[b]", 3)`, `ok: nil`},
	{`("a.b"):find("%f[%.]")`, `ok: 2, 1`},
	{`("a\0b"):find("%f[%Z]", 2)`, `ok: 3, 2`},
	{`("hello"):match("(h)(e)(l)")`, `ok: "h", "e", "l"`},
	{`("hello"):find("(l)(l)")`, `ok: 3, 4, "l", "l"`},
	{`("hello"):match("()ll()")`, `ok: 3, 5`},
	{`("hello"):find("()")`, `ok: 1, 0, 1`},
	{`("hello"):match("()", 10)`, `ok: 6`},
	{`("hello"):match("()", -2)`, `ok: 4`},
	{`("hello"):match("(h(e)l)")`, `ok: "hel", "e"`},
	{`("hello"):match("((((((((((h))))))))))")`, `ok: "h", "h", "h", "h", "h", "h", "h", "h", "h", "h"`},
	{`("hello"):find("(h)()(e)")`, `ok: 1, 2, "h", 2, "e"`},
	{`("hello"):match("(h)%)")`, `ok: nil`},
	{`("h)"):match("(h)%)")`, `ok: "h"`},
	{`("hello"):match("(.-)l")`, `ok: "he"`},
	{`("hello"):match("(.*)l")`, `ok: "hel"`},
	{`("hello"):match("(x*)")`, `ok: ""`},
	{`("abc"):find("(a")`, `error: "case:1: unfinished capture"`},
	{`("abc"):match("(a")`, `error: "case:1: unfinished capture"`},
	{`("abc"):match("(a)(")`, `error: "case:1: unfinished capture"`},
	{`("abc"):find("b(")`, `error: "case:1: unfinished capture"`},
	{`("abc"):find("b)")`, `ok: nil`},
	{`("abc"):gsub("(a", "x")`, `ok: "xbc", 1`},
	{`("abc"):gsub("(a", "%1")`, `error: "case:1: unfinished capture"`},
	{`("abc"):gsub("(a", "%0")`, `ok: "abc", 1`},
	{`("abc"):gsub("(a", function(x) return x end)`, `error: "case:1: unfinished capture"`},
	{`("abc"):gsub("(a", {})`, `error: "case:1: unfinished capture"`},
	{`("abc"):gsub("(a)(", "x")`, `ok: "xbc", 1`},
	{`("hello"):match("(l)%1")`, `ok: "l"`},
	{`("abcabc"):match("(abc)%1")`, `ok: "abc"`},
	{`([[say "hi" and 'yo']]):match("([\"'])(.-)%1")`, `ok: "\034", "hi"`},
	{`("aa"):match("%1")`, `error: "case:1: invalid capture index"`},
	{`("aa"):match("(a)%2")`, `error: "case:1: invalid capture index"`},
	{`("aa"):match("(a%1)")`, `error: "case:1: invalid capture index"`},
	{`("aa"):match("%0")`, `error: "case:1: invalid capture index"`},
	{`("aa"):match("(a)%0")`, `error: "case:1: invalid capture index"`},
	{`("a1a"):match("()a%1")`, `ok: nil`},
	{`("xx"):find("(x)%1")`, `ok: 1, 2, "x"`},
	{`("abab"):gsub("(ab)%1", "<%1>")`, `ok: "<ab>", 1`},
	{`("aXa bYb"):gsub("(%a)(%u)%1", "%2")`, `ok: "X Y", 2`},
	{`("abba"):match("(a)(b)%2%1")`, `ok: "a", "b"`},
	{`("aa"):match("(a)%1%1")`, `ok: nil`},
	{`("hello world"):gsub("o", "0")`, `ok: "hell0 w0rld", 2`},
	{`("hello world"):gsub("(%w+)", "<%1>")`, `ok: "<hello> <world>", 2`},
	{`("hello world"):gsub("%w+", "%0 %0")`, `ok: "hello hello world world", 2`},
	{`("hello world"):gsub("(%w+) (%w+)", "%2 %1")`, `ok: "world hello", 1`},
	{`("hello"):gsub("l", "%%")`, `ok: "he%%o", 2`},
	{`("hello"):gsub("l", "%a")`, `ok: "heaao", 2`},
	{`("hello"):gsub("l", "%.")`, `ok: "he..o", 2`},
	{`("hello"):gsub("(l)", "%2")`, `error: "case:1: invalid capture index"`},
	{`("hello"):gsub("l", "%2")`, `error: "case:1: invalid capture index"`},
	{`("hello"):gsub("l", "%1")`, `ok: "hello", 2`},
	{`("hello"):gsub("l", "%9")`, `error: "case:1: invalid capture index"`},
	{`("hello"):gsub("l", "%")`, `ok: "he\000\000o", 2`},
	{`("hello"):gsub("l", "x%")`, `ok: "hex\000x\000o", 2`},
	{`("hello"):gsub("l", "%%%")`, `ok: "he%\000%\000o", 2`},
	{`("abc"):gsub("()", "%1")`, `ok: "1a2b3c4", 4`},
	{`("abc"):gsub("()b()", "%2%1")`, `ok: "a32c", 1`},
	{`("abc"):gsub("", "-")`, `ok: "-a-b-c-", 4`},
	{`("hello"):gsub("", "-")`, `ok: "-h-e-l-l-o-", 6`},
	{`("abc"):gsub("%w*", "-")`, `ok: "--", 2`},
	{`("abc"):gsub("b*", "-")`, `ok: "-a--c-", 4`},
	{`("abc"):gsub("x*", "-")`, `ok: "-a-b-c-", 4`},
	{`("a,b,,c"):gsub(",", ";")`, `ok: "a;b;;c", 3`},
	{`("a,b,,c"):gsub("[^,]*", "<%0>")`, `ok: "<a><>,<b><>,<>,<c><>", 7`},
	{`(""):gsub("", "x")`, `ok: "x", 1`},
	{`(""):gsub("x", "y")`, `ok: "", 0`},
	{`("hello"):gsub("^h", "H")`, `ok: "Hello", 1`},
	{`("hhh"):gsub("^h", "H")`, `ok: "Hhh", 1`},
	{`("hello"):gsub("^", ">")`, `ok: ">hello", 1`},
	{`("hello"):gsub("$", "<")`, `ok: "hello<", 1`},
	{`("hello"):gsub("^$", "<")`, `ok: "hello", 0`},
	{`("hello"):gsub("^x", "X")`, `ok: "hello", 0`},
	{`("hello"):gsub("^", "")`, `ok: "hello", 1`},
	{`("hello"):gsub("o$", "0")`, `ok: "hell0", 1`},
	{`("a$b"):gsub("$b", "X")`, `ok: "aX", 1`},
	{`("a^b"):gsub("a^", "X")`, `ok: "Xb", 1`},
	{`("aaa"):gsub("a", "b", 2)`, `ok: "bba", 2`},
	{`("aaa"):gsub("a", "b", 0)`, `ok: "aaa", 0`},
	{`("aaa"):gsub("a", "b", -1)`, `ok: "aaa", 0`},
	{`("aaa"):gsub("a", "b", 1.9)`, `ok: "baa", 1`},
	{`("aaa"):gsub("a", "b", -1.9)`, `ok: "aaa", 0`},
	{`("aaa"):gsub("a", "b", "2")`, `ok: "bba", 2`},
	{`("aaa"):gsub("a", "b", 2^32 + 1)`, `ok: "baa", 1`},
	{`("aaa"):gsub("a", "b", 2^31)`, `ok: "aaa", 0`},
	{`("aaa"):gsub("a", "b", math.huge)`, `ok: "aaa", 0`},
	{`("aaa"):gsub("a", "b", nil)`, `ok: "bbb", 3`},
	{`("aaa"):gsub("a", "b", 10)`, `ok: "bbb", 3`},
	{`("aaa"):gsub("", "-", 2)`, `ok: "-a-aa", 2`},
	{`("aaa"):gsub("x*", "-", 5)`, `ok: "-a-a-a-", 4`},
	{`string.gsub("aaa", "a", "b", {})`, `error: "case:1: bad argument #4 to 'gsub' (number expected, got table)"`},
	{`string.gsub("aaa", "a", "b", "x")`, `error: "case:1: bad argument #4 to 'gsub' (number expected, got string)"`},
	{`("$name is $age"):gsub("%$(%w+)", {name = "Bob", age = 42})`, `ok: "Bob is 42", 2`},
	{`("$name is $who"):gsub("%$(%w+)", {name = "Bob"})`, `ok: "Bob is $who", 2`},
	{`("$name is $who"):gsub("%$(%w+)", {name = false})`, `ok: "$name is $who", 2`},
	{`("$name"):gsub("%$(%w+)", {name = {}})`, `error: "case:1: invalid replacement value (a table)"`},
	{`("$name"):gsub("%$(%w+)", {name = true})`, `error: "case:1: invalid replacement value (a boolean)"`},
	{`("$name"):gsub("%$(%w+)", {name = 1.5})`, `ok: "1.5", 1`},
	{`("$name"):gsub("%$(%w+)", {name = 0.1 + 0.2})`, `ok: "0.3", 1`},
	{`("abc"):gsub("%w", {a = 1, b = true})`, `error: "case:1: invalid replacement value (a boolean)"`},
	{`("abc"):gsub("()b", {[2] = "X"})`, `ok: "aXc", 1`},
	{`("abc"):gsub("()b", {["2"] = "X"})`, `ok: "abc", 1`},
	{`("abc"):gsub("%w", {})`, `ok: "abc", 3`},
	{`("abc"):gsub("%w", upper({}))`, `ok: "ABC", 3`},
	{`("abc"):gsub("(%w)(%w)", {a = "1", ab = "2"})`, `ok: "1c", 1`},
	{`("abc"):gsub("%w", {a = print})`, `error: "case:1: invalid replacement value (a function)"`},
	{`("hello world"):gsub("%w+", string.upper)`, `ok: "HELLO WORLD", 2`},
	{`("hello world"):gsub("%w+", function(w) return w:upper() end)`, `ok: "HELLO WORLD", 2`},
	{`("hello world"):gsub("%w+", function(w) return nil end)`, `ok: "hello world", 2`},
	{`("hello world"):gsub("%w+", function(w) return false end)`, `ok: "hello world", 2`},
	{`("hello world"):gsub("%w+", function(w) end)`, `ok: "hello world", 2`},
	{`("hello world"):gsub("%w+", function(w) return 1.5 end)`, `ok: "1.5 1.5", 2`},
	{`("hello world"):gsub("%w+", function(w) return 0.1 + 0.2 end)`, `ok: "0.3 0.3", 2`},
	{`("hello world"):gsub("%w+", function(w) return #w end)`, `ok: "5 5", 2`},
	{`("hello world"):gsub("%w+", function(w) return true end)`, `error: "case:1: invalid replacement value (a boolean)"`},
	{`("hello world"):gsub("%w+", function(w) return {} end)`, `error: "case:1: invalid replacement value (a table)"`},
	{`("hello world"):gsub("%w+", function(w) return print end)`, `error: "case:1: invalid replacement value (a function)"`},
	{`("hello world"):gsub("%w+", function(w) return "x", "y" end)`, `ok: "x x", 2`},
	{`("hello world"):gsub("(%w)(%w*)", function(a, b) return b .. a end)`, `ok: "elloh orldw", 2`},
	{`("hello"):gsub("()(l)()", function(a, b, c) return type(a) .. b .. type(c) end)`, `ok: "henumberlnumbernumberlnumbero", 2`},
	{`("hello"):gsub("l", function(...) return select("#", ...) end)`, `ok: "he11o", 2`},
	{`("hello"):gsub("(l)", function(...) return select("#", ...) end)`, `ok: "he11o", 2`},
	{`("hello"):gsub("l", function(x) error("boom") end)`, `error: "case:1: boom"`},
	{`("hello"):gsub("l", function(x) error({}) end)`, `error: table`},
	{`("hello"):gsub("l", function(x) error("boom", 0) end)`, `error: "boom"`},
	{`("hello"):gsub("l", function(x) return (x:gsub("l", "L")) end)`, `ok: "heLLo", 2`},
	{`("hello"):gsub("", function(x) return "[" .. x .. "]" end)`, `ok: "[]h[]e[]l[]l[]o[]", 6`},
	{`("hello"):gsub("l+", function(x) return "%1" end)`, `ok: "he%1o", 1`},
	{`string.gsub("abc", "b", true)`, `error: "case:1: bad argument #3 to 'gsub' (string/function/table expected)"`},
	{`string.gsub("abc", "b", nil)`, `error: "case:1: bad argument #3 to 'gsub' (string/function/table expected)"`},
	{`string.gsub("abc", "b")`, `error: "case:1: bad argument #3 to 'gsub' (string/function/table expected)"`},
	{`("abc"):gsub("b", 12)`, `ok: "a12c", 1`},
	{`("abc"):gsub("b", -0.5)`, `ok: "a-0.5c", 1`},
	{`G("hello world from lua", "%a+")`, `ok: "[", "hello", "[", "world", "[", "from", "[", "lua"`},
	{`G("k=v, a=b", "(%w+)=(%w+)")`, `ok: "[", "k", "v", "[", "a", "b"`},
	{`G("abc", "")`, `ok: "[", "", "[", "", "[", "", "[", ""`},
	{`G("abc", "()")`, `ok: "[", 1, "[", 2, "[", 3, "[", 4`},
	{`G("abc", "%a*")`, `ok: "[", "abc", "[", ""`},
	{`G("abc", "b*")`, `ok: "[", "", "[", "b", "[", "", "[", ""`},
	{`G("a,b,,c", "([^,]*)")`, `ok: "[", "a", "[", "", "[", "b", "[", "", "[", "", "[", "c", "[", ""`},
	{`G("a,b,,c", "[^,]+")`, `ok: "[", "a", "[", "b", "[", "c"`},
	{`G("^a^a", "^a")`, `ok: "[", "^a", "[", "^a"`},
	{`G("aaa", "^a")`, `ok: `},
	{`G("hello", "(l)(l)")`, `ok: "[", "l", "l"`},
	{`G("abc", "x")`, `ok: `},
	{`G("", "")`, `ok: "[", ""`},
	{`G("", "x*")`, `ok: "[", ""`},
	{`G("abc", "(")`, `error: "prelude:2: unfinished capture"`},
	{`G("abc", "%")`, `error: "prelude:2: malformed pattern (ends with '%')"`},
	{`G("abc", "[a")`, `error: "prelude:2: malformed pattern (missing ']')"`},
	{`G("abc", "%1")`, `error: "prelude:2: invalid capture index"`},
	{`G("abc", "(()")`, `error: "prelude:2: unfinished capture"`},
	{`G(123, "%d")`, `ok: "[", "1", "[", "2", "[", "3"`},
	{`G(1.5, "%d")`, `ok: "[", "1", "[", "5"`},
	{`G("THE (quick) fox", "%f[%a]%a+")`, `ok: "[", "THE", "[", "quick", "[", "fox"`},
	{`G("aaa", "()a()")`, `ok: "[", 1, 2, "[", 2, 3, "[", 3, 4`},
	{`G("one two  three", "%S+")`, `ok: "[", "one", "[", "two", "[", "three"`},
	{`G("a1b22c333", "%d+")`, `ok: "[", "1", "[", "22", "[", "333"`},
	{`G("a1b22c333", "%a(%d-)")`, `ok: "[", "", "[", "", "[", ""`},
	{`G("a1b22c333", "%d-")`, `ok: "[", "", "[", "", "[", "", "[", "", "[", "", "[", "", "[", "", "[", "", "[", "", "[", ""`},
	{`G("x=1,y=2", "(%w)=(%w)")`, `ok: "[", "x", "1", "[", "y", "2"`},
	{`G("abcabc", "(b)c")`, `ok: "[", "b", "[", "b"`},
	{`G("abc", "$")`, `ok: "[", ""`},
	{`G("abc", "c$")`, `ok: "[", "c"`},
	{`G("a$", "a$")`, `ok: `},
	{`G("a\0b\0", "%z")`, `ok: "[", "\000", "[", "\000"`},
	{`G("a\0b\0", "[^%z]")`, `ok: "[", "a", "[", "b"`},
	{`string.gmatch("abc", ".") ~= nil`, `ok: true`},
	{`select("#", string.gmatch("abc", "."))`, `ok: 1`},
	{`type(string.gmatch("abc", "."))`, `ok: "function"`},
	{`string.gfind == string.gmatch`, `ok: true`},
	{`("abc"):gmatch(".")()`, `ok: "a"`},
	{`("abc"):gmatch("(.)(.)")()`, `ok: "a", "b"`},
	{`("abc"):gmatch("x")()`, `ok: `},
	{`select("#", ("abc"):gmatch("x")())`, `ok: 0`},
	{`string.gmatch("abc", "(")`, `ok: function`},
	{`string.gmatch(nil, "a")`, `error: "case:1: bad argument #1 to 'gmatch' (string expected, got nil)"`},
	{`string.gmatch("a")`, `error: "case:1: bad argument #2 to 'gmatch' (string expected, got no value)"`},
	{`string.gmatch("a", {})`, `error: "case:1: bad argument #2 to 'gmatch' (string expected, got table)"`},
	{`string.find()`, `error: "case:1: bad argument #1 to 'find' (string expected, got no value)"`},
	{`string.find(nil, "a")`, `error: "case:1: bad argument #1 to 'find' (string expected, got nil)"`},
	{`string.find("a")`, `error: "case:1: bad argument #2 to 'find' (string expected, got no value)"`},
	{`string.find("a", {})`, `error: "case:1: bad argument #2 to 'find' (string expected, got table)"`},
	{`string.find({}, "a")`, `error: "case:1: bad argument #1 to 'find' (string expected, got table)"`},
	{`string.find("a", "a", {})`, `error: "case:1: bad argument #3 to 'find' (number expected, got table)"`},
	{`string.find("a", "a", "x")`, `error: "case:1: bad argument #3 to 'find' (number expected, got string)"`},
	{`string.find("a", "a", true)`, `error: "case:1: bad argument #3 to 'find' (number expected, got boolean)"`},
	{`string.match("a")`, `error: "case:1: bad argument #2 to 'match' (string expected, got no value)"`},
	{`string.match("a", "a", "x")`, `error: "case:1: bad argument #3 to 'match' (number expected, got string)"`},
	{`string.match("a", "a", {})`, `error: "case:1: bad argument #3 to 'match' (number expected, got table)"`},
	{`string.gsub("a", "a")`, `error: "case:1: bad argument #3 to 'gsub' (string/function/table expected)"`},
	{`string.gsub("a", "a", true)`, `error: "case:1: bad argument #3 to 'gsub' (string/function/table expected)"`},
	{`string.gsub("a", "a", "b", {})`, `error: "case:1: bad argument #4 to 'gsub' (number expected, got table)"`},
	{`string.gsub("a", "a", "b", "x")`, `error: "case:1: bad argument #4 to 'gsub' (number expected, got string)"`},
	{`string.gsub({}, "a", "b")`, `error: "case:1: bad argument #1 to 'gsub' (string expected, got table)"`},
	{`string.gsub("a", nil, "b")`, `error: "case:1: bad argument #2 to 'gsub' (string expected, got nil)"`},
	{`pcall(string.find, "a", "%")`, `ok: false, "malformed pattern (ends with '%')"`},
	{`pcall(string.find, "a", "(")`, `ok: false, "unfinished capture"`},
	{`pcall(string.gsub, "a", "a", true)`, `ok: false, "bad argument #3 to '?' (string/function/table expected)"`},
	{`pcall(string.find, nil, "a")`, `ok: false, "bad argument #1 to '?' (string expected, got nil)"`},
	{`pcall(string.gsub, "abc", "b", function() return {} end)`, `ok: false, "invalid replacement value (a table)"`},
	{`(function() local t = {} table.insert(t, ("abc"):match("x")) return #t end)()`, `ok: 0`},
	{`(function() local t = {} table.insert(t, ("abc"):match("b")) return t[1] end)()`, `ok: "b"`},
	{`(function() local it = ("a"):gmatch("a") return it(), it(), it() end)()`, `ok: "a", nil`},
	{`(function() local it = ("ab"):gmatch("") return it(), it(), it(), it() end)()`, `ok: "", "", ""`},
	{`(function() local it = ("ab"):gmatch("()") return it(), it(), it(), it() end)()`, `ok: 1, 2, 3`},
	{`(function() local it = string.gmatch("abc", "b") local s = "zzz" return it(), it() end)()`, `ok: "b"`},
	{`(function() local n = 0 for k, v in ("a=1, b=2, c=3"):gmatch("(%w+)=(%w+)") do n = n + v end return n end)()`, `ok: 6`},
	{`(function() local r = {} for w in ("one two three"):gmatch("%a+") do r[#r + 1] = w:upper() end return table.concat(r, ",") end)()`, `ok: "ONE,TWO,THREE"`},
	{`(function() local t = {} for a, b in ("a,1;b,2"):gmatch("(%w+),(%w+)") do t[a] = b end return t.a, t.b end)()`, `ok: "1", "2"`},
	{`(function() local s = "x" for w in s:gmatch(".") do s = s .. w if #s > 5 then break end end return s end)()`, `ok: "xx"`},
	{`("CSV,line,with,42,fields"):match("^([^,]*),([^,]*),([^,]*),([^,]*),([^,]*)$")`, `ok: "CSV", "line", "with", "42", "fields"`},
	{`("name: Alice; age: 30"):match("name:%s*(%a+);%s*age:%s*(%d+)")`, `ok: "Alice", "30"`},
	{`("/usr/local/bin/lua"):match("([^/]+)$")`, `ok: "lua"`},
	{`("/usr/local/bin/lua"):match("^(.*)/")`, `ok: "/usr/local/bin"`},
	{`("file.tar.gz"):match("^(.-)%.(.*)$")`, `ok: "file", "tar.gz"`},
	{`("file.tar.gz"):match("^(.*)%.(.-)$")`, `ok: "file.tar", "gz"`},
	{`("  trim me  "):gsub("^%s+", ""):gsub("%s+$", "")`, `ok: "trim me", 1`},
	{`("%d"):gsub("%%", "%%%%")`, `ok: "%%d", 1`},
	{`("a.b.c"):gsub("%.", "%%")`, `ok: "a%b%c", 2`},
	{`("hello"):rep(3, ""):gsub("(h)(e)", "%2%1")`, `ok: "ehlloehlloehllo", 3`},
	{`("x"):rep(100):gsub("x", "yy")`, `ok: "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy", 100`},
	{`(("ab"):rep(50)):find("ba", 90)`, `ok: 90, 91`},
	{`(("a"):rep(60) .. "b"):find(("a?"):rep(10) .. "b")`, `ok: 51, 61`},
	{`(("a"):rep(30)):match(("a*"):rep(10) .. "$")`, `ok: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"`},
	{`("\255\254\128"):match("[\128-\255]+")`, `ok: "\255\254\128"`},
	{`("\255abc"):match("%a+")`, `ok: "abc"`},
	{`("\233t\233"):match("%w+")`, `ok: "t"`},
	{`("\233t\233"):find("%W")`, `ok: 1, 1`},
	{`("\200"):find("%A")`, `ok: 1, 1`},
	{`("\200"):find("%p")`, `ok: nil`},
	{`("\200"):find("%c")`, `ok: nil`},
	{`("\127"):find("%c")`, `ok: 1, 1`},
	{`("\t\n\v\f\r "):match("%s+")`, `ok: "\009\010\011\012\013 "`},
	{`("\t\n\v\f\r "):len()`, `ok: 6`},
	{`("_"):find("%w")`, `ok: nil`},
	{`("_"):find("%p")`, `ok: 1, 1`},
	{`("aZ09"):match("%x+")`, `ok: "a"`},
	{`("0xfF"):match("0x(%x+)")`, `ok: "fF"`},
	{`("abc"):find("b", 4)`, `ok: nil`},
	{`("abc"):match(".", 4)`, `ok: nil`},
	{`("abc"):match("^", 4)`, `ok: ""`},
	{`("abc"):match("^$", 4)`, `ok: ""`},
	{`("abc"):find("c*", 10)`, `ok: 4, 3`},
	{`("abc"):match("a", 0)`, `ok: "a"`},
	{`("abc"):match("c", -1)`, `ok: "c"`},
	{`("abc"):match("^c", -1)`, `ok: "c"`},
	{`("abc"):find("%b", 3)`, `error: "case:1: unbalanced pattern"`},
	{`("a\"b\"c\"d"):gsub('%b""', "Q")`, `ok: "aQc\034d", 1`},
	{`("xax"):match("%bxx")`, `ok: "xax"`},
	{`("((a)"):match("%b()", 2)`, `ok: "(a)"`},
	{`("ab"):rep(3):gsub(".", {a = 1})`, `ok: "1b1b1b", 6`},
	{`("hello"):gsub("^(h)", function(c) return c:upper() end)`, `ok: "Hello", 1`},
	{`("hello"):gsub("^h", {h = "J"})`, `ok: "Jello", 1`},
	{`("a b c"):gsub("%s", "", 1)`, `ok: "ab c", 1`},
	{`("a b c"):gsub("%s", "%%s")`, `ok: "a%sb%sc", 2`},
	{`("a"):rep(40):find(("(a)"):rep(32))`, `ok: 1, 32, "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a"`},
	{`select("#", ("a"):rep(40):find(("(a)"):rep(32)))`, `ok: 34`},
	{`(function() local it = ("a b"):gmatch("%a") return it("ignored", 1), it({}), it() end)()`, `ok: "a", "b"`},
	{`(function() local s = "a b" local it = s:gmatch("%a") s = "zzz" return it(), it() end)()`, `ok: "a", "b"`},
	{`(function() local n = 0 for _ in ("abc"):gmatch("") do n = n + 1 end return n end)()`, `ok: 4`},
	{`("x y"):gsub("%w", "%0%0", 1)`, `ok: "xx y", 1`},
	{`("abc"):gsub(".", {a = "%1"})`, `ok: "%1bc", 3`},
	{`("abc"):gsub(".", function() return "%1" end)`, `ok: "%1%1%1", 3`},
	{`("abc"):gsub("(b)", "[%1%1]")`, `ok: "a[bb]c", 1`},
	{`("abc"):gsub("b", "%z")`, `ok: "azc", 1`},
	{`("a.b-c"):gsub("%p", "%%%0")`, `ok: "a%.b%-c", 2`},
	// end of cases
}

// newPatternState is a gopher-lua state with this file's functions installed
// and the prelude loaded.
func newPatternState(t testing.TB) *lua.LState {
	L := lua.NewState()
	installPatterns(L)
	fn, err := L.Load(strings.NewReader(patternPrelude), "prelude")
	if err == nil {
		L.Push(fn)
		err = L.PCall(0, 0, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return L
}

// runPatternCase evaluates one case in L and shows its result.
func runPatternCase(L *lua.LState, code string) string {
	fn, err := L.Load(strings.NewReader("return pack("+code+")"), "case")
	if err != nil {
		return "syntax: " + err.Error()
	}
	L.Push(fn)
	if err := L.PCall(0, 1, nil); err != nil {
		if ae, ok := err.(*lua.ApiError); ok {
			return "error: " + patternShow(ae.Object)
		}
		return "error: " + err.Error()
	}
	r := L.Get(-1).(*lua.LTable)
	L.Pop(1)
	n := int(r.RawGetString("n").(lua.LNumber))
	vals := make([]string, n)
	for i := range vals {
		vals[i] = patternShow(r.RawGetInt(i + 1))
	}
	return "ok: " + strings.Join(vals, ", ")
}

// patternShow writes a value: a string quoted, with bytes other than
// printable ASCII (and the quote and backslash) as \ddd.
func patternShow(v lua.LValue) string {
	switch x := v.(type) {
	case lua.LString:
		var b strings.Builder
		b.WriteByte('"')
		for i := 0; i < len(x); i++ {
			c := x[i]
			if c < 32 || c > 126 || c == '"' || c == '\\' {
				fmt.Fprintf(&b, "\\%03d", c)
			} else {
				b.WriteByte(c)
			}
		}
		b.WriteByte('"')
		return b.String()
	case lua.LNumber:
		return NumberToString(x)
	case *lua.LNilType, lua.LBool:
		return x.String()
	}
	return v.Type().String()
}

// patternShowLua is patternShow and runPatternCase in Lua 5.1, for the
// reference interpreter; it reads the cases, one a line, from standard
// input and writes one result a line.
const patternShowLua = `
local function show(v)
  if type(v) == "string" then
    return '"' .. (v:gsub('[%z\1-\31\34\92\127-\255]', function(c) return ("\\%03d"):format(c:byte()) end)) .. '"'
  elseif type(v) == "number" or type(v) == "nil" or type(v) == "boolean" then
    return tostring(v)
  end
  return type(v)
end
for code in io.lines() do
  local fn, err = loadstring("return pack(" .. code .. ")", "=case")
  if not fn then
    print("syntax: " .. err)
  else
    local ok, r = pcall(fn)
    if not ok then
      print("error: " .. show(r))
    else
      local vals = {}
      for i = 1, r.n do vals[i] = show(r[i]) end
      print("ok: " .. table.concat(vals, ", "))
    end
  end
end
`

func TestPatternCases(t *testing.T) {
	if *patternLua51 != "" {
		regeneratePatternCases(t, *patternLua51)
		return
	}
	L := newPatternState(t)
	defer L.Close()
	for _, c := range patternCases {
		if got := runPatternCase(L, c.code); got != c.want {
			t.Errorf("%s\n got: %s\nwant: %s", c.code, got, c.want)
		}
	}
}

// regeneratePatternCases runs the cases through the interpreter lua51,
// reports every recorded result that differs from its, and prints the case
// table with its results.
func regeneratePatternCases(t *testing.T, lua51 string) {
	script, err := os.CreateTemp(t.TempDir(), "cases*.lua")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := script.WriteString("loadstring(" + strconv.Quote(patternPrelude) + ", '=prelude')()\n" + patternShowLua); err != nil {
		t.Fatal(err)
	}
	script.Close()
	var in strings.Builder
	for _, c := range patternCases {
		if strings.Contains(c.code, "\n") {
			t.Fatalf("case %q: a case is one line", c.code)
		}
		in.WriteString(c.code + "\n")
	}
	cmd := exec.Command(lua51, script.Name())
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", lua51, err)
	}
	results := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(results) != len(patternCases) {
		t.Fatalf("%s printed %d results for %d cases", lua51, len(results), len(patternCases))
	}
	var table strings.Builder
	for i, c := range patternCases {
		if results[i] != c.want {
			t.Errorf("%s\nrecorded: %s\n  lua5.1: %s", c.code, c.want, results[i])
		}
		fmt.Fprintf(&table, "\t{%s, %s},\n", goQuote(c.code), goQuote(results[i]))
	}
	fmt.Print(table.String())
}

// goQuote writes s as a Go string literal, raw where it can be.
func goQuote(s string) string {
	if !strings.ContainsAny(s, "`\r") && strconv.CanBackquote(s) {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}
