package tui

import "slices"

// picker chooses one of a few named options (system, backbone,
// regularizer, training mode); ←/→ cycle through them.
type picker struct {
	label   string
	options []string
	idx     int
}

func newPicker(label string, options []string, start string) picker {
	return picker{label: label, options: options, idx: max(0, slices.Index(options, start))}
}

func (p picker) value() string { return p.options[p.idx] }

// step moves d options, wrapping around.
func (p picker) step(d int) picker {
	n := len(p.options)
	p.idx = ((p.idx+d)%n + n) % n
	return p
}

// set selects option v when it exists.
func (p picker) set(v string) picker {
	if i := slices.Index(p.options, v); i >= 0 {
		p.idx = i
	}
	return p
}

func (p picker) view(w int, focused bool, t theme) string {
	return controlRow(t, w, focused, p.label, p.value(), len(p.options) > 1, len(p.options) > 1)
}
