package cli

// maxSamples bounds --samples: far more Monte-Carlo latent samples than
// any estimate needs, and few enough that the sample tensors fit in
// memory (an out-of-memory crash cannot be recovered or reported).
const maxSamples = 10000

// checkSamples refuses a --samples above maxSamples.
func checkSamples(n int) error {
	if n > maxSamples {
		return UsageError("--samples must be at most %d, got %d", maxSamples, n)
	}
	return nil
}
