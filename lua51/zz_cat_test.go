package lua51_test
import ("testing";"fmt";"os/exec";"os";"strings")
func TestCategorize(t *testing.T){
	ref,_ := exec.LookPath("lua5.1")
	dir := t.TempDir()
	for s := uint64(0); s < 1000; s++ {
		src := genProgram(s)
		want, got := runBoth(t, ref, dir, src)
		if want == got { continue }
		w := strings.Split(want, "\n"); g := strings.Split(got, "\n")
		i := 0
		for i < len(w) && i < len(g) && w[i] == g[i] { i++ }
		wl, gl := "", ""
		if i < len(w) { wl = w[i] }
		if i < len(g) { gl = g[i] }
		fmt.Printf("%d\n  L: %.150s\n  R: %.150s\n", s, wl, gl)
		os.WriteFile(fmt.Sprintf("/tmp/gen/d%d.lua", s), []byte(src), 0o644)
	}
}
