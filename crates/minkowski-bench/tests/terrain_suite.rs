//! The terrain tables' machinery: the Tables 4.1–4.3 rows against the thesis's printed
//! aligned-plane figures and the exact answer, and `measure` counting misses and extras
//! against brute force (a detector that drops or invents a contact is caught), and the
//! multiresolution column equal to brute force.
#![allow(clippy::unnecessary_cast)]

#[cfg(feature = "f64")]
extern crate minkowski_f64 as minkowski;

use minkowski::terrain::{
    BackProjectionMethod, BaselineConfig, FrameKind, PerVertexBaseline, SyntheticMode,
    SyntheticTerrain, SyntheticTerrainConfig, TerrainDetection, TerrainScene,
    TerrainVolumesOptions, VertexContact,
};
use minkowski::Point;
use minkowski_bench::terrain_suite::{
    frame_parts, measure, multires_detector, projection_rows, thesis_triangle, Baseline,
    BruteForce, Detector, THESIS_CASES, THESIS_ROWS,
};

#[test]
fn projection_rows_reproduce_the_thesis_aligned_plane_and_the_exact_answer() {
    for ((name, n0), thesis) in THESIS_CASES.iter().zip(THESIS_ROWS) {
        let tri = thesis_triangle(*n0).unwrap();
        let rows: Vec<_> = projection_rows(&tri)
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(rows.len(), 3);
        let aligned = rows[0].answer;
        assert_eq!(rows[0].method, BackProjectionMethod::AlignedPlane);
        assert!((aligned.u as f64 - thesis[0].1).abs() <= 5e-5, "{name}");
        assert!((aligned.v as f64 - thesis[0].2).abs() <= 5e-5, "{name}");
        for row in &rows[1..] {
            assert!((row.answer.u as f64 - 0.3).abs() < 1e-4, "{name}: {row:?}");
            assert!((row.answer.v as f64 - 0.2).abs() < 1e-4, "{name}: {row:?}");
            // At a solution both objectives vanish (to rounding).
            assert!(row.f.unwrap().abs() < 1e-4, "{name}: {row:?}");
        }
    }
}

/// The baseline with its first contact per object dropped and a made-up one added.
struct Faulty<'t>(Baseline<'t>);

impl Detector for Faulty<'_> {
    fn name(&self) -> &str {
        "faulty"
    }
    fn detect(&self, parts: &[&[Point]]) -> Result<TerrainDetection, String> {
        let mut d = self.0.detect(parts)?;
        if !d.contacts.is_empty() {
            d.contacts.remove(0);
        }
        let last = parts.len() - 1;
        d.push(VertexContact {
            part: last,
            vertex: parts[last].len() + 7,
            point: Point::ZERO,
            triangle: 0,
            u: 0.0,
            v: 0.0,
            t: 0.0,
            d: 1.0,
        });
        d.finish();
        Ok(d)
    }
}

#[test]
fn measure_counts_misses_and_extras_against_brute_force() {
    let terrain = SyntheticTerrain::generate(SyntheticTerrainConfig {
        cells_s: 32,
        cells_t: 32,
        mode: SyntheticMode::Heightfield,
        ..Default::default()
    })
    .unwrap();
    let scene = TerrainScene::new(&terrain, 3).unwrap();
    let frames: Vec<_> = (0..3)
        .map(|i| frame_parts(&scene.frame(FrameKind::Ordinary, i).unwrap()))
        .collect();
    let brute = BruteForce(&terrain.terrain);
    let oracle: Vec<Vec<_>> = frames
        .iter()
        .map(|objects| {
            objects
                .iter()
                .map(|p| {
                    brute
                        .detect(&p.iter().map(Vec::as_slice).collect::<Vec<_>>())
                        .unwrap()
                })
                .collect()
        })
        .collect();
    let with_contacts: usize = oracle
        .iter()
        .flatten()
        .filter(|d| !d.contacts.is_empty())
        .count();
    let objects: usize = oracle.iter().map(Vec::len).sum();
    assert!(with_contacts > 0);
    let baseline =
        || Baseline(PerVertexBaseline::new(&terrain.terrain, BaselineConfig::default()).unwrap());
    let fig = measure(&baseline(), &frames, &oracle, 2).unwrap();
    assert_eq!((fig.frames, fig.missed, fig.extra), (3, 0, 0));
    assert_eq!(fig.times.len(), 3);
    assert!(fig.median_ms() >= 0.0 && fig.backward_projections > 0);
    let truth: usize = oracle.iter().flatten().map(|d| d.contacts.len()).sum();
    assert_eq!(fig.contacts, truth);
    let faulty = measure(&Faulty(baseline()), &frames, &oracle, 1).unwrap();
    assert_eq!(faulty.missed, with_contacts);
    assert_eq!(faulty.extra, objects);
    let brute_fig = measure(&brute, &frames, &oracle, 1).unwrap();
    assert_eq!((brute_fig.missed, brute_fig.extra), (0, 0));
    assert!(brute_fig.backward_projections > 20 * fig.backward_projections);
    // The multiresolution column, with its volumes as slabs and optimised: the brute
    // force's contacts exactly, with fewer backward projections than the baseline.
    for optimise in [0, 9] {
        let options = TerrainVolumesOptions {
            max_optimised_points: optimise,
            ..TerrainVolumesOptions::default()
        };
        let (multires, _) = multires_detector(&terrain, &options).unwrap();
        let m = measure(&multires, &frames, &oracle, 1).unwrap();
        assert_eq!((m.missed, m.extra, m.contacts), (0, 0, truth));
        assert!(
            m.backward_projections < fig.backward_projections,
            "{} vs {}",
            m.backward_projections,
            fig.backward_projections
        );
    }
}
