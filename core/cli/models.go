package cli

import (
	"strings"

	"apic/checkpoints"
	"apic/core"
	"apic/sims"
)

// loadModel opens the model a command works on: the checkpoint file when
// path is set (system and backbone, when given, must match it), otherwise
// the embedded checkpoint for system and backbone (empty: lnp). It
// returns a description of where the weights came from.
func loadModel(path, system, backbone string) (*core.Model, core.Info, string, error) {
	if path != "" {
		m, info, err := core.LoadCheckpoint(path)
		if err != nil {
			return nil, core.Info{}, "", UsageError("%v", err)
		}
		if system != "" && system != m.Config.Arch.System {
			return nil, core.Info{}, "", UsageError("--system %s disagrees with checkpoint %s (system %s)", system, path, m.Config.Arch.System)
		}
		if b := m.Config.Arch.Backbone; backbone != "" && backbone != string(b) {
			return nil, core.Info{}, "", UsageError("--backbone %s disagrees with checkpoint %s (backbone %s)", backbone, path, b)
		}
		return m, info, path, nil
	}
	if backbone == "" {
		backbone = string(core.LNP)
	}
	if system == "" {
		return nil, core.Info{}, "", UsageError("give --checkpoint FILE, or --system (%s) to use an embedded checkpoint", strings.Join(sims.Names(), ", "))
	}
	if _, err := sims.Lookup(system); err != nil {
		return nil, core.Info{}, "", UsageError("%v", err)
	}
	if _, err := core.ParseBackbone(backbone); err != nil {
		return nil, core.Info{}, "", UsageError("%v", err)
	}
	data, ok := checkpoints.Lookup(system, backbone)
	if !ok {
		return nil, core.Info{}, "", UsageError("no embedded checkpoint for %s/%s; train one with 'apic train' and pass --checkpoint", system, backbone)
	}
	m, info, err := core.DecodeCheckpoint(data)
	if err != nil {
		return nil, core.Info{}, "", err
	}
	return m, info, embeddedPrefix + checkpoints.Name(system, backbone), nil
}
