package plot

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"io"

	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// glyphCanvas draws every string as the filled outlines of its font's
// glyphs instead of as text, so that a picture looks the same wherever it is
// opened: an SVG viewer without the font would otherwise put another font in
// its place, whose wider letters the layout (made with this font's metrics)
// has no room for, and cut labels off. It keeps the strings it drew, in
// order, for the SVG's title and description.
type glyphCanvas struct {
	vg.CanvasWriterTo
	drawn *[]string
}

// newGlyphCanvas wraps c.
func newGlyphCanvas(c vg.CanvasWriterTo) glyphCanvas {
	return glyphCanvas{CanvasWriterTo: c, drawn: new([]string)}
}

// FillString fills the outlines of s's glyphs in f, its baseline starting
// at pt, as the font's own advances and kerning place them (the ones the
// layout measured with f.Width).
func (c glyphCanvas) FillString(f font.Face, pt vg.Point, s string) {
	*c.drawn = append(*c.drawn, s)
	if p := glyphPath(f, pt, s); len(p) > 0 {
		c.Fill(p)
	}
}

// glyphPath is the outline of s in f with its baseline starting at pt. The
// font's coordinates point down; the canvas's point up.
func glyphPath(f font.Face, pt vg.Point, s string) vg.Path {
	var (
		buf   sfnt.Buffer
		ppem  = fixed.Int26_6(f.Face.UnitsPerEm())
		scale = f.Font.Size.Points() / float64(ppem)
		path  vg.Path
		pen   fixed.Int26_6
		prev  sfnt.GlyphIndex
	)
	at := func(p fixed.Point26_6) vg.Point {
		return vg.Point{X: pt.X + vg.Points(float64(pen+p.X)*scale), Y: pt.Y - vg.Points(float64(p.Y)*scale)}
	}
	for i, r := range s {
		idx, err := f.Face.GlyphIndex(&buf, r)
		if err != nil {
			panic(fmt.Errorf("plot: no glyph for %q: %v", r, err))
		}
		if i > 0 {
			kern, err := f.Face.Kern(&buf, prev, idx, ppem, 0)
			if err == nil {
				pen += kern
			} else if !errors.Is(err, sfnt.ErrNotFound) {
				panic(fmt.Errorf("plot: kerning: %v", err))
			}
		}
		segments, err := f.Face.LoadGlyph(&buf, idx, ppem, nil)
		if err != nil {
			panic(fmt.Errorf("plot: outline of %q: %v", r, err))
		}
		for j, seg := range segments {
			switch seg.Op {
			case sfnt.SegmentOpMoveTo:
				if j > 0 {
					path.Close()
				}
				path.Move(at(seg.Args[0]))
			case sfnt.SegmentOpLineTo:
				path.Line(at(seg.Args[0]))
			case sfnt.SegmentOpQuadTo:
				path.QuadTo(at(seg.Args[0]), at(seg.Args[1]))
			case sfnt.SegmentOpCubeTo:
				path.CubeTo(at(seg.Args[0]), at(seg.Args[1]), at(seg.Args[2]))
			}
		}
		if len(segments) > 0 {
			path.Close()
		}
		adv, err := f.Face.GlyphAdvance(&buf, idx, ppem, 0)
		if err != nil {
			panic(fmt.Errorf("plot: advance of %q: %v", r, err))
		}
		pen += adv
		prev = idx
	}
	return path
}

// titledSVG is the SVG a glyphCanvas drew, with a <title> (the picture's
// title) and a <desc> that lists every string drawn, one a line, so that
// the words of a picture whose text is outlines can still be searched and
// read aloud.
type titledSVG struct {
	c     glyphCanvas
	title string
}

// WriteTo writes the SVG.
func (t titledSVG) WriteTo(w io.Writer) (int64, error) {
	var svg bytes.Buffer
	if _, err := t.c.WriteTo(&svg); err != nil {
		return 0, err
	}
	head, body, ok := bytes.Cut(svg.Bytes(), []byte("<g "))
	if !ok {
		return 0, errors.New("plot: the SVG has no group to put its title before")
	}
	var out bytes.Buffer
	out.Write(head)
	fmt.Fprintf(&out, "<title>%s</title>\n<desc>\n", html.EscapeString(t.title))
	for _, s := range *t.c.drawn {
		out.WriteString(html.EscapeString(s))
		out.WriteByte('\n')
	}
	out.WriteString("</desc>\n<g ")
	out.Write(body)
	return out.WriteTo(w)
}
