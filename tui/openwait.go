package tui

// An open reads its file in the background (openCmd); until it ends
// the weights on screen are about to be replaced by the file's. A key
// that acts on those weights (t trains them, s saves them, u undoes
// the last change to them) waits for the open, which would otherwise
// stop the run it started, or leave the user with a file of the
// weights the open then replaced.

// waitForOpen reports whether an open is still reading a file, and
// then says so, with how to give it up, in place of the key's action.
func (m *Model) waitForOpen() bool {
	if m.opening == "" {
		return false
	}
	m.setKeyMsg(msgWarn, "still opening %s: wait for it, or esc gives it up", m.opening)
	return true
}
