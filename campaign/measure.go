package campaign

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Histograms record values in nanoseconds (of a count, a billionth of one)
// from 0 to histHighest, to histDigits significant digits: every percentile
// is within 0.1% of the value it stands for.
const (
	nanos       = 1e9
	histHighest = MaxRecord * nanos
	histDigits  = 3
)

// maxOutcomes is how many outcomes a measurement keeps a distribution of
// (for its pictures, ByOutcome). Each takes about 400 KB, so a measurement
// recorded under more outcomes (a trial that gives, say, a number per
// trial) keeps its overall distribution alone; as this depends on the set
// of outcomes alone, shards merge into what a single run keeps.
const maxOutcomes = 12

// Measurement is the distribution of one recorded measurement over the
// trials: exact count, minimum and maximum, and an HDR histogram for the
// mean and the percentiles. Merge adds histograms bucket by bucket, so a
// merged measurement is the one a single run records. Beside the overall
// histogram it keeps one per outcome of the trials that recorded the values
// (up to 12 outcomes), which the pictures draw (ByOutcome). Mean and
// Quantile give the figures the summary's text shows.
type Measurement struct {
	Count    int64
	Min, Max float64
	// Whole is true when every value recorded was a whole number (a count
	// rather than a time): the text shows it without a unit.
	Whole bool
	hist  *hdrhistogram.Histogram
	// byOutcome holds the values again by their trial's outcome; nil, with
	// manyOutcomes set, once there were more than maxOutcomes outcomes.
	byOutcome    map[string]*hdrhistogram.Histogram
	manyOutcomes bool
}

func newMeasurement() *Measurement {
	return &Measurement{Whole: true, hist: newHistogram(), byOutcome: map[string]*hdrhistogram.Histogram{}}
}

func newHistogram() *hdrhistogram.Histogram { return hdrhistogram.New(1, histHighest, histDigits) }

// add records one value, from 0 to MaxRecord (Trial.Record checks), of a trial
// whose outcome is outcome.
func (m *Measurement) add(v float64, outcome string) {
	if m.Count == 0 || v < m.Min {
		m.Min = v
	}
	if m.Count == 0 || v > m.Max {
		m.Max = v
	}
	m.Count++
	m.Whole = m.Whole && v == math.Trunc(v)
	n := histValue(v)
	_ = m.hist.RecordValue(n) // in range: Trial.Record checks
	if h := m.outcomeHistogram(outcome); h != nil {
		_ = h.RecordValue(n)
	}
}

// histValue is the value the histograms record for v: its nanoseconds (of
// a count, its billionths), at least 1.
func histValue(v float64) int64 {
	n := int64(math.Round(v * nanos))
	if n == 0 && v > 0 {
		n = 1 // above 0, if below half a nanosecond: a zero is kept for zeros alone
	}
	return n
}

// outcomeHistogram is the histogram of outcome's values, made when it is
// the first; nil once there are too many outcomes.
func (m *Measurement) outcomeHistogram(outcome string) *hdrhistogram.Histogram {
	if m.manyOutcomes {
		return nil
	}
	h := m.byOutcome[outcome]
	if h == nil {
		if len(m.byOutcome) == maxOutcomes {
			m.byOutcome, m.manyOutcomes = nil, true
			return nil
		}
		h = newHistogram()
		m.byOutcome[outcome] = h
	}
	return h
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
	if o.manyOutcomes {
		m.byOutcome, m.manyOutcomes = nil, true
	}
	for _, outcome := range slices.Sorted(maps.Keys(o.byOutcome)) {
		if h := m.outcomeHistogram(outcome); h != nil {
			h.Merge(o.byOutcome[outcome])
		}
	}
}

// Mean is the mean of the values, from the histogram.
func (m *Measurement) Mean() float64 { return m.clamp(m.hist.Mean() / nanos) }

// Quantile is the value below or at which q percent of the values lie
// (the histogram's highest equivalent value, and for whole numbers the
// whole number below it), never beyond the exact minimum and maximum.
func (m *Measurement) Quantile(q float64) float64 { return m.value(m.hist.ValueAtQuantile(q)) }

// value is a histogram's value as the measurement's figures show it: in
// the recorded unit, the whole number below it for whole numbers, never
// beyond the exact minimum and maximum.
func (m *Measurement) value(n int64) float64 {
	v := float64(n) / nanos
	if m.Whole {
		v = math.Floor(v)
	}
	return m.clamp(v)
}

func (m *Measurement) clamp(v float64) float64 { return min(max(v, m.Min), m.Max) }

// measurementJSON is a Measurement in a summary file: the figures for a
// reader, and the histograms (HdrHistogram's V2 compressed encoding, in
// base64, which HdrHistogram's tools in every language decode) for Merge:
// the overall one, and one per outcome unless ManyOutcomes.
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
	// ByOutcome holds the histograms by outcome.
	ByOutcome    map[string]string `json:"by_outcome"`
	ManyOutcomes bool              `json:"many_outcomes,omitempty"`
}

// MarshalJSON writes the figures and the histograms.
func (m *Measurement) MarshalJSON() ([]byte, error) {
	enc, err := m.hist.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return nil, err
	}
	byOutcome := map[string]string{}
	for outcome, h := range m.byOutcome {
		b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			return nil, err
		}
		byOutcome[outcome] = string(b)
	}
	return json.Marshal(measurementJSON{
		Count: m.Count, Mean: m.Mean(), Min: m.Min, Max: m.Max, Whole: m.Whole,
		P50: m.Quantile(50), P90: m.Quantile(90), P99: m.Quantile(99), P999: m.Quantile(99.9),
		Histogram: string(enc), ByOutcome: byOutcome, ManyOutcomes: m.manyOutcomes,
	})
}

// UnmarshalJSON reads a measurement back from its histograms, count,
// minimum and maximum; the other figures are computed again.
func (m *Measurement) UnmarshalJSON(b []byte) error {
	var j measurementJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	h, err := decodeHistogram("histogram", j.Histogram)
	if err != nil {
		return err
	}
	if h.TotalCount() != j.Count || j.Count < 0 || j.Min > j.Max {
		return fmt.Errorf("histogram: holds %d values, the count says %d", h.TotalCount(), j.Count)
	}
	*m = Measurement{Count: j.Count, Min: j.Min, Max: j.Max, Whole: j.Whole, hist: newHistogram(),
		byOutcome: map[string]*hdrhistogram.Histogram{}, manyOutcomes: j.ManyOutcomes}
	m.hist.Merge(h)
	return m.readByOutcome(j)
}

// readByOutcome reads j's histograms by outcome into m, and checks that
// they hold the values of the overall one.
func (m *Measurement) readByOutcome(j measurementJSON) error {
	switch {
	case j.ManyOutcomes && len(j.ByOutcome) > 0:
		return fmt.Errorf("by_outcome: %d histograms where many_outcomes says there are none", len(j.ByOutcome))
	case j.ManyOutcomes:
		m.byOutcome = nil
		return nil
	case len(j.ByOutcome) > maxOutcomes:
		return fmt.Errorf("by_outcome: %d outcomes, more than the %d a summary keeps", len(j.ByOutcome), maxOutcomes)
	}
	var total int64
	for outcome, enc := range j.ByOutcome {
		h, err := decodeHistogram(fmt.Sprintf("by_outcome %q", outcome), enc)
		if err != nil {
			return err
		}
		m.byOutcome[outcome] = newHistogram()
		m.byOutcome[outcome].Merge(h)
		total += h.TotalCount()
	}
	if total != m.Count {
		return fmt.Errorf("by_outcome: the histograms hold %d values, the count says %d", total, m.Count)
	}
	return nil
}

// decodeHistogram decodes one histogram of a summary file and checks it is
// one a campaign records; what names it in an error.
func decodeHistogram(what, enc string) (*hdrhistogram.Histogram, error) {
	h, err := hdrhistogram.Decode([]byte(enc))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if h.LowestTrackableValue() != 1 || h.HighestTrackableValue() < histHighest || h.SignificantFigures() != histDigits {
		return nil, fmt.Errorf("%s: not one a campaign records (values 1 to %g, %d digits)", what, float64(histHighest), histDigits)
	}
	return h, nil
}

// ByOutcome gives, for each outcome of the trials that recorded the
// measurement, at most n values whose distribution is that outcome's, as
// the measurement's figures show them: every value when it holds that many
// at most, or else the values of evenly spaced ranks (the k-th of total
// has rank ⌈k·total/n⌉), each its histogram bucket's highest value (the
// whole number below it for counts), never beyond the exact minimum and
// maximum. An empty outcome is keyed `""`. When the trials gave more
// outcomes than a summary keeps apart (12), one entry, "all (over 12
// outcomes)", holds the distribution of every value. The histograms are
// merged bucket by bucket, so a merged summary gives what a single run
// does: what pictures of a campaign are drawn from.
func (m *Measurement) ByOutcome(n int) map[string][]float64 {
	if m.manyOutcomes {
		return map[string][]float64{fmt.Sprintf("all (over %d outcomes)", maxOutcomes): m.values(m.hist, n)}
	}
	series := map[string][]float64{}
	for outcome, h := range m.byOutcome {
		if outcome == "" {
			outcome = `""`
		}
		series[outcome] = m.values(h, n)
	}
	return series
}

// values returns at most n values whose distribution is h's (ByOutcome).
func (m *Measurement) values(h *hdrhistogram.Histogram, n int) []float64 {
	total := h.TotalCount()
	k := min(total, int64(max(n, 0)))
	values := make([]float64, 0, k)
	var before int64 // values in the buckets before b
	for _, b := range h.Distribution() {
		for int64(len(values)) < k && (int64(len(values)+1)*total+k-1)/k <= before+b.Count {
			values = append(values, m.value(b.To))
		}
		before += b.Count
	}
	return values
}
