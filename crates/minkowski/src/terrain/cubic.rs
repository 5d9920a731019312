//! Every real root of a polynomial of degree at most 3, by monotone brackets.
//!
//! `f(x) = a0 + a1 x + a2 x² + a3 x³`. The coefficients are first scaled by a power of
//! two (exact) so that the largest is about 1. The roots lie in `[−B, B]`, `B` Fujiwara's
//! bound `2 max_k |a_k / a_n|^{1/(n−k)}` (the `k = 0` term halved first; the roots by
//! `√` and `∛`, each within an ulp, and `B` enlarged by 1/16 for that rounding), capped
//! by the caller's limit. The critical points (roots of `f'`, by the cancellation-free quadratic
//! formula `q = −(b + sign(b) √(b² − 4ac)) / 2`, roots `q / a` and `c / q`) and the
//! inflection point `−a2 / (3 a3)` cut `[−B, B]` into pieces on which `f` is monotone and
//! of one convexity. A piece whose ends differ in sign holds exactly one root, and
//! Newton's method started at its Fourier end (where `f f'' > 0`) converges to it
//! monotonically without leaving the piece (from any start on that side of the root, so
//! a caller's guess there is used instead); bisection takes over if rounding ever
//! pushes an iterate out, and the iteration stops once `|f|` is within the rounding of
//! its evaluation. A root of even multiplicity has no sign change: it is taken
//! at a critical point where `|f|` is within the rounding of Horner's evaluation.
//!
//! No closed form (Cardano, Viète) is used: they lose half the digits near multiple
//! roots and need case analysis at vanishing leading coefficients, where brackets need
//! none (a tiny `a3` only moves `B`).

use crate::math::inverse_power_of_two;
use crate::math::{Real, EPSILON};
use crate::tolerance::ALPHA_PLANE_MAX_ITERATIONS;

/// The real roots found, ascending, with the Newton or bisection steps spent on each.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Roots {
    /// The roots; only the first `len` are meaningful.
    pub x: [Real; 3],
    /// Steps spent on each root.
    pub iterations: [u32; 3],
    /// How many roots.
    pub len: usize,
}

/// What the polynomial's zero set is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum ZeroSet {
    /// Finitely many real roots within the window (possibly none).
    Roots(Roots),
    /// Every coefficient is zero.
    Everywhere,
}

impl Roots {
    fn push(&mut self, x: Real, iterations: u32) {
        // Roots met twice at a shared end of two pieces are kept once.
        let tie = 4.0 * EPSILON * x.abs().max(1.0);
        if self.x[..self.len].iter().any(|r| (r - x).abs() <= tie) {
            return;
        }
        if self.len < 3 {
            self.x[self.len] = x;
            self.iterations[self.len] = iterations;
            self.len += 1;
        }
    }

    /// The roots, ascending, with their step counts.
    pub fn iter(&self) -> impl Iterator<Item = (Real, u32)> + '_ {
        (0..self.len).map(|i| (self.x[i], self.iterations[i]))
    }
}

/// `f`, `f'`, `f''` at `x`, and a bound on the rounding of `f` (Horner's, `2 n ε` of the
/// sum of the terms' magnitudes).
fn eval(a: &[Real; 4], x: Real) -> (Real, Real, Real, Real) {
    let f = ((a[3] * x + a[2]) * x + a[1]) * x + a[0];
    let df = (3.0 * a[3] * x + 2.0 * a[2]) * x + a[1];
    let ddf = 6.0 * a[3] * x + 2.0 * a[2];
    let ax = x.abs();
    let mag = ((a[3].abs() * ax + a[2].abs()) * ax + a[1].abs()) * ax + a[0].abs();
    (f, df, ddf, 8.0 * EPSILON * mag)
}

/// The real roots of `c0 + c1 x + c2 x²` (coefficients of magnitude about 1 or less),
/// without cancellation.
fn quadratic_roots(c0: Real, c1: Real, c2: Real) -> ([Real; 2], usize) {
    if c2 == 0.0 {
        if c1 == 0.0 {
            return ([0.0; 2], 0);
        }
        return ([-c0 / c1, 0.0], 1);
    }
    let disc = c1.mul_add(c1, -4.0 * c2 * c0);
    if disc < 0.0 {
        return ([0.0; 2], 0);
    }
    let sign = if c1 < 0.0 { -1.0 } else { 1.0 };
    let q = -0.5 * (c1 + sign * disc.sqrt());
    if q == 0.0 {
        // c1 = 0 and disc = 0: c0 = 0 too, a double root at 0.
        return ([0.0; 2], 1);
    }
    ([q / c2, c0 / q], 2)
}

/// Every real root of `a[0] + a[1] x + a[2] x² + a[3] x³` with `|x| ≤ limit`
/// (`limit ≥ 1`, at most about `∛(Real::MAX) / 4` so that no evaluation overflows).
/// Non-finite coefficients give no roots. `cuts` are extra points at which to cut the
/// pieces, and `hint` a guess of a root (any values: they only shorten the brackets and
/// the iterations of the roots near them).
pub(crate) fn real_roots(a: [Real; 4], limit: Real, cuts: &[Real], hint: Real) -> ZeroSet {
    let mut roots = Roots {
        x: [0.0; 3],
        iterations: [0; 3],
        len: 0,
    };
    if !a.iter().all(|c| c.is_finite()) {
        return ZeroSet::Roots(roots);
    }
    let m = a.iter().fold(0.0 as Real, |m, c| m.max(c.abs()));
    if m == 0.0 {
        return ZeroSet::Everywhere;
    }
    let s = inverse_power_of_two(m);
    let a = a.map(|c| c * s);
    let Some(n) = (1..=3).rev().find(|&k| a[k] != 0.0) else {
        return ZeroSet::Roots(roots); // a nonzero constant
    };

    // Fujiwara's bound, capped; at least 1 so that the window is never empty.
    let lead = a[n].abs();
    let mut bound: Real = 0.0;
    for (k, c) in a.iter().enumerate().take(n) {
        let ratio = if k == 0 {
            c.abs() / (2.0 * lead)
        } else {
            c.abs() / lead
        };
        // The `(n − k)`-th root: `√` is correctly rounded and `∛` within an ulp, as
        // `powf` was; the cushion below covers either (and no `powf` per root).
        let root = match n - k {
            1 => ratio,
            2 => ratio.sqrt(),
            _ => ratio.cbrt(),
        };
        bound = bound.max(root);
    }
    let b = (2.0 * bound * 1.0625).clamp(1.0, limit.max(1.0));

    // The pieces' ends: −B, critical points, the inflection point, B.
    let mut ends = [0.0 as Real; 9];
    let mut len = 0;
    ends[len] = -b;
    len += 1;
    let (crit, ncrit) = quadratic_roots(a[1], 2.0 * a[2], 3.0 * a[3]);
    let mut inner = [0.0 as Real; 7];
    let mut ninner = 0;
    for &c in cuts.iter().take(4) {
        inner[ninner] = c;
        ninner += 1;
    }
    for &c in &crit[..ncrit] {
        inner[ninner] = c;
        ninner += 1;
    }
    if n == 3 {
        inner[ninner] = -a[2] / (3.0 * a[3]);
        ninner += 1;
    }
    let inner = &mut inner[..ninner];
    inner.sort_by(Real::total_cmp);
    for &c in inner.iter() {
        if c > -b && c < b && c.is_finite() {
            ends[len] = c;
            len += 1;
        }
    }
    ends[len] = b;
    len += 1;

    for w in ends[..len].windows(2) {
        let (lo, hi) = (w[0], w[1]);
        if lo >= hi {
            continue;
        }
        let (flo, ..) = eval(&a, lo);
        let (fhi, ..) = eval(&a, hi);
        if flo == 0.0 {
            roots.push(lo, 0);
        }
        if fhi == 0.0 {
            roots.push(hi, 0);
        }
        if flo != 0.0 && fhi != 0.0 && (flo < 0.0) != (fhi < 0.0) {
            let (x, it) = bracketed_newton(&a, lo, flo, hi, hint);
            roots.push(x, it);
        }
    }
    // Roots of even multiplicity: |f| within rounding at a critical point.
    for &c in &crit[..ncrit] {
        if !(c.is_finite() && c.abs() <= b) {
            continue;
        }
        let (f, _, _, err) = eval(&a, c);
        let near = EPSILON.sqrt() * c.abs().max(1.0);
        if f.abs() <= err && !roots.x[..roots.len].iter().any(|r| (r - c).abs() <= near) {
            roots.push(c, 0);
        }
    }
    roots.x[..roots.len].sort_by(Real::total_cmp);
    // (The step counts follow their roots: re-pair by sorting indices.)
    let mut order = [0usize, 1, 2];
    let xs = roots.x;
    let its = roots.iterations;
    order[..roots.len].sort_by(|&i, &j| xs[i].total_cmp(&xs[j]));
    for (k, &i) in order[..roots.len].iter().enumerate() {
        roots.x[k] = xs[i];
        roots.iterations[k] = its[i];
    }
    ZeroSet::Roots(roots)
}

/// The root of `f` in `[lo, hi]`, where `f` is monotone and of one convexity and
/// `f(lo)` (`flo`) and `f(hi)` differ in sign. Returns the root and the steps taken.
fn bracketed_newton(
    a: &[Real; 4],
    mut lo: Real,
    flo: Real,
    mut hi: Real,
    hint: Real,
) -> (Real, u32) {
    let lo_negative = flo < 0.0;
    let (_, _, ddf, _) = eval(a, 0.5 * (lo + hi));
    // Fourier's condition: start where f and f'' share a sign; Newton then converges
    // monotonically from any point on that side of the root.
    let fourier_lo = (flo > 0.0) == (ddf > 0.0);
    let mut x = if fourier_lo { lo } else { hi };
    if hint > lo && hint < hi {
        let (fh, ..) = eval(a, hint);
        let on_lo_side = (fh < 0.0) == lo_negative;
        if fh == 0.0 {
            return (hint, 1);
        } else if on_lo_side == fourier_lo {
            x = hint; // on the Fourier side: a nearer start
        } else if on_lo_side {
            lo = hint; // on the other side: a shorter bracket
        } else {
            hi = hint;
        }
    }
    let mut steps = 0;
    while steps < ALPHA_PLANE_MAX_ITERATIONS {
        steps += 1;
        let (f, df, _, err) = eval(a, x);
        // Within the rounding of the evaluation, further steps are noise.
        if f.abs() <= err {
            return (x, steps);
        }
        // Shrink the bracket around the root.
        if (f < 0.0) == lo_negative {
            lo = x;
        } else {
            hi = x;
        }
        let newton = x - f / df;
        let next = if newton.is_finite() && newton > lo && newton < hi {
            newton
        } else {
            0.5 * (lo + hi)
        };
        if (next - x).abs() <= 4.0 * EPSILON * x.abs() || next == lo || next == hi {
            return (next, steps);
        }
        x = next;
    }
    (x, steps)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roots(a: [Real; 4]) -> Vec<Real> {
        match real_roots(a, 1e12, &[], 0.0) {
            ZeroSet::Roots(r) => r.iter().map(|(x, _)| x).collect(),
            ZeroSet::Everywhere => panic!("zero polynomial"),
        }
    }

    fn close(got: &[Real], want: &[Real], tol: Real) -> bool {
        got.len() == want.len() && got.iter().zip(want).all(|(g, w)| (g - w).abs() <= tol)
    }

    #[test]
    fn three_distinct_roots() {
        // (x − 1)(x + 2)(x − 3) = x³ − 2x² − 5x + 6
        let r = roots([6.0, -5.0, -2.0, 1.0]);
        assert!(close(&r, &[-2.0, 1.0, 3.0], 1e-5), "{r:?}");
    }

    #[test]
    fn one_real_root() {
        // (x − 2)(x² + 1) = x³ − 2x² + x − 2
        let r = roots([-2.0, 1.0, -2.0, 1.0]);
        assert!(close(&r, &[2.0], 1e-5), "{r:?}");
    }

    #[test]
    fn double_and_triple_roots() {
        // (x − 1)²(x + 1) = x³ − x² − x + 1
        let r = roots([1.0, -1.0, -1.0, 1.0]);
        assert!(r.len() >= 2 && (r[0] + 1.0).abs() < 1e-5, "{r:?}");
        assert!(r[1..].iter().all(|x| (x - 1.0).abs() < 1e-3), "{r:?}");
        // x³
        let r = roots([0.0, 0.0, 0.0, 2.0]);
        assert!(close(&r, &[0.0], 1e-5), "{r:?}");
    }

    #[test]
    fn lower_degrees_and_constants() {
        assert!(close(&roots([-6.0, 1.0, 1.0, 0.0]), &[-3.0, 2.0], 1e-5));
        assert!(close(&roots([3.0, -1.5, 0.0, 0.0]), &[2.0], 1e-6));
        assert!(roots([1.0, 0.0, 1.0, 0.0]).is_empty());
        assert!(roots([5.0, 0.0, 0.0, 0.0]).is_empty());
        assert_eq!(real_roots([0.0; 4], 1.0, &[], 0.0), ZeroSet::Everywhere);
    }

    #[test]
    fn tiny_leading_coefficient_keeps_the_moderate_roots() {
        // 1e-20 x³ + (x − 1)(x − 2): two roots near 1 and 2, a huge one beyond the limit.
        let r = roots([2.0, -3.0, 1.0, 1e-20]);
        assert!(close(&r, &[1.0, 2.0], 1e-5), "{r:?}");
    }

    #[test]
    fn wide_scale_roots() {
        // (x − 1e-3)(x − 1)(x − 1e3)
        let (p, q, r) = (1e-3 as Real, 1.0 as Real, 1e3 as Real);
        let a = [-p * q * r, p * q + q * r + p * r, -(p + q + r), 1.0];
        let got = roots(a);
        assert_eq!(got.len(), 3, "{got:?}");
        for (g, w) in got.iter().zip([p, q, r]) {
            assert!((g - w).abs() <= 1e-4 * w, "{got:?}");
        }
    }
}
