package nets

// The vector forms of reluInPlace, addReLU and addInto where the CPU has
// them (relu_amd64.go): each does a leading part of the values and
// returns how many; nil does none.
var (
	reluFast    func(d []float64) int
	addReLUFast func(d, b []float64) int
	addFast     func(d, x, y []float64) int
)

// reluInPlace sets d[i] = reluBits(d[i]).
func reluInPlace(d []float64) {
	i := 0
	if reluFast != nil {
		i = reluFast(d)
	}
	for ; i < len(d); i++ {
		d[i] = reluBits(d[i])
	}
}

// addReLU sets d[i] = reluBits(d[i] + b[i]) for i < len(d) ≤ len(b).
func addReLU(d, b []float64) {
	b = b[:len(d)]
	i := 0
	if addReLUFast != nil {
		i = addReLUFast(d, b)
	}
	for ; i < len(d); i++ {
		d[i] = reluBits(d[i] + b[i])
	}
}

// addInto sets d[i] = x[i] + y[i] for i < len(d) ≤ len(x), len(y).
func addInto(d, x, y []float64) {
	x, y = x[:len(d)], y[:len(d)]
	i := 0
	if addFast != nil {
		i = addFast(d, x, y)
	}
	for ; i < len(d); i++ {
		d[i] = x[i] + y[i]
	}
}
