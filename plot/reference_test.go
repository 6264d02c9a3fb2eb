package plot

import (
	"flag"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the reference pictures in testdata/ from this build")

// Each kind of picture, drawn from fixed data the way the project draws it.
var (
	// payloadBytes is a campaign's count measurement: two outcomes hold
	// zeros alone, and would lie on the axis if nothing kept them off it.
	payloadBytes = map[string][]float64{
		"retired":                      {64, 128, 256, 256, 512, 768, 1024, 1536, 2048, 2048},
		"quarantined":                  {0, 0, 0, 0, 0, 0},
		"retired, verification failed": {0, 0, 0},
	}
	// elapsed is a campaign's time measurement, a fifth of it zero.
	elapsed = map[string][]float64{
		"ok":     {0, 0, 0, 2e-6, 5e-6, 1.2e-5, 8e-5, 1e-4, 1.1e-4, 3e-4, 1e-2, 1e-2, 0.1, 1, 1.5},
		"failed": {0, 3e-5, 4e-4},
	}
	// perRound is the sweep's time per round against slot size.
	perRound = map[string][]Point{
		"credits=1": {{64, 6}, {256, 12}, {1024, 36}, {4096, 132}},
		"credits=4": {{64, 5}, {256, 10}, {1024, 30}, {4096, 110}},
	}
)

// picture is one kind of picture, drawn into path.
type picture struct {
	name string
	draw func(path string) error
}

var pictures = []picture{
	{"cdf_linear", func(path string) error {
		return CDF(path, "payload bytes by the trial's outcome (n = 19)", "payload bytes", payloadBytes, false)
	}},
	{"cdf_log_zeros", func(path string) error {
		return CDF(path, "elapsed by the trial's outcome (n = 18)", "elapsed (seconds, log scale)", elapsed, true)
	}},
	{"lines_log_x", func(path string) error {
		return Lines(path, "latency, 8 rounds (simulated time)", "slot size (bytes)", "time per round, steady state (µs)", perRound, true, false)
	}},
	{"lines_log_log", func(path string) error {
		return Lines(path, "throughput", "slot size (bytes)", "MB/s", perRound, true, true)
	}},
}

// Two pixels differ when a channel differs by more than pixelSlack of 255;
// two pictures match when at most pictureSlack pixels differ. The slack
// absorbs the anti-aliasing of another processor's arithmetic; a letter
// cut off or a line hidden changes far more (TestReferencesCatchDamage).
const (
	pixelSlack   = 64
	pictureSlack = 6
)

// TestPicturesMatchReferences renders each kind of picture to PNG and
// compares it with its reference in testdata/, drawn by a build whose
// pictures were looked at and found right: every text inside the picture
// and whole, every line visible, zeros counted in the legend. A change that
// moves, cuts or hides anything fails here; if the change is meant, look at
// the new pictures (the failure names them) and rewrite the references
// with go test ./plot -run References -update.
func TestPicturesMatchReferences(t *testing.T) {
	out := t.TempDir()
	for _, p := range pictures {
		got := drawPNG(t, p, out)
		ref := filepath.Join("testdata", p.name+".png")
		if *update {
			if err := writePNG(ref, got); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := readPNG(ref)
		if err != nil {
			t.Fatalf("%s: %v (rewrite the references with -update)", p.name, err)
		}
		if n := differingPixels(want, got); n > pictureSlack {
			kept := filepath.Join(os.TempDir(), "residentlua-"+p.name+".png")
			_ = writePNG(kept, got)
			t.Errorf("%s: %d pixels differ from %s (at most %d may); this build's picture is %s", p.name, n, ref, pictureSlack, kept)
		}
	}
}

// TestReferencesCatchDamage checks that the comparison is strict enough to
// fail what it is there for: a line left out, and one letter cut from a
// label.
func TestReferencesCatchDamage(t *testing.T) {
	out := t.TempDir()
	whole := drawPNG(t, pictures[2], out)
	oneLine := map[string][]Point{"credits=1": perRound["credits=1"]}
	hidden := drawPNG(t, picture{"hidden", func(path string) error {
		return Lines(path, "latency, 8 rounds (simulated time)", "slot size (bytes)", "time per round, steady state (µs)", oneLine, true, false)
	}}, out)
	cut := drawPNG(t, picture{"cut", func(path string) error {
		return Lines(path, "latency, 8 rounds (simulated time", "slot size (bytes)", "time per round, steady state (µs)", perRound, true, false)
	}}, out)
	clipped := clipRight(whole, 5)
	for what, damaged := range map[string]image.Image{"a hidden line": hidden, "a cut title": cut, "the last tick label half cut": clipped} {
		n := differingPixels(whole, damaged)
		t.Logf("%s changes %d pixels", what, n)
		if n <= 2*pictureSlack {
			t.Errorf("%s changes %d pixels, too few to fail the comparison with a margin (slack %d)", what, n, pictureSlack)
		}
	}
}

// clipRight is img with the rightmost w columns of its ink in the bottom
// tenth (the x axis's last tick label) painted white, as a viewer whose
// font is too wide for the room would cut it.
func clipRight(img image.Image, w int) image.Image {
	b := img.Bounds()
	out := image.NewRGBA(b)
	draw.Draw(out, b, img, b.Min, draw.Src)
	right := -1
	for y := b.Max.Y - b.Dy()/10; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if r, _, _, _ := img.At(x, y).RGBA(); r < 0x8000 && x > right {
				right = x
			}
		}
	}
	draw.Draw(out, image.Rect(right-w+1, b.Max.Y-b.Dy()/10, right+1, b.Max.Y), image.White, image.Point{}, draw.Src)
	return out
}

// drawPNG draws p as a PNG in dir and decodes it.
func drawPNG(t *testing.T, p picture, dir string) image.Image {
	t.Helper()
	path := filepath.Join(dir, p.name+".png")
	if err := p.draw(path); err != nil {
		t.Fatalf("%s: %v", p.name, err)
	}
	img, err := readPNG(path)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// differingPixels counts the pixels in which a and b differ by more than
// pixelSlack in a channel; pictures of different sizes differ everywhere.
func differingPixels(a, b image.Image) int {
	ra, rb := a.Bounds(), b.Bounds()
	if ra != rb {
		return max(ra.Dx()*ra.Dy(), rb.Dx()*rb.Dy())
	}
	n := 0
	for y := ra.Min.Y; y < ra.Max.Y; y++ {
		for x := ra.Min.X; x < ra.Max.X; x++ {
			r1, g1, b1, a1 := a.At(x, y).RGBA()
			r2, g2, b2, a2 := b.At(x, y).RGBA()
			for _, d := range [...][2]uint32{{r1, r2}, {g1, g2}, {b1, b2}, {a1, a2}} {
				if diff := int(d[0]>>8) - int(d[1]>>8); diff > pixelSlack || diff < -pixelSlack {
					n++
					break
				}
			}
		}
	}
	return n
}

func readPNG(path string) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return img, nil
}

func writePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
