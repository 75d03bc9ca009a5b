package sdk

import "encoding/json"

// Sampling is the front doors' sampling knobs as a plugin reads them from
// Request.Options (top_p, top_k, seed): each nil when the request did not
// set it. A plugin renders those its wire has a field for and declares
// them in Info.Options.
type Sampling struct {
	TopP *float64 // 0 to 1
	TopK *int     // at least 1
	Seed *int64
}

// SamplingOf reads the sampling knobs of opts; a value of the wrong type
// or out of range is a permanent error naming the option.
func SamplingOf(opts map[string]json.RawMessage) (Sampling, error) {
	var s Sampling
	if v, ok := opts["top_p"]; ok {
		var p float64
		if err := json.Unmarshal(v, &p); err != nil || p < 0 || p > 1 {
			return Sampling{}, Permanentf("option top_p: want a number from 0 to 1")
		}
		s.TopP = &p
	}
	if v, ok := opts["top_k"]; ok {
		var k int
		if err := json.Unmarshal(v, &k); err != nil || k < 1 {
			return Sampling{}, Permanentf("option top_k: want a positive integer")
		}
		s.TopK = &k
	}
	if v, ok := opts["seed"]; ok {
		var n int64
		if err := json.Unmarshal(v, &n); err != nil {
			return Sampling{}, Permanentf("option seed: want an integer")
		}
		s.Seed = &n
	}
	return s, nil
}
