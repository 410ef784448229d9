package tui

import "math"

// sparkTicks are the eight block heights of a sparkline.
var sparkTicks = []rune("▁▂▃▄▅▆▇█")

// sparkline draws the last width values (the newest on the right) as block
// heights scaled to their own range; non-finite values are blank.
func sparkline(values []float64, width int) string {
	if width < 1 || len(values) == 0 {
		return ""
	}
	if len(values) > width {
		// Keep the whole history visible: sample it down evenly.
		s := make([]float64, width)
		for i := range s {
			s[i] = values[evenIndex(i, width, len(values))]
		}
		values = s
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range values {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	out := make([]rune, len(values))
	for i, v := range values {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			out[i] = ' '
		case hi == lo:
			out[i] = sparkTicks[len(sparkTicks)/2]
		default:
			out[i] = sparkTicks[int(math.Round((v-lo)/(hi-lo)*float64(len(sparkTicks)-1)))]
		}
	}
	return string(out)
}
