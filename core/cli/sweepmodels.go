package cli

// The cells of an evaluation sweep over checkpoints run eval with
// --checkpoint alone: eval takes each file's system and backbone, and
// the sweep's --system and --backbone reach no cell. Unchecked, a spring
// file in a sweep of --system lv, a cnp file under --backbone lnp, or
// files of two systems with no --system at all were scored, and their
// metrics tabled and drawn side by side, as if of one system's models.

// modelCheckArgs is eval, the eval arguments of cell c, with the sweep's
// --system and --backbone before them where c evaluates a checkpoint:
// for the check only (checkCells), so that eval refuses a file they
// disagree with as it refuses one given on its own command line. The
// cell runs without them, so its cmd.txt is as before.
func (s sweepSpec) modelCheckArgs(c sweepCell, eval []string) []string {
	if s.training || s.checkpointOf(c) == "" {
		return eval
	}
	var named []string
	if s.system != "" {
		named = append(named, "--system", s.system)
	}
	if s.backbone != "" {
		named = append(named, "--backbone", s.backbone)
	}
	return append(named, eval...)
}

// checkOneSystem refuses the checkpoints of cells, as loaded by check,
// when they are of more than one system: without --system, nothing
// else says which system the sweep is of.
func (s sweepSpec) checkOneSystem(cells []sweepCell, check *checkOnly) error {
	if s.training || s.system != "" {
		return nil
	}
	first, firstSystem := "", ""
	for _, c := range cells {
		path := s.checkpointOf(c)
		system, ok := check.systems[path]
		switch {
		case !ok:
		case firstSystem == "":
			first, firstSystem = path, system
		case system != firstSystem:
			return UsageError("the checkpoints are of two systems (%s: %s, %s: %s): a sweep compares one system's models; sweep each system into its own --out",
				first, firstSystem, path, system)
		}
	}
	return nil
}

// recordSystem notes the system of the checkpoint file at path that
// eval's check loaded, for checkOneSystem.
func (c *checkOnly) recordSystem(path, system string) {
	if path == "" {
		return
	}
	if c.systems == nil {
		c.systems = map[string]string{}
	}
	c.systems[path] = system
}
