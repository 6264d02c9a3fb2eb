package mallocarenas

import (
	"testing"

	"github.com/ebitengine/purego"
)

// TestSetUnderGlibc checks that the arena limit was set where the C
// library is glibc (which has gnu_get_libc_version).
func TestSetUnderGlibc(t *testing.T) {
	if fn, err := purego.Dlsym(purego.RTLD_DEFAULT, "gnu_get_libc_version"); err != nil || fn == 0 {
		t.Skip("the C library is not glibc")
	}
	if !set {
		t.Error("mallopt(M_ARENA_MAX, 1) did not succeed under glibc")
	}
}
