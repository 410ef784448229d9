package sims

// PhysicalBounder is implemented by systems whose observed channels have
// values no real system can leave (a population below zero, say). Values
// outside are not measurement noise the model can explain: calibration
// warns about them.
type PhysicalBounder interface {
	// ChannelBounds returns, per channel, the inclusive range of
	// physically possible values (±Inf where unbounded).
	ChannelBounds() (lo, hi []float64)
}
