//! CCSA (`minkowski::optimize`) on textbook problems with known optima.
#![allow(clippy::unnecessary_cast)]
#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

use minkowski::optimize::{ccsa_minimize, CcsaOptions, CcsaProblem, CcsaStatus};

/// Svanberg's cantilever beam (MMA paper 1987, §6.1; also NLopt's and Svanberg's test
/// set): minimise 0.0624 Σ x_j s.t. 61/x1³ + 37/x2³ + 19/x3³ + 7/x4³ + 1/x5³ ≤ 1;
/// optimum ≈ 1.3400 at x ≈ (6.016, 5.309, 4.494, 3.502, 2.153).
struct Cantilever;
impl CcsaProblem for Cantilever {
    fn dimension(&self) -> usize { 5 }
    fn constraint_count(&self) -> usize { 1 }
    fn evaluate(&mut self, x: &[f64], v: &mut [f64], g: &mut [f64]) {
        let c = [61.0, 37.0, 19.0, 7.0, 1.0];
        v[0] = 0.0624 * x.iter().sum::<f64>();
        v[1] = -1.0;
        for j in 0..5 {
            g[j] = 0.0624;
            v[1] += c[j] / x[j].powi(3);
            g[5 + j] = -3.0 * c[j] / x[j].powi(4);
        }
    }
}

#[test]
fn cantilever() {
    let r = ccsa_minimize(&mut Cantilever, &[5.0; 5], &[1.0; 5], &[10.0; 5], &CcsaOptions::default()).unwrap();
    println!("{r:?}");
    assert_eq!(r.status, CcsaStatus::Converged);
    assert!((r.objective - 1.33996).abs() < 1e-4);
}
