// Package kohgp is the per-realization Kennedy–O'Hagan baseline: for one
// realization's context it fits
//
//	y_c(x) = F_c(x; θ) + δ_c(x) + ε,   δ_c ~ GP(0, k_c),   ε ~ N(0, σ_n,c²),
//
// with F the system's nominal simulator, one independent discrepancy GP
// per observed channel c (prey and predator for lv), and the anisotropic
// squared-exponential kernel of kernel.go. θ and every channel's
// (σ_f, ℓ_1..ℓ_D, σ_n) maximise the log marginal likelihood of the
// context,
//
//	log p(y | θ, η) = Σ_c −½ r_cᵀ K_c⁻¹ r_c − ½ log|K_c| − (n_c/2) log 2π,
//	r_c = y_c − F_c(X_c; θ),
//
// by L-BFGS (gonum/optimize) from several Latin-hypercube starts over
// the prior, with analytic gradients: the GP part in closed form and the
// θ part as a vector-Jacobian product through the system's differentiable
// simulator (sims.System.NominalOp on a nets.Tape).
//
// Predictions on the grid are the plug-in posterior at the optimum:
// mean F(x*; θ̂) + E[δ(x*)], variance Var[δ(x*)] + σ_n²; the discrepancy
// prediction is the GP posterior itself with the same observation-space
// variance (core.Prediction's convention). θ's uncertainty is not
// propagated into the predictions (the classical KOH plug-in); ThetaStd
// is the Laplace standard deviation from the Hessian of the negative log
// marginal likelihood in θ at fixed hyperparameters.
//
// The kernel is the plain RBF in every state dimension, as in the paper's
// baseline, including advdiff's periodic x: the context fills the domain,
// so ignoring the wrap-around costs only a little at the edges.
package kohgp
