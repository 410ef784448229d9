// Package nets provides dense float64 tensors, a reverse-mode automatic
// differentiation tape, neural-network layers, the Adam optimizer and a
// safetensors reader/writer. It knows nothing of physics.
//
// Tensors are two-dimensional and row-major. Batches are laid out
// batch-first: a set of N points for each of B realizations is a [B*N, F]
// tensor whose rows i*N..(i+1)*N-1 belong to realization i.
package nets

import (
	"fmt"
	"math"
)

// Tensor is a dense row-major matrix of float64 values.
type Tensor struct {
	Rows, Cols int
	Data       []float64
}

// NewTensor returns a zero tensor of shape [rows, cols].
func NewTensor(rows, cols int) *Tensor {
	if rows < 0 || cols < 0 {
		panic(fmt.Sprintf("nets: negative shape [%d, %d]", rows, cols))
	}
	return &Tensor{Rows: rows, Cols: cols, Data: make([]float64, rows*cols)}
}

// FromSlice wraps data (not copied) as a tensor of shape [rows, cols].
func FromSlice(rows, cols int, data []float64) *Tensor {
	if len(data) != rows*cols {
		fromSlicePanic(len(data), rows, cols)
	}
	// Small enough to inline: a tensor that its caller does not keep
	// then lives on the caller's stack.
	return &Tensor{Rows: rows, Cols: cols, Data: data}
}

//go:noinline
func fromSlicePanic(n, rows, cols int) {
	panic(fmt.Sprintf("nets: FromSlice: %d values for shape [%d, %d]", n, rows, cols))
}

// Scalar returns a 1×1 tensor holding v.
func Scalar(v float64) *Tensor { return &Tensor{Rows: 1, Cols: 1, Data: []float64{v}} }

// At returns the element at row i, column j.
func (t *Tensor) At(i, j int) float64 { return t.Data[i*t.Cols+j] }

// Set sets the element at row i, column j.
func (t *Tensor) Set(i, j int, v float64) { t.Data[i*t.Cols+j] = v }

// Row returns row i as a slice aliasing the tensor's data.
func (t *Tensor) Row(i int) []float64 { return t.Data[i*t.Cols : (i+1)*t.Cols] }

// Len is the number of elements.
func (t *Tensor) Len() int { return len(t.Data) }

// Clone returns a deep copy.
func (t *Tensor) Clone() *Tensor {
	c := NewTensor(t.Rows, t.Cols)
	copy(c.Data, t.Data)
	return c
}

// Zero sets every element to zero.
func (t *Tensor) Zero() { clear(t.Data) }

// SameShape reports whether t and u have the same shape.
func (t *Tensor) SameShape(u *Tensor) bool { return t.Rows == u.Rows && t.Cols == u.Cols }

// Shape formats the shape as "[rows, cols]".
func (t *Tensor) Shape() string { return fmt.Sprintf("[%d, %d]", t.Rows, t.Cols) }

// AllFinite reports whether no element is NaN or ±Inf.
func (t *Tensor) AllFinite() bool {
	for _, v := range t.Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// AddScaled sets t += alpha*u element-wise; shapes must match.
func (t *Tensor) AddScaled(alpha float64, u *Tensor) {
	if !t.SameShape(u) {
		panic(fmt.Sprintf("nets: AddScaled shape %s vs %s", t.Shape(), u.Shape()))
	}
	for i, v := range u.Data {
		t.Data[i] += alpha * v
	}
}
