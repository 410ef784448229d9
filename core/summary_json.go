package core

import (
	"encoding/json"
	"fmt"
	"math"
)

// MarshalJSON writes a summary as {"mean": m, "std": s}. JSON has no
// NaN or infinities, which a metric can take (the log-likelihood of a
// prediction with no spread at a point it misses is −∞): those are
// written as the strings "NaN", "Infinity" and "-Infinity", so that a
// report or a checkpoint's metrics always serialise.
func (s Summary) MarshalJSON() ([]byte, error) {
	return fmt.Appendf(nil, `{"mean":%s,"std":%s}`, jsonFloat(s.Mean), jsonFloat(s.Std)), nil
}

// UnmarshalJSON reads what MarshalJSON writes, which always has both
// numbers: a summary without one (a hand edit, {"std": 0.1}) is refused
// rather than read as a mean of 0, a perfect score.
func (s *Summary) UnmarshalJSON(data []byte) error {
	var raw struct{ Mean, Std json.RawMessage }
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		raw  json.RawMessage
	}{{"mean", raw.Mean}, {"std", raw.Std}} {
		if len(f.raw) == 0 || string(f.raw) == "null" {
			return fmt.Errorf("no %s: a summary has a mean and a std", f.name)
		}
	}
	var err error
	if s.Mean, err = parseJSONFloat(raw.Mean); err != nil {
		return fmt.Errorf("mean: %w", err)
	}
	if s.Std, err = parseJSONFloat(raw.Std); err != nil {
		return fmt.Errorf("std: %w", err)
	}
	return nil
}

// jsonFloat is v as a JSON number, or as a string for NaN and ±Inf.
func jsonFloat(v float64) string {
	switch {
	case math.IsNaN(v):
		return `"NaN"`
	case math.IsInf(v, 1):
		return `"Infinity"`
	case math.IsInf(v, -1):
		return `"-Infinity"`
	}
	b, _ := json.Marshal(v) // finite: cannot fail
	return string(b)
}

// parseJSONFloat reads a JSON number or one of jsonFloat's strings; an
// absent value is 0.
func parseJSONFloat(raw json.RawMessage) (float64, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch s {
		case "NaN":
			return math.NaN(), nil
		case "Infinity":
			return math.Inf(1), nil
		case "-Infinity":
			return math.Inf(-1), nil
		}
		return 0, fmt.Errorf("%q is not a number", s)
	}
	var v float64
	err := json.Unmarshal(raw, &v)
	return v, err
}
