//! Heightfields: sampling against bilinear interpolation written independently (in f64,
//! as weights of the four samples), vertical rays at every sample, random rays against a
//! brute-force crossing search over every cell, holes, and the typed errors of hostile
//! input (tiny grids, NaN heights, bad cell sizes, PNGs that are not grayscale or are
//! truncated).
#![allow(clippy::unnecessary_cast)] // `as f64` is a no-op in the f64 build

// The same tests run on the double-precision crate (`minkowski-f64` links them).
#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use common::Rng;
use minkowski::query::{cast_ray_heightfield, Ray, RayOptions};
use minkowski::shape::{HeightField, HeightFieldError};
use minkowski::{Pose, Real, Rotation, Vector};

struct Field {
    rows: usize,
    cols: usize,
    h: Vec<Option<f64>>,
    cell: [f64; 2],
    origin: [f64; 3],
}

impl Field {
    fn random(rng: &mut Rng, rows: usize, cols: usize, holes: bool) -> Self {
        let h = (0..rows * cols)
            .map(|_| {
                if holes && rng.unit() < 0.05 {
                    None
                } else {
                    Some((rng.range(-1.0, 1.0) as Real) as f64)
                }
            })
            .collect();
        Field {
            rows,
            cols,
            h,
            // Multiples of 1/8: sample positions are exact in both precisions, so the
            // tests probe the surface, not the rounding of where a cell ends.
            cell: [
                (rng.range(2.0, 12.0)).round() / 8.0,
                (rng.range(2.0, 12.0)).round() / 8.0,
            ],
            origin: [
                (rng.range(-40.0, 40.0)).round() / 8.0,
                (rng.range(-8.0, 8.0)).round() / 8.0,
                (rng.range(-40.0, 40.0)).round() / 8.0,
            ],
        }
    }
    fn build(&self) -> HeightField {
        let samples: Vec<Option<Real>> = self.h.iter().map(|x| x.map(|v| v as Real)).collect();
        HeightField::new(
            self.rows,
            self.cols,
            &samples,
            [self.cell[0] as Real, self.cell[1] as Real],
            Vector::new(
                self.origin[0] as Real,
                self.origin[1] as Real,
                self.origin[2] as Real,
            ),
        )
        .unwrap()
    }
    /// The surface height (world y) at local (x, z) measured from the origin, by the four
    /// weights; `None` over a hole or outside.
    fn height(&self, x: f64, z: f64) -> Option<f64> {
        let (fx, fz) = (x / self.cell[0], z / self.cell[1]);
        if fx < 0.0 || fz < 0.0 || fx > (self.cols - 1) as f64 || fz > (self.rows - 1) as f64 {
            return None;
        }
        let j = (fx.floor() as usize).min(self.cols - 2);
        let i = (fz.floor() as usize).min(self.rows - 2);
        let (u, v) = (fx - j as f64, fz - i as f64);
        let s = |i: usize, j: usize| self.h[i * self.cols + j];
        let w = [
            ((1.0 - u) * (1.0 - v), s(i, j)?),
            (u * (1.0 - v), s(i, j + 1)?),
            ((1.0 - u) * v, s(i + 1, j)?),
            (u * v, s(i + 1, j + 1)?),
        ];
        Some(w.iter().map(|(a, b)| a * b).sum::<f64>() + self.origin[1])
    }
}

const TOL: f64 = if cfg!(minkowski_f64) { 1e-9 } else { 2e-5 };

#[test]
fn height_at_is_bilinear_and_exact_at_samples() {
    let mut rng = Rng::new(0x4f1);
    for case in 0..20 {
        let f = Field::random(&mut rng, 2 + case % 7, 2 + case % 5, case % 3 == 0);
        let hf = f.build();
        for i in 0..f.rows {
            for j in 0..f.cols {
                let (x, z) = (j as f64 * f.cell[0], i as f64 * f.cell[1]);
                let got = hf
                    .height_at((x + f.origin[0]) as Real, (z + f.origin[2]) as Real)
                    .unwrap();
                if let (Some(g), Some(w)) = (got, f.height(x, z)) {
                    assert!((g as f64 - w).abs() <= TOL, "sample [{i}][{j}]: {g} vs {w}");
                }
            }
        }
        for _ in 0..200 {
            let x = rng.range(0.0, 1.0) * (f.cols - 1) as f64 * f.cell[0];
            let z = rng.range(0.0, 1.0) * (f.rows - 1) as f64 * f.cell[1];
            let got = hf
                .height_at((x + f.origin[0]) as Real, (z + f.origin[2]) as Real)
                .unwrap();
            match (got, f.height(x, z)) {
                (Some(g), Some(w)) => assert!((g as f64 - w).abs() <= 10.0 * TOL, "{g} vs {w}"),
                (None, None) => {}
                (g, w) => {
                    // Rounding of x, z into the build's precision can move a point on a
                    // cell boundary next to a hole to the other cell: allow only that.
                    let fx = x / f.cell[0];
                    let fz = z / f.cell[1];
                    let near = |t: f64| (t - t.round()).abs() < 1e-4;
                    assert!(near(fx) || near(fz), "hole disagreement: {g:?} vs {w:?}");
                }
            }
        }
        let outside = hf.height_at(f.origin[0] as Real - 0.1, f.origin[2] as Real);
        assert!(matches!(outside, Err(HeightFieldError::Outside { .. })));
    }
}

#[test]
fn vertical_rays_hit_every_sample_and_holes_give_no_hit() {
    let mut rng = Rng::new(0x9e7);
    let f = Field::random(&mut rng, 17, 23, true);
    let hf = f.build();
    for i in 0..f.rows {
        for j in 0..f.cols {
            let (x, z) = (
                j as f64 * f.cell[0] + f.origin[0],
                i as f64 * f.cell[1] + f.origin[2],
            );
            let ray = Ray::new(
                Vector::new(x as Real, 10.0, z as Real),
                Vector::new(0.0, -1.0, 0.0),
            );
            let hit = cast_ray_heightfield(&hf, &Pose::IDENTITY, &ray, &RayOptions::default())
                .unwrap()
                .hit;
            // A sample is on the surface when one of its cells has no hole.
            let touching_cells = [(0, 0), (0, 1), (1, 0), (1, 1)]
                .iter()
                .map(|(di, dj)| (i as i64 - *di as i64, j as i64 - *dj as i64))
                .filter(|&(ci, cj)| {
                    ci >= 0 && cj >= 0 && (ci as usize) < f.rows - 1 && (cj as usize) < f.cols - 1
                })
                .filter(|&(ci, cj)| {
                    let (ci, cj) = (ci as usize, cj as usize);
                    [(0, 0), (0, 1), (1, 0), (1, 1)]
                        .iter()
                        .all(|(a, b)| f.h[(ci + a) * f.cols + cj + b].is_some())
                })
                .count();
            match (hit, f.h[i * f.cols + j]) {
                (Some(h), Some(s)) if touching_cells > 0 => {
                    let y = h.point.y as f64;
                    assert!(
                        (y - (s + f.origin[1])).abs() <= 1e-6_f64.max(TOL),
                        "[{i}][{j}] {y} vs {s}"
                    );
                }
                (None, _) => assert_eq!(touching_cells, 0, "[{i}][{j}]: no hit"),
                (Some(h), _) => panic!("[{i}][{j}]: hit {h:?} at a sample with no cell"),
            }
        }
    }
}

/// The first time `ray` (field frame, from the origin) is in the solid — over a cell
/// without holes, at or below the surface — by brute force: the ray sampled 20000 times
/// over `[0, t_max]` and the first change bisected. `None` when it never is.
fn brute_force(f: &Field, o: [f64; 3], d: [f64; 3], t_max: f64) -> Option<f64> {
    let inside = |t: f64| {
        let p = [o[0] + d[0] * t, o[1] + d[1] * t, o[2] + d[2] * t];
        // `height` is the world y (origin included); `p` is from the origin.
        f.height(p[0], p[2])
            .is_some_and(|h| p[1] + f.origin[1] <= h)
    };
    if inside(0.0) {
        return Some(0.0);
    }
    let n = 20_000;
    let mut prev = 0.0;
    for k in 1..=n {
        let t = t_max * k as f64 / n as f64;
        if inside(t) {
            let (mut lo, mut hi) = (prev, t);
            for _ in 0..80 {
                let mid = 0.5 * (lo + hi);
                if inside(mid) {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            return Some(hi);
        }
        prev = t;
    }
    None
}

#[test]
fn random_rays_match_a_brute_force_search() {
    let mut rng = Rng::new(0x7a9);
    let mut hits = 0;
    for case in 0..60 {
        let f = Field::random(&mut rng, 9 + case % 5, 11 + case % 4, case % 2 == 0);
        let hf = f.build();
        let w = (f.cols - 1) as f64 * f.cell[0];
        let dep = (f.rows - 1) as f64 * f.cell[1];
        // From above, at an angle, towards a point of the field.
        let target = [rng.range(0.0, w), rng.range(-1.0, 1.0), rng.range(0.0, dep)];
        let from = [
            target[0] + rng.range(-4.0, 4.0),
            3.0 + rng.range(0.0, 2.0),
            target[2] + rng.range(-4.0, 4.0),
        ];
        let d = [
            target[0] - from[0],
            target[1] - from[1],
            target[2] - from[2],
        ];
        let (o, dv) = (
            Vector::new(
                (from[0] + f.origin[0]) as Real,
                (from[1] + f.origin[1]) as Real,
                (from[2] + f.origin[2]) as Real,
            ),
            Vector::new(d[0] as Real, d[1] as Real, d[2] as Real),
        );
        // The oracle on the exact numbers the library got.
        let o64 = [
            o.x as f64 - f.origin[0],
            o.y as f64 - f.origin[1],
            o.z as f64 - f.origin[2],
        ];
        let d64 = [dv.x as f64, dv.y as f64, dv.z as f64];
        let want = brute_force(&f, o64, d64, 2.0);
        let got = cast_ray_heightfield(
            &hf,
            &Pose::IDENTITY,
            &Ray::new(o, dv),
            &RayOptions {
                max_toi: 2.0,
                solid: true,
            },
        )
        .unwrap()
        .hit;
        match (got, want) {
            (Some(g), Some(t)) => {
                hits += 1;
                let dl = (d64[0] * d64[0] + d64[1] * d64[1] + d64[2] * d64[2]).sqrt();
                assert!(
                    ((g.toi as f64) - t).abs() * dl <= 1e-3,
                    "case {case}: {} vs {t}; {g:?}; o {o64:?} d {d64:?}; height there {:?}",
                    g.toi,
                    f.height(o64[0] + d64[0] * t, o64[2] + d64[2] * t)
                );
                // The normal is the surface's: perpendicular to the patch's tangents,
                // measured by finite differences of the oracle's height.
                let p = [o64[0] + d64[0] * t, o64[2] + d64[2] * t];
                let e = 1e-5;
                if let (Some(hx1), Some(hx0), Some(hz1), Some(hz0)) = (
                    f.height(p[0] + e, p[1]),
                    f.height(p[0] - e, p[1]),
                    f.height(p[0], p[1] + e),
                    f.height(p[0], p[1] - e),
                ) {
                    let (gx, gz) = ((hx1 - hx0) / (2.0 * e), (hz1 - hz0) / (2.0 * e));
                    let n = g.normal;
                    let len = (1.0 + gx * gx + gz * gz).sqrt();
                    let want_n = [-gx / len, 1.0 / len, -gz / len];
                    let dot =
                        n.x as f64 * want_n[0] + n.y as f64 * want_n[1] + n.z as f64 * want_n[2];
                    // Points on a cell edge take either cell's normal: only a loose check.
                    assert!(dot > 0.9, "case {case}: normal {n} vs {want_n:?}");
                }
            }
            (None, None) => {}
            (g, w) => panic!("case {case}: library {g:?}, brute force {w:?}"),
        }
    }
    assert!(hits > 30, "{hits}");
}

#[test]
fn a_turned_field_answers_in_the_world_frame() {
    let samples = vec![Some(0.0 as Real); 9];
    let hf = HeightField::new(3, 3, &samples, [1.0, 1.0], Vector::ZERO).unwrap();
    // Turned a quarter about x: the flat surface y = 0 becomes the plane z = 0, its
    // normal +y becomes +z.
    let pose = Pose::from_rotation(Rotation::from_rotation_x(
        std::f64::consts::FRAC_PI_2 as Real,
    ))
    .unwrap();
    let ray = Ray::new(Vector::new(1.0, -1.0, 5.0), Vector::new(0.0, 0.0, -1.0));
    let h = cast_ray_heightfield(&hf, &pose, &ray, &RayOptions::default())
        .unwrap()
        .hit
        .unwrap();
    assert!(
        (h.toi - 5.0).abs() < 1e-5 && (h.normal - Vector::Z).length() < 1e-5,
        "{h:?}"
    );
}

#[test]
fn hostile_input_gets_typed_errors() {
    let ok = [1.0 as Real, 1.0];
    let bad_grid = |r, c, n| HeightField::new(r, c, &vec![Some(0.0); n], ok, Vector::ZERO);
    assert!(matches!(
        bad_grid(1, 1, 1),
        Err(HeightFieldError::BadGrid { .. })
    ));
    assert!(matches!(
        bad_grid(2, 1, 2),
        Err(HeightFieldError::BadGrid { .. })
    ));
    assert!(matches!(
        bad_grid(2, 2, 3),
        Err(HeightFieldError::BadGrid { .. })
    ));
    let nan = HeightField::new(
        2,
        2,
        &[Some(0.0), Some(Real::NAN), Some(0.0), Some(0.0)],
        ok,
        Vector::ZERO,
    );
    assert!(matches!(
        nan,
        Err(HeightFieldError::BadHeight { row: 0, col: 1, .. })
    ));
    for cell in [[0.0, 1.0], [1.0, -1.0], [Real::INFINITY, 1.0]] {
        let e = HeightField::new(2, 2, &[Some(0.0); 4], cell, Vector::ZERO);
        assert!(
            matches!(e, Err(HeightFieldError::BadParameter { .. })),
            "{cell:?}"
        );
    }
    // PNGs: 8- and 16-bit grayscale read; colour and truncated files refused.
    let dir = std::env::temp_dir().join(format!("minkowski-hf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, color: png::ColorType, depth: png::BitDepth, data: &[u8]| {
        let path = dir.join(name);
        let file = std::fs::File::create(&path).unwrap();
        let mut enc = png::Encoder::new(std::io::BufWriter::new(file), 3, 2);
        enc.set_color(color);
        enc.set_depth(depth);
        let mut w = enc.write_header().unwrap();
        w.write_image_data(data).unwrap();
        w.finish().unwrap();
        path
    };
    let g8 = write(
        "g8.png",
        png::ColorType::Grayscale,
        png::BitDepth::Eight,
        &[0, 51, 255, 0, 0, 0],
    );
    let hf = HeightField::from_png(&g8, 10.0, ok, Vector::ZERO).unwrap();
    assert_eq!((hf.rows(), hf.cols()), (2, 3));
    assert!(
        (hf.sample(0, 1).unwrap() - 2.0).abs() < 1e-5
            && (hf.sample(0, 2).unwrap() - 10.0).abs() < 1e-5
    );
    let g16 = write(
        "g16.png",
        png::ColorType::Grayscale,
        png::BitDepth::Sixteen,
        &[0, 0, 0x80, 0x00, 0xff, 0xff, 0, 0, 0, 0, 0, 0],
    );
    let hf = HeightField::from_png(&g16, 1.0, ok, Vector::ZERO).unwrap();
    assert!((hf.sample(0, 1).unwrap() - 32768.0 / 65535.0).abs() < 1e-6);
    let rgb = write(
        "rgb.png",
        png::ColorType::Rgb,
        png::BitDepth::Eight,
        &[0; 18],
    );
    assert!(matches!(
        HeightField::from_png(&rgb, 1.0, ok, Vector::ZERO),
        Err(HeightFieldError::Image { .. })
    ));
    let bytes = std::fs::read(&g8).unwrap();
    let cut = dir.join("cut.png");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    assert!(matches!(
        HeightField::from_png(&cut, 1.0, ok, Vector::ZERO),
        Err(HeightFieldError::Image { .. })
    ));
    assert!(matches!(
        HeightField::from_png(dir.join("missing.png"), 1.0, ok, Vector::ZERO),
        Err(HeightFieldError::Image { .. })
    ));
    std::fs::remove_dir_all(&dir).ok();
}
