// Package bcpi is the per-realization BCPI baseline of the APIC paper:
// Bayesian calibration with physics-informed priors (Spitieris &
// Steinsland, JMLR 24(108), 2023; their R/Stan code is public). For a
// nominal model that is a linear differential equation L_θ u = 0
// (sims.LinearEquations) it puts u ~ GP(0, α² g), g a product of
// squared exponentials over the state dimensions (periodic in x for
// advdiff, by wrapping over the images m = −2..2), and observes jointly
//
//	y(X_u) = u(X_u) + δ(X_u) + ε,   δ ~ GP(0, α_δ² g_δ),  ε ~ N(0, σ_u²),
//	(L_θ u)(X_f) = 0                 at the collocation states,
//	the initial conditions           as observations of u (and u_t),
//
// a Gaussian with covariance [[K_uu + K_δ + σ_u² I, K_uf], [K_fu, K_ff]]:
// K_uf = L′k and K_ff = L L′k come from one rule for the derivatives of
// g, g⁽ⁿ⁾(r) = (−1/ℓ)ⁿ Heₙ(r/ℓ) g(r) (kernel.go); θ enters through the
// operator's coefficients and the initial slope. The discrepancy is in
// the data rows only.
//
// Inference: the MAP of θ and the hyperparameters by L-BFGS from 10
// starts (the authors' "PI_opt"; ours: the starts are the best of a
// random design twenty times larger, since the collocation constraints
// make the likelihood sharply peaked in θ), with the analytic gradient
// of the log marginal likelihood from one factorisation and one inverse
// (grad.go; θ's part by central differences of the covariance, not of
// the likelihood), then a seeded adaptive Metropolis chain (Haario et
// al. 2001; the authors use NUTS) from the MAP with a fixed budget,
// whose second half is kept. Priors (ours): θ uniform on its box; the
// log hyperparameters normal with standard deviation 1.5 around the
// data's scale (α; a tenth of it for advdiff's GP on the deviation from
// the nominal solution), a tenth of it (α_δ), a hundredth (σ_u) and, for the
// length scales, a fifth of the domain for a system of time alone and
// four grid spacings for a field over time and space.
//
// Predictions: the mixture of the Gaussian conditionals of u + δ + ε on
// the grid over 20 evenly spaced kept draws; θ̂ the posterior mean; the
// discrepancy's mean the corrected mean minus F(x; θ̂) (BENCHMARKS.md).
//
// Systems: spring (L = ∂t² + ω², 50 collocation times, u(0) = 0 and
// u_t(0) = ω) and advdiff (L = ∂t + v∂x − κ∂x², 256 collocation states, u₀
// at t = 0). lv is nonlinear; our extension linearises it around the
// nominal RK4 solution ū_θ from the known u₀: u = ū_θ + w with independent
// GPs on the two channels of w, w′ − J_θ(t) w = 0 at 50 collocation times
// (J the Jacobian of the nominal right-hand side along ū_θ) and w(0) = 0;
// θ then enters the prior mean ū_θ as well as the operator. advdiff,
// ours likewise: the GP is on w = u − F(·; θ), F the nominal spectral
// solution from u₀, with L_θ w = 0 at the collocation states and w = 0
// at t = 0 — the same constraints on u, but a prior that travels with
// the field (with a zero mean the separable kernel cannot, and the MAP
// went to the box's corner with the discrepancy carrying the transport;
// see usesNominalMean) — and relative noise 10⁻⁴ instead of 10⁻⁶ on the
// physics rows, which are otherwise too nearly collinear to factorise.
//
// Cost: advdiff's joint covariance has 576 rows (256 data, 256
// collocation, 64 initial), so each L-BFGS iteration takes a few tenths
// of a second and each Metropolis step tens of milliseconds.
package bcpi
