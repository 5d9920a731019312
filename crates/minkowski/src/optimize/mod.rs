//! Numerical optimisation used by preprocessing steps (not by the per-query hot paths).
//!
//! * [`ccsa`]: Svanberg's conservative convex separable approximations (CCSA) with the
//!   MMA-type approximation, for smooth inequality-constrained problems with bounds on
//!   the variables. The terrain's multiresolution bounding volumes
//!   ([`crate::terrain::multires_volume`]) are built with it.
//!
//! These solvers work in `f64` in both builds of the library: they run once, when data
//! is prepared, and their answers are compared against other solvers to 1e-6, which
//! single precision cannot reach.
//!
//! Why a module of its own rather than inside `terrain`: nothing in the solver is about
//! terrain (it takes any problem through the [`ccsa::CcsaProblem`] trait), and its tests
//! are textbook problems.

pub mod ccsa;

#[doc(inline)]
pub use ccsa::{ccsa_minimize, CcsaError, CcsaOptions, CcsaProblem, CcsaResult, CcsaStatus};
