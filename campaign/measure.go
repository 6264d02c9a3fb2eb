package campaign

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Histograms record values in nanoseconds (of a count, a billionth of one)
// from 1 to histHighest, to histDigits significant digits: every percentile
// is within 0.1% of the value it stands for.
const (
	nanos       = 1e9
	histHighest = MaxRecord * nanos
	histDigits  = 3
)

// Measurement is the distribution of one recorded measurement over the
// trials: exact count, minimum and maximum, and an HDR histogram for the
// mean and the percentiles. Merge adds histograms bucket by bucket, so a
// merged measurement is the one a single run records.
type Measurement struct {
	Count    int64
	Min, Max float64
	// Whole is true when every value recorded was a whole number (a count
	// rather than a time): the text shows it without a unit.
	Whole bool
	hist  *hdrhistogram.Histogram
}

func newMeasurement() *Measurement {
	return &Measurement{Whole: true, hist: hdrhistogram.New(1, histHighest, histDigits)}
}

// add records one value, from 0 to MaxRecord (t.record checks).
func (m *Measurement) add(v float64) {
	if m.Count == 0 || v < m.Min {
		m.Min = v
	}
	if m.Count == 0 || v > m.Max {
		m.Max = v
	}
	m.Count++
	m.Whole = m.Whole && v == math.Trunc(v)
	_ = m.hist.RecordValue(max(1, int64(math.Round(v*nanos)))) // in range: t.record checks
}

// merge adds o's values to m.
func (m *Measurement) merge(o *Measurement) {
	if o.Count == 0 {
		return
	}
	if m.Count == 0 || o.Min < m.Min {
		m.Min = o.Min
	}
	if m.Count == 0 || o.Max > m.Max {
		m.Max = o.Max
	}
	m.Count += o.Count
	m.Whole = m.Whole && o.Whole
	m.hist.Merge(o.hist)
}

// Mean is the mean of the values, from the histogram.
func (m *Measurement) Mean() float64 { return m.clamp(m.hist.Mean() / nanos) }

// Quantile is the value below or at which q percent of the values lie
// (the histogram's highest equivalent value, and for whole numbers the
// whole number below it), never beyond the exact minimum and maximum.
func (m *Measurement) Quantile(q float64) float64 {
	v := float64(m.hist.ValueAtQuantile(q)) / nanos
	if m.Whole {
		v = math.Floor(v)
	}
	return m.clamp(v)
}

func (m *Measurement) clamp(v float64) float64 { return min(max(v, m.Min), m.Max) }

// measurementJSON is a Measurement in a summary file: the figures for a
// reader, and the histogram (HdrHistogram's V2 compressed encoding, in
// base64, which HdrHistogram's tools in every language decode) for Merge.
type measurementJSON struct {
	Count     int64   `json:"count"`
	Mean      float64 `json:"mean"`
	Min       float64 `json:"min"`
	P50       float64 `json:"p50"`
	P90       float64 `json:"p90"`
	P99       float64 `json:"p99"`
	P999      float64 `json:"p99.9"`
	Max       float64 `json:"max"`
	Whole     bool    `json:"whole"`
	Histogram string  `json:"histogram"`
}

// MarshalJSON writes the figures and the histogram.
func (m *Measurement) MarshalJSON() ([]byte, error) {
	enc, err := m.hist.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return nil, err
	}
	return json.Marshal(measurementJSON{
		Count: m.Count, Mean: m.Mean(), Min: m.Min, Max: m.Max, Whole: m.Whole,
		P50: m.Quantile(50), P90: m.Quantile(90), P99: m.Quantile(99), P999: m.Quantile(99.9),
		Histogram: string(enc),
	})
}

// UnmarshalJSON reads a measurement back from its histogram, count,
// minimum and maximum; the other figures are computed again.
func (m *Measurement) UnmarshalJSON(b []byte) error {
	var j measurementJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	h, err := hdrhistogram.Decode([]byte(j.Histogram))
	if err != nil {
		return fmt.Errorf("histogram: %w", err)
	}
	if h.LowestTrackableValue() != 1 || h.HighestTrackableValue() < histHighest || h.SignificantFigures() != histDigits {
		return fmt.Errorf("histogram: not one a campaign records (values 1 to %g, %d digits)", float64(histHighest), histDigits)
	}
	if h.TotalCount() != j.Count || j.Count < 0 || j.Min > j.Max {
		return fmt.Errorf("histogram: holds %d values, the count says %d", h.TotalCount(), j.Count)
	}
	*m = Measurement{Count: j.Count, Min: j.Min, Max: j.Max, Whole: j.Whole, hist: newMeasurement().hist}
	m.hist.Merge(h)
	return nil
}
