//! The terrain experiment of seed 002 (Wang, KTH / Avalanche Studios) as we run it:
//! Tables 4.1–4.3 (the three backward projections on §4.2's triangle) and the columns
//! of Tables 4.4/4.5 (backward projections, time, contacts, misses per frame) for every
//! terrain detector, on the seeded frames of `minkowski::terrain::synthetic_objects`.
//!
//! A detector is anything that answers a [`TerrainDetection`] for one compound object
//! given as its convex parts' world vertices ([`Detector`]). Brute force
//! ([`BruteForce`]: `DisplacedTerrain::locate` on every vertex) is the oracle the
//! others' misses are counted against.
//!
//! The multiresolution detection of §3.6 ([`Multires`], [`multires_detector`]) is the
//! column the tables are about; its volumes are built once per terrain, timed apart.

use std::time::{Duration, Instant};

use minkowski::terrain::{
    backward_project, brute_force_detect, detect_multires, BackProjection, BackProjectionMethod,
    BaseTriangle, DisplacedTerrain, MultiresOptions, PerVertexBaseline, SceneFrame,
    SyntheticTerrain, TerrainDetection, TerrainVolumes, TerrainVolumesOptions,
};
use minkowski::{Point, Real, Vector};

/// A terrain detector: the vertices of one compound object (world-frame vertex lists,
/// one per convex part) in the terrain, with its counters.
pub trait Detector {
    /// The column's name.
    fn name(&self) -> &str;
    /// The detection of one object.
    ///
    /// # Errors
    /// The detector's error, as text.
    fn detect(&self, parts: &[&[Point]]) -> Result<TerrainDetection, String>;
}

/// `DisplacedTerrain::locate` on every vertex (alpha plane, every triangle): the oracle.
pub struct BruteForce<'t>(pub &'t DisplacedTerrain);

impl Detector for BruteForce<'_> {
    fn name(&self) -> &str {
        "brute force (oracle)"
    }

    fn detect(&self, parts: &[&[Point]]) -> Result<TerrainDetection, String> {
        brute_force_detect(self.0, parts).map_err(|e| e.to_string())
    }
}

/// The thesis's original detection: per vertex, candidates by prism bounds and
/// early-out planes, aligned plane.
pub struct Baseline<'t>(pub PerVertexBaseline<'t>);

impl Detector for Baseline<'_> {
    fn name(&self) -> &str {
        match self.0.config().method {
            BackProjectionMethod::AlignedPlane => "per-vertex baseline (aligned plane)",
            BackProjectionMethod::AlphaPlane => "per-vertex baseline (alpha plane)",
            BackProjectionMethod::AlignedProjection => "per-vertex baseline (BFGS)",
        }
    }

    fn detect(&self, parts: &[&[Point]]) -> Result<TerrainDetection, String> {
        self.0.detect(parts).map_err(|e| e.to_string())
    }
}

/// The multiresolution detection of §3.6 ([`detect_multires`]) over one terrain and its
/// volumes.
pub struct Multires<'t> {
    terrain: &'t DisplacedTerrain,
    volumes: TerrainVolumes,
    options: MultiresOptions,
}

impl Detector for Multires<'_> {
    fn name(&self) -> &str {
        if self.options.gjk_cells {
            "multiresolution, GJK at the coarser cells (Alg 11)"
        } else {
            "multiresolution (§3.6)"
        }
    }

    fn detect(&self, parts: &[&[Point]]) -> Result<TerrainDetection, String> {
        detect_multires(self.terrain, &self.volumes, parts, &self.options)
            .map_err(|e| e.to_string())
    }
}

/// The multiresolution detector over `terrain`, its volumes built with `options`
/// ([`TerrainVolumes::build`], Alg 8 per quad); with the wall time of that build (done
/// once per terrain, before any frame: the thesis's volumes are precomputed too).
///
/// # Errors
/// The volumes' build error, as text.
pub fn multires_detector<'t>(
    terrain: &'t SyntheticTerrain,
    options: &TerrainVolumesOptions,
) -> Result<(Multires<'t>, Duration), String> {
    let start = Instant::now();
    let volumes = TerrainVolumes::build(&terrain.terrain, options).map_err(|e| e.to_string())?;
    Ok((
        Multires {
            terrain: &terrain.terrain,
            volumes,
            options: MultiresOptions::default(),
        },
        start.elapsed(),
    ))
}

impl<'t> Multires<'t> {
    /// The same volumes with other detection options.
    pub fn with_options(&self, options: MultiresOptions) -> Multires<'t> {
        Multires {
            terrain: self.terrain,
            volumes: self.volumes.clone(),
            options,
        }
    }
}

/// One detector's figures over a set of frames.
#[derive(Debug, Clone, Default)]
pub struct ColumnFigures {
    /// Frames measured.
    pub frames: usize,
    /// Backward projections, summed over frames.
    pub backward_projections: u64,
    /// Early-out plane tests, summed.
    pub early_out_tests: u64,
    /// Bounding-volume tests, summed.
    pub volume_tests: u64,
    /// GJK queries, summed.
    pub gjk_queries: u64,
    /// Vertex-against-texel-volume tests, summed.
    pub vertex_tests: u64,
    /// Contacts found, summed.
    pub contacts: usize,
    /// Brute force's contacts this detector did not find, summed.
    pub missed: usize,
    /// Contacts brute force did not find, summed.
    pub extra: usize,
    /// Time per frame (the best of the repetitions), one entry per frame.
    pub times: Vec<Duration>,
}

impl ColumnFigures {
    /// Mean backward projections per frame.
    pub fn projections_per_frame(&self) -> f64 {
        self.backward_projections as f64 / self.frames.max(1) as f64
    }

    /// Median time per frame in milliseconds.
    pub fn median_ms(&self) -> f64 {
        let mut t: Vec<f64> = self.times.iter().map(|d| d.as_secs_f64() * 1e3).collect();
        t.sort_by(f64::total_cmp);
        match t.len() {
            0 => f64::NAN,
            n if n % 2 == 1 => t[n / 2],
            n => 0.5 * (t[n / 2 - 1] + t[n / 2]),
        }
    }
}

/// The world parts of every object of `frame`.
pub fn frame_parts(frame: &SceneFrame) -> Vec<Vec<Vec<Point>>> {
    frame.objects.iter().map(|o| o.world_parts()).collect()
}

/// Runs `detector` on every object of every frame (`repetitions` times, the best time
/// kept per frame) and counts its misses and extras against `oracle`'s answers (one
/// per object, in frame order).
///
/// # Errors
/// The detector's error.
pub fn measure(
    detector: &dyn Detector,
    frames: &[Vec<Vec<Vec<Point>>>],
    oracle: &[Vec<TerrainDetection>],
    repetitions: usize,
) -> Result<ColumnFigures, String> {
    let mut fig = ColumnFigures::default();
    for (objects, truth) in frames.iter().zip(oracle) {
        let refs: Vec<Vec<&[Point]>> = objects
            .iter()
            .map(|parts| parts.iter().map(Vec::as_slice).collect())
            .collect();
        let mut best = Duration::MAX;
        let mut answers = Vec::new();
        for _ in 0..repetitions.max(1) {
            let start = Instant::now();
            let found = refs
                .iter()
                .map(|parts| detector.detect(parts))
                .collect::<Result<Vec<_>, _>>()?;
            best = best.min(start.elapsed());
            answers = found;
        }
        fig.frames += 1;
        fig.times.push(best);
        for (found, truth) in answers.iter().zip(truth) {
            let c = &found.counters;
            fig.backward_projections += c.backward_projections;
            fig.early_out_tests += c.early_out_tests;
            fig.volume_tests += c.volume_tests;
            fig.gjk_queries += c.gjk_queries;
            fig.vertex_tests += c.vertex_tests;
            fig.contacts += found.contacts.len();
            let (keys, want) = (found.keys(), truth.keys());
            fig.missed += want
                .iter()
                .filter(|k| keys.binary_search(k).is_err())
                .count();
            fig.extra += keys
                .iter()
                .filter(|k| want.binary_search(k).is_err())
                .count();
        }
    }
    Ok(fig)
}

/// §4.2's triangle with `N0` replaced (the common case, Case I, Case II).
#[allow(clippy::unnecessary_cast, reason = "a no-op in the f64 build")]
pub fn thesis_triangle(n0: [f64; 3]) -> Option<BaseTriangle> {
    let v = |x: f64, y: f64, z: f64| Vector::new(x as Real, y as Real, z as Real);
    BaseTriangle::new(
        [v(0.0, 0.0, 0.0), v(4.0, 0.0, 1.0), v(2.0, 4.0, 2.0)],
        [v(n0[0], n0[1], n0[2]), v(1.0, 0.0, 1.0), v(0.0, 1.0, 1.0)],
    )
    .ok()
}

/// The three cases of Tables 4.1–4.3: name and `N0`.
pub const THESIS_CASES: [(&str, [f64; 3]); 3] = [
    ("Table 4.1 (common case)", [0.5, 0.0, 1.0]),
    ("Table 4.2 (Case I)", [-3.0, -2.0, 2.0]),
    ("Table 4.3 (Case II)", [-5.0, -2.0, 2.0]),
];

/// One printed row of the thesis: method, u, v, iterations as printed, f as printed.
pub type ThesisRow = (&'static str, f64, f64, &'static str, &'static str);

/// The thesis's rows of each table.
pub const THESIS_ROWS: [[ThesisRow; 3]; 3] = [
    [
        ("aligned plane", 0.3055, 0.1901, "-", "-"),
        ("aligned projection", 0.3008, 0.1999, "3+6", "1.1178e-05"),
        ("alpha plane", 0.3000, 0.2000, "3", "-6.5162e-07"),
    ],
    [
        ("aligned plane", 0.2067, 0.1112, "-", "-"),
        ("aligned projection", 0.3005, 0.2004, "2+4", "1.3704e-04"),
        ("alpha plane", 0.3000, 0.2000, "4", "-4.3434e-05"),
    ],
    [
        ("aligned plane", 0.1792, 0.1079, "-", "-"),
        ("aligned projection", 1.0516, 0.7196, "5+11", "8.2312e-06"),
        ("alpha plane", 0.3000, 0.2000, "4", "-8.0856e-04"),
    ],
];

/// One computed row of Tables 4.1–4.3.
#[derive(Debug, Clone, Copy)]
pub struct ProjectionRow {
    /// The method.
    pub method: BackProjectionMethod,
    /// The library's answer.
    pub answer: BackProjection,
    /// The method's objective at the answer, in the triangle's own units: `|n × (P' −
    /// p)|²` (Eq 3.1) for the aligned projection, the alpha plane's `f(α)` (Eq 3.4) at
    /// `α = t` for the alpha plane, `None` for the aligned plane (no objective).
    pub f: Option<f64>,
}

/// The rows of one case: the query point at `u = 0.3`, `v = 0.2`, `d = 1` (`d` is not
/// printed in the thesis; 1 reproduces its aligned-plane rows), each method.
#[allow(clippy::unnecessary_cast, reason = "a no-op in the f64 build")]
pub fn projection_rows(tri: &BaseTriangle) -> Vec<Result<ProjectionRow, String>> {
    let point = tri.forward_project(0.3, 0.2, 1.0);
    let d = |x: Vector| [x.x as f64, x.y as f64, x.z as f64];
    let sub = |a: [f64; 3], b: [f64; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    BackProjectionMethod::ALL
        .into_iter()
        .map(|method| {
            let b = backward_project(tri, point, method).map_err(|e| e.to_string())?;
            let f = match method {
                BackProjectionMethod::AlignedPlane => None,
                BackProjectionMethod::AlignedProjection => {
                    let (u, v) = (b.u, b.v);
                    let c = cross(
                        d(tri.direction(u, v)),
                        sub(d(point), d(tri.base_point(u, v))),
                    );
                    Some(dot(c, c))
                }
                BackProjectionMethod::AlphaPlane => {
                    let a = b.t as f64;
                    let [p0, p1, p2] = tri.vertices().map(d);
                    let [n0, n1, n2] = tri.directions().map(d);
                    let q = |p: [f64; 3], n: [f64; 3]| {
                        [p[0] + a * n[0], p[1] + a * n[1], p[2] + a * n[2]]
                    };
                    let (q0, q1, q2) = (q(p0, n0), q(p1, n1), q(p2, n2));
                    Some(dot(cross(sub(q1, q0), sub(q2, q0)), sub(d(point), q0)))
                }
            };
            Ok(ProjectionRow {
                method,
                answer: b,
                f,
            })
        })
        .collect()
}
