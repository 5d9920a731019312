//! CCSA (`minkowski::optimize`, Svanberg 2002 with MMA-type approximations) on textbook
//! problems with known optima: Svanberg's cantilever beam, NLopt's tutorial problem
//! (two cubic constraints), a quadratic with linear constraints solved in closed form
//! (seeded random instances, KKT by enumeration of active sets), Rosenbrock in a disc;
//! infeasible starts, non-finite evaluations, bad input.
#![allow(clippy::unnecessary_cast)]
#![allow(clippy::needless_range_loop)]

#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use common::Rng;
use minkowski::optimize::{ccsa_minimize, CcsaError, CcsaOptions, CcsaProblem, CcsaStatus};

/// Svanberg's cantilever beam (Svanberg 1987, §6.1): minimise 0.0624 Σ x_j subject to
/// 61/x1³ + 37/x2³ + 19/x3³ + 7/x4³ + 1/x5³ ≤ 1. Optimum 1.339956 at
/// (6.016, 5.309, 4.494, 3.502, 2.153).
struct Cantilever;
impl CcsaProblem for Cantilever {
    fn dimension(&self) -> usize {
        5
    }
    fn constraint_count(&self) -> usize {
        1
    }
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
fn cantilever_beam() {
    let r = ccsa_minimize(
        &mut Cantilever,
        &[5.0; 5],
        &[1.0; 5],
        &[10.0; 5],
        &CcsaOptions::default(),
    )
    .unwrap();
    assert_eq!(r.status, CcsaStatus::Converged);
    // The KKT point, from the stationarity condition 0.0624 = λ 3 c_j / x_j⁴ with the
    // constraint active: x_j = (c_j)^(1/4) s, s from Σ c_j^(1/4) / s³ = 1.
    let c: [f64; 5] = [61.0, 37.0, 19.0, 7.0, 1.0];
    let s = c.iter().map(|v| v.powf(0.25)).sum::<f64>().cbrt();
    let want = 0.0624 * s * c.iter().map(|v| v.powf(0.25)).sum::<f64>();
    assert!(
        (r.objective - want).abs() < 1e-8 * want,
        "{} vs {want}",
        r.objective
    );
    assert!((want - 1.339956).abs() < 1e-6);
    for j in 0..5 {
        assert!((r.x[j] - c[j].powf(0.25) * s).abs() < 1e-5);
    }
}

/// NLopt's tutorial: minimise √x2 subject to x2 ≥ (a x1 + b)³ for (a, b) = (2, 0) and
/// (−1, 1). Optimum √(8/27) at (1/3, 8/27).
struct Tutorial;
impl CcsaProblem for Tutorial {
    fn dimension(&self) -> usize {
        2
    }
    fn constraint_count(&self) -> usize {
        2
    }
    fn evaluate(&mut self, x: &[f64], v: &mut [f64], g: &mut [f64]) {
        v[0] = x[1].sqrt();
        g[0] = 0.0;
        g[1] = 0.5 / x[1].sqrt();
        for (i, (a, b)) in [(2.0, 0.0), (-1.0, 1.0)].into_iter().enumerate() {
            let t: f64 = a * x[0] + b;
            v[i + 1] = t.powi(3) - x[1];
            g[(i + 1) * 2] = 3.0 * a * t * t;
            g[(i + 1) * 2 + 1] = -1.0;
        }
    }
}

#[test]
fn nlopt_tutorial_problem() {
    let r = ccsa_minimize(
        &mut Tutorial,
        &[1.234, 5.678],
        &[-10.0, 1e-6],
        &[10.0, 10.0],
        &CcsaOptions::default(),
    )
    .unwrap();
    assert_eq!(r.status, CcsaStatus::Converged, "{r:?}");
    assert!((r.objective - (8.0f64 / 27.0).sqrt()).abs() < 1e-7, "{r:?}");
    assert!((r.x[0] - 1.0 / 3.0).abs() < 1e-5);
}

/// min |x − c|² s.t. A x ≤ b (small, dense), with the exact optimum by enumerating active
/// sets (the projection onto a polyhedron: for each subset S, solve the equality-
/// constrained problem and keep the feasible one with nonnegative multipliers).
struct Projection {
    c: Vec<f64>,
    a: Vec<Vec<f64>>,
    b: Vec<f64>,
}
impl CcsaProblem for Projection {
    fn dimension(&self) -> usize {
        self.c.len()
    }
    fn constraint_count(&self) -> usize {
        self.a.len()
    }
    fn evaluate(&mut self, x: &[f64], v: &mut [f64], g: &mut [f64]) {
        let n = self.c.len();
        v[0] = 0.0;
        for j in 0..n {
            v[0] += (x[j] - self.c[j]).powi(2);
            g[j] = 2.0 * (x[j] - self.c[j]);
        }
        for i in 0..self.a.len() {
            v[i + 1] = -self.b[i];
            for j in 0..n {
                v[i + 1] += self.a[i][j] * x[j];
                g[(i + 1) * n + j] = self.a[i][j];
            }
        }
    }
}

fn solve_dense(mut m: Vec<Vec<f64>>, mut r: Vec<f64>) -> Option<Vec<f64>> {
    let k = r.len();
    for c in 0..k {
        let p = (c..k).max_by(|&a, &b| m[a][c].abs().total_cmp(&m[b][c].abs()))?;
        if m[p][c].abs() < 1e-12 {
            return None;
        }
        m.swap(c, p);
        r.swap(c, p);
        for i in c + 1..k {
            let f = m[i][c] / m[c][c];
            for j in c..k {
                m[i][j] -= f * m[c][j];
            }
            r[i] -= f * r[c];
        }
    }
    let mut x = vec![0.0; k];
    for c in (0..k).rev() {
        let s: f64 = r[c] - (c + 1..k).map(|j| m[c][j] * x[j]).sum::<f64>();
        x[c] = s / m[c][c];
    }
    Some(x)
}

fn projection_optimum(p: &Projection) -> f64 {
    let (n, m) = (p.c.len(), p.a.len());
    let mut best = f64::INFINITY;
    for mask in 0u32..(1 << m) {
        let s: Vec<usize> = (0..m).filter(|i| mask & (1 << i) != 0).collect();
        // x = c − ½ Aₛᵀ μ with Aₛ x = bₛ  ⇒  (½ Aₛ Aₛᵀ) μ = Aₛ c − bₛ.
        let mm: Vec<Vec<f64>> = s
            .iter()
            .map(|&i| {
                s.iter()
                    .map(|&k| 0.5 * (0..n).map(|j| p.a[i][j] * p.a[k][j]).sum::<f64>())
                    .collect()
            })
            .collect();
        let rhs: Vec<f64> = s
            .iter()
            .map(|&i| (0..n).map(|j| p.a[i][j] * p.c[j]).sum::<f64>() - p.b[i])
            .collect();
        let Some(mu) = (if s.is_empty() {
            Some(vec![])
        } else {
            solve_dense(mm, rhs)
        }) else {
            continue;
        };
        if mu.iter().any(|&v| v < -1e-12) {
            continue;
        }
        let x: Vec<f64> = (0..n)
            .map(|j| p.c[j] - 0.5 * s.iter().zip(&mu).map(|(&i, u)| p.a[i][j] * u).sum::<f64>())
            .collect();
        let feasible =
            (0..m).all(|i| (0..n).map(|j| p.a[i][j] * x[j]).sum::<f64>() <= p.b[i] + 1e-10);
        if feasible {
            best = best.min((0..n).map(|j| (x[j] - p.c[j]).powi(2)).sum());
        }
    }
    best
}

#[test]
fn quadratics_with_linear_constraints_match_the_exact_optimum() {
    let mut rng = Rng::new(42);
    let mut active = 0;
    for case in 0..60 {
        let n = 2 + case % 4;
        let m = 1 + case % 6;
        let c: Vec<f64> = (0..n).map(|_| rng.range(-3.0, 3.0)).collect();
        let a: Vec<Vec<f64>> = (0..m)
            .map(|_| (0..n).map(|_| rng.range(-1.0, 1.0)).collect())
            .collect();
        // b such that 0 is strictly feasible.
        let b: Vec<f64> = (0..m).map(|_| rng.range(0.1, 1.5)).collect();
        let mut p = Projection { c, a, b };
        let want = projection_optimum(&p);
        if want > 1e-9 {
            active += 1;
        }
        let start: Vec<f64> = (0..n).map(|_| rng.range(-4.0, 4.0)).collect();
        let r = ccsa_minimize(
            &mut p,
            &start,
            &vec![-10.0; n],
            &vec![10.0; n],
            &CcsaOptions::default(),
        )
        .unwrap();
        assert_eq!(r.status, CcsaStatus::Converged, "case {case}: {r:?}");
        assert!(
            (r.objective - want).abs() <= 1e-7 * want.max(1.0),
            "case {case}: {} vs {want}",
            r.objective
        );
        assert!(r.max_violation <= 1e-9);
    }
    assert!(active > 30, "only {active} cases had an active constraint");
}

/// Rosenbrock's function in the disc x² + y² ≤ 2 from an infeasible start: the optimum
/// (1, 1) lies on the disc's boundary, objective 0.
struct RosenbrockDisc;
impl CcsaProblem for RosenbrockDisc {
    fn dimension(&self) -> usize {
        2
    }
    fn constraint_count(&self) -> usize {
        1
    }
    fn evaluate(&mut self, x: &[f64], v: &mut [f64], g: &mut [f64]) {
        let (a, b) = (x[0], x[1]);
        v[0] = (1.0 - a).powi(2) + 100.0 * (b - a * a).powi(2);
        g[0] = -2.0 * (1.0 - a) - 400.0 * a * (b - a * a);
        g[1] = 200.0 * (b - a * a);
        v[1] = a * a + b * b - 2.0;
        g[2] = 2.0 * a;
        g[3] = 2.0 * b;
    }
}

#[test]
fn rosenbrock_in_a_disc_from_an_infeasible_start() {
    let opts = CcsaOptions {
        max_outer_iterations: 20000,
        ..CcsaOptions::default()
    };
    let r = ccsa_minimize(
        &mut RosenbrockDisc,
        &[-1.5, 1.8],
        &[-3.0; 2],
        &[3.0; 2],
        &opts,
    )
    .unwrap();
    assert!(r.started_infeasible);
    assert_eq!(r.status, CcsaStatus::Converged, "{r:?}");
    assert!(r.objective < 1e-8, "{r:?}");
    assert!(
        (r.x[0] - 1.0).abs() < 1e-4 && (r.x[1] - 1.0).abs() < 1e-4,
        "{r:?}"
    );
}

/// Two disjoint half-planes: x ≥ 1 and x ≤ −1. No feasible point.
struct Contradiction;
impl CcsaProblem for Contradiction {
    fn dimension(&self) -> usize {
        1
    }
    fn constraint_count(&self) -> usize {
        2
    }
    fn evaluate(&mut self, x: &[f64], v: &mut [f64], g: &mut [f64]) {
        v[0] = x[0] * x[0];
        g[0] = 2.0 * x[0];
        v[1] = 1.0 - x[0];
        g[1] = -1.0;
        v[2] = x[0] + 1.0;
        g[2] = 1.0;
    }
}

#[test]
fn infeasible_problem_is_reported() {
    let r = ccsa_minimize(
        &mut Contradiction,
        &[0.3],
        &[-5.0],
        &[5.0],
        &CcsaOptions::default(),
    )
    .unwrap();
    assert_eq!(r.status, CcsaStatus::Infeasible, "{r:?}");
    assert!(r.max_violation > 0.5);
    assert!(
        r.x[0].abs() < 1e-3,
        "the elastic optimum splits the violation: {r:?}"
    );
}

/// NaN once x leaves a region.
struct Poisoned;
impl CcsaProblem for Poisoned {
    fn dimension(&self) -> usize {
        1
    }
    fn constraint_count(&self) -> usize {
        0
    }
    fn evaluate(&mut self, x: &[f64], v: &mut [f64], g: &mut [f64]) {
        v[0] = if x[0] < 2.0 {
            (x[0] - 5.0).powi(2)
        } else {
            f64::NAN
        };
        g[0] = 2.0 * (x[0] - 5.0);
    }
}

#[test]
fn non_finite_evaluations_stop_with_a_status() {
    let r = ccsa_minimize(
        &mut Poisoned,
        &[0.0],
        &[-10.0],
        &[10.0],
        &CcsaOptions::default(),
    )
    .unwrap();
    assert_eq!(r.status, CcsaStatus::NonFiniteEvaluation);
    assert!(r.objective.is_finite() && r.x[0] < 2.0);
    let r = ccsa_minimize(
        &mut Poisoned,
        &[3.0],
        &[-10.0],
        &[10.0],
        &CcsaOptions::default(),
    )
    .unwrap();
    assert_eq!(r.status, CcsaStatus::NonFiniteEvaluation);
    assert_eq!(r.evaluations, 1);
}

#[test]
fn iteration_caps_are_reported() {
    let opts = CcsaOptions {
        max_outer_iterations: 3,
        ..CcsaOptions::default()
    };
    let r = ccsa_minimize(
        &mut RosenbrockDisc,
        &[-1.5, 1.8],
        &[-3.0; 2],
        &[3.0; 2],
        &opts,
    )
    .unwrap();
    assert_eq!(r.status, CcsaStatus::MaxIterations);
    assert_eq!(r.iterations, 3);
}

#[test]
fn bad_input_gives_typed_errors() {
    let o = CcsaOptions::default();
    let p = &mut Cantilever;
    assert_eq!(
        ccsa_minimize(p, &[1.0; 4], &[1.0; 5], &[2.0; 5], &o),
        Err(CcsaError::WrongLength {
            what: "x0",
            expected: 5,
            got: 4
        })
    );
    let mut x = [5.0; 5];
    x[2] = f64::NAN;
    assert_eq!(
        ccsa_minimize(p, &x, &[1.0; 5], &[10.0; 5], &o),
        Err(CcsaError::NonFinite {
            what: "x0",
            index: 2
        })
    );
    let mut up = [10.0; 5];
    up[4] = f64::INFINITY;
    assert_eq!(
        ccsa_minimize(p, &[5.0; 5], &[1.0; 5], &up, &o),
        Err(CcsaError::NonFinite {
            what: "upper",
            index: 4
        })
    );
    up[4] = 0.5;
    assert_eq!(
        ccsa_minimize(p, &[5.0; 5], &[1.0; 5], &up, &o),
        Err(CcsaError::EmptyBox { index: 4 })
    );
    let bad = CcsaOptions { penalty: 0.0, ..o };
    assert_eq!(
        ccsa_minimize(p, &[5.0; 5], &[1.0; 5], &[10.0; 5], &bad),
        Err(CcsaError::InvalidOption { what: "penalty" })
    );
    let bad = CcsaOptions {
        x_tolerance_rel: f64::NAN,
        ..o
    };
    assert!(ccsa_minimize(p, &[5.0; 5], &[1.0; 5], &[10.0; 5], &bad).is_err());
    struct Empty;
    impl CcsaProblem for Empty {
        fn dimension(&self) -> usize {
            0
        }
        fn constraint_count(&self) -> usize {
            0
        }
        fn evaluate(&mut self, _: &[f64], _: &mut [f64], _: &mut [f64]) {}
    }
    assert_eq!(
        ccsa_minimize(&mut Empty, &[], &[], &[], &o),
        Err(CcsaError::NoVariables)
    );
    // A start outside the box is clamped, not refused; a fixed variable stays put.
    let r = ccsa_minimize(
        p,
        &[50.0; 5],
        &[1.0, 1.0, 1.0, 1.0, 3.0],
        &[10.0, 10.0, 10.0, 10.0, 3.0],
        &o,
    )
    .unwrap();
    assert_eq!(r.x[4], 3.0);
    assert_eq!(r.status, CcsaStatus::Converged);
}
