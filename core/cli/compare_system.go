package cli

import (
	"context"
	"strings"

	"apic/sims"
)

// compareSystem is compare's system: --system's, else that of the first
// --checkpoint file, which names its own as it does for eval, diagnose
// and calibrate ("apic compare --checkpoint mine.safetensors" was
// refused for want of a --system the file already says). The files'
// agreement with it is checked as they load (compareModels).
func compareSystem(ctx context.Context, system string, files []string) (sims.System, error) {
	if system == "" && len(files) > 0 {
		m, _, err := OpenFlagCheckpoint(ctx, "checkpoint", files[0])
		if err != nil {
			return nil, err
		}
		return m.Sys, nil
	}
	if system == "" {
		return nil, UsageError("give --system (one of %s), or a --checkpoint FILE, which names its system", strings.Join(sims.Names(), ", "))
	}
	sys, err := sims.Lookup(system)
	if err != nil {
		return nil, UsageError("%v", err)
	}
	return sys, nil
}
