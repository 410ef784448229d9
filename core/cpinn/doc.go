// Package cpinn is the per-realization Correction-PINN baseline of the
// APIC paper, after Zou, Meng & Karniadakis (J. Comput. Phys. 505:112918,
// 2024; no public code). For one realization's context it trains an
// ensemble of M physics-informed networks, each from its own seed:
//
//   - u_W, a tanh MLP (3 hidden layers of 64) from the system's input
//     features (time on [−1, 1]; for advdiff also sin and cos of 2πx and
//     4πx, so u is periodic in x) to the observed channels;
//   - s_V, a tanh MLP (2 hidden layers of 32) from the same features to
//     a correction added inside the nominal equation (sims.Equations);
//   - θ, trainable inside its prior box through a scaled logistic. (The
//     APIC paper trains θ with s on; Zou et al. fix θ while s is on.)
//
// Each member minimises, by full-batch Adam over a fixed number of steps,
//
//	L = mean_ctx (u − y)² + mean_coll R(u; θ, s)² + mean_IC r_0² + λ_s mean_coll s²,
//
// the data misfit on the context, the nominal equations' residual at
// collocation states (the grid's times for the ODEs, a seeded subset of
// the grid for advdiff), the initial conditions, and a small penalty on
// the correction (ours: without it s can absorb any θ; λ_s = 0.1). The
// derivatives of u inside R come from jets carried through the network
// (nets.JetLayer). Ours as well (see train.go): the learning rate decays
// exponentially to a tenth of its start over the budget, θ's is ten
// times the networks', Adam's β₂ is 0.99, the physics terms ramp in over
// the first 30% of the steps, and the solution network's first layer
// starts four times the Glorot scale.
//
// Prediction: the mean and variance of û across members; θ̂ the mean of
// the members' θ and ThetaStd their spread; the discrepancy per member
// û_m − F(x; θ_m), with its mean and variance across members. Both
// variances get the members' mean final context misfit added (ours), so
// that a one-member ensemble or one whose members agree still has a
// finite log-likelihood.
//
// On advdiff the nominal equation is divided by 10 (sims'
// advdiffResidualScale; ours, as spring's is divided by ω_max²): its
// transport terms are of order ten, and unscaled the residual drove v to
// the bottom of its box while the solution network could not yet follow
// the data; θ is also held at its start over advdiff's ramp-in
// (thetaHold). TestRecoversAdvDiffTheta recovers v and κ with one member.
package cpinn
