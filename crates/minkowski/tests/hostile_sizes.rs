//! Sizes and extremes that once crashed or gave a non-finite answer (found by a panic
//! audit of the library and the protocol): each is now refused with a typed error before
//! anything is allocated, or answered with finite numbers.
//!
//! * a PNG whose header claims 60 000 000 × 4 000 000 000 samples (a few dozen bytes of
//!   file): refused by [`HeightField::from_png`] before its decoding buffer is made;
//! * a quad layout of 65 534² cells (17 GB of owners): refused as `BadArea`, the
//!   2^26-cell limit its error promises;
//! * a scene of `usize::MAX` objects, or a seed-000 array of `usize::MAX / 2`;
//! * a CCSA problem whose `(m + 1) · n` gradient entries overflow;
//! * a hollow ray straight down from inside a heightfield (it never leaves: no hit, not
//!   an infinite time);
//! * tiny cells: their normals' products underflow, yet stay unit vectors; walls too
//!   steep for a normal (slopes beyond `1 / DEGENERATE_TRIANGLE`) are refused;
//! * a protocol line whose first heightfield row is wide and whose other rows are empty
//!   (the buffer was sized from the first row times the row count).

#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

use minkowski::optimize::{ccsa_minimize, CcsaError, CcsaOptions, CcsaProblem};
use minkowski::query::compound::Collider;
use minkowski::query::static_dispatch;
use minkowski::query::{cast_ray_heightfield, QueryOptions, Ray, RayOptions};
use minkowski::scene::{Scene, SceneLayout};
use minkowski::shape::{HeightField, HeightFieldError, ShapeError, Sphere, StaticShape};
use minkowski::terrain::{QuadLayout, QuadLayoutError};
use minkowski::{Pose, Real, Vector};

/// CRC-32 (ISO-HDLC, as PNG chunks use), bit by bit.
fn crc32(bytes: &[u8]) -> u32 {
    let mut c = u32::MAX;
    for &b in bytes {
        c ^= b as u32;
        for _ in 0..8 {
            c = if c & 1 == 1 {
                (c >> 1) ^ 0xEDB8_8320
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// A PNG file of its signature, an 8-bit grayscale header of `width × height`, an empty
/// zlib stream as its only data, and its end: no pixels at all.
fn header_only_png(width: u32, height: u32) -> Vec<u8> {
    let mut out = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];
    let mut chunk = |kind: &[u8; 4], data: &[u8]| {
        out.extend((data.len() as u32).to_be_bytes());
        let mut body = kind.to_vec();
        body.extend(data);
        out.extend(&body);
        out.extend(crc32(&body).to_be_bytes());
    };
    let mut ihdr = Vec::new();
    ihdr.extend(width.to_be_bytes());
    ihdr.extend(height.to_be_bytes());
    ihdr.extend([8, 0, 0, 0, 0]); // 8 bits, grayscale, deflate, no filter, no interlace
    chunk(b"IHDR", &ihdr);
    chunk(b"IDAT", &[0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]);
    chunk(b"IEND", &[]);
    out
}

#[test]
fn a_png_claiming_a_huge_image_is_refused_before_allocating() {
    assert_eq!(crc32(b"IEND"), 0xAE42_6082); // the constant every PNG ends with
    let dir = std::env::temp_dir().join(format!("minkowski-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("huge.png");
    std::fs::write(&path, header_only_png(60_000_000, 4_000_000_000)).unwrap();
    let got = HeightField::from_png(&path, 1.0, [1.0, 1.0], Vector::ZERO);
    // A small claim gets past the size check and fails on the missing data instead.
    std::fs::write(&path, header_only_png(3, 3)).unwrap();
    let small = HeightField::from_png(&path, 1.0, [1.0, 1.0], Vector::ZERO);
    std::fs::remove_dir_all(&dir).ok();
    match got {
        Err(HeightFieldError::Image { reason, .. }) => {
            assert!(reason.contains("60000000 x 4000000000"), "{reason}")
        }
        other => panic!("expected an image error, got {other:?}"),
    }
    assert!(
        matches!(small, Err(HeightFieldError::Image { ref reason, .. }) if !reason.contains("samples")),
        "{small:?}"
    );
}

#[test]
fn a_quad_layout_beyond_the_cell_limit_is_refused() {
    assert!(matches!(
        QuadLayout::new(65_534, 65_534, Vec::new()),
        Err(QuadLayoutError::BadArea { .. })
    ));
    // 8192² = 2^26 cells is the limit itself: past the area check (then: no quads).
    assert!(!matches!(
        QuadLayout::new(8192, 8192, Vec::new()),
        Err(QuadLayoutError::BadArea { .. })
    ));
    assert!(matches!(
        QuadLayout::new(8194, 8192, Vec::new()),
        Err(QuadLayoutError::BadArea { .. })
    ));
}

#[test]
fn scenes_beyond_their_limits_are_refused() {
    for layout in [
        SceneLayout::Random {
            objects: usize::MAX,
        },
        SceneLayout::Random {
            objects: minkowski::scene::MAX_SCENE_OBJECTS + 1,
        },
        SceneLayout::Seed000 {
            array: usize::MAX / 2,
        },
    ] {
        let got = Scene::new(layout, 1);
        assert!(
            matches!(got, Err(ShapeError::OutOfRange { shape: "scene", .. })),
            "{layout:?}: {:?}",
            got.map(|s| s.objects.len())
        );
    }
    let s = Scene::new(
        SceneLayout::Seed000 {
            array: minkowski::scene::MAX_SEED000_ARRAY,
        },
        1,
    )
    .unwrap();
    assert_eq!(s.objects.len(), 4 * minkowski::scene::MAX_SEED000_ARRAY);
}

/// A problem that claims `usize::MAX` constraints (never evaluated).
struct Enormous;

impl CcsaProblem for Enormous {
    fn dimension(&self) -> usize {
        2
    }
    fn constraint_count(&self) -> usize {
        usize::MAX
    }
    fn evaluate(&mut self, _: &[f64], _: &mut [f64], _: &mut [f64]) {
        unreachable!("refused before any evaluation")
    }
}

#[test]
fn a_ccsa_problem_too_large_to_hold_is_refused() {
    let got = ccsa_minimize(
        &mut Enormous,
        &[0.0, 0.0],
        &[-1.0, -1.0],
        &[1.0, 1.0],
        &CcsaOptions::default(),
    );
    assert_eq!(
        got.err(),
        Some(CcsaError::TooLarge {
            constraints: usize::MAX,
            variables: 2
        })
    );
}

#[test]
fn a_hollow_ray_straight_down_from_inside_never_leaves() {
    let flat = HeightField::new(2, 2, &[Some(0.0); 4], [1.0, 1.0], Vector::ZERO).unwrap();
    let hollow = RayOptions {
        solid: false,
        ..RayOptions::default()
    };
    let down = Ray::new(Vector::new(0.5, -5.0, 0.5), Vector::new(0.0, -1.0, 0.0));
    let r = cast_ray_heightfield(&flat, &Pose::IDENTITY, &down, &hollow).unwrap();
    assert!(r.hit.is_none(), "{r:?}");
    // Slanted, it leaves through a side of the field's rectangle, at a finite time.
    let slanted = Ray::new(Vector::new(0.5, -5.0, 0.5), Vector::new(1.0, -1.0, 0.0));
    let hit = cast_ray_heightfield(&flat, &Pose::IDENTITY, &slanted, &hollow)
        .unwrap()
        .hit
        .unwrap();
    assert!((hit.toi - 0.5).abs() < 1e-6 && hit.inside, "{hit:?}");
}

#[test]
fn tiny_cells_keep_unit_normals_and_walls_are_refused() {
    for cell in [1e-30, 1e-20, 1e-10] {
        // A wall: a rise of 10^10 to 10^30 cell sides has no normal beyond rounding.
        let wall = HeightField::new(
            2,
            2,
            &[Some(0.0), Some(1.0), Some(2.0), Some(3.0)],
            [cell, cell],
            Vector::ZERO,
        );
        let refused = matches!(
            wall,
            Err(HeightFieldError::BadParameter { field: "slope", .. })
        );
        assert!(refused || cell == 1e-10, "{cell}: {wall:?}");
        // Slopes of 0.1 to 0.3 over tiny cells: the normal's products underflow.
        let h = |k: Real| Some(k * cell);
        let gentle = HeightField::new(
            2,
            2,
            &[h(0.0), h(0.1), h(0.2), h(0.3)],
            [cell, cell],
            Vector::ZERO,
        )
        .unwrap();
        let want = Vector::new(-0.1, 1.0, -0.2).normalize();
        for dir in [Vector::new(0.0, -1.0, 0.0), Vector::new(0.3, -1.0, 0.2)] {
            let ray = Ray::new(Vector::new(0.5 * cell, cell, 0.25 * cell), dir * cell);
            let r = cast_ray_heightfield(&gentle, &Pose::IDENTITY, &ray, &RayOptions::default())
                .unwrap();
            let hit = r.hit.unwrap();
            assert!(
                hit.toi.is_finite() && hit.point.is_finite(),
                "{cell}: {hit:?}"
            );
            assert!((hit.normal - want).length() < 1e-3, "{cell}: {hit:?}");
        }
        let ball: Collider = minkowski::shape::Shape::from(Sphere::new(cell).unwrap()).into();
        let s = StaticShape::from(gentle);
        let at = Pose::from_translation(Vector::new(0.25 * cell, 0.9 * cell, 0.25 * cell)).unwrap();
        let ms = static_dispatch::manifolds(
            &s,
            &Pose::IDENTITY,
            &ball,
            &at,
            0.0,
            &QueryOptions::default(),
        );
        // (Before the static paths measured tiny triangles in units of their size, the
        // contact was missed below a normal square: `static_scale_invariance.rs`.)
        assert!(!ms.is_empty(), "{cell}: the ball overlaps the surface");
        for m in &ms {
            assert!((m.normal - want).length() < 1e-3, "{cell}: {m:?}");
            for p in m.points() {
                assert!(p.distance.is_finite() && p.distance < 0.0, "{cell}: {m:?}");
            }
        }
    }
}

#[cfg(feature = "protocol")]
#[test]
fn a_wide_first_row_with_short_rows_is_refused_not_allocated() {
    // 300 000 zeros, then 299 999 empty rows: the old buffer asked for 9e10 samples.
    let zeros = vec!["0"; 300_000].join(",");
    let empties = vec!["[]"; 299_999].join(",");
    let line = format!(
        r#"{{"query":"height_at","shape":{{"type":"heightfield","heights":[[{zeros}],{empties}],"cell_size":[1,1]}},"x":0,"z":0}}"#
    );
    let text = minkowski::protocol::answer_line(&line);
    assert!(
        text.contains(r#""kind":"invalid_shape""#) && text.contains("heights[1]"),
        "{}",
        &text[..text.len().min(300)]
    );
}

/// A `TerrainLevel` built by hand (its fields are public) with `bounding_size: 0` has no
/// cells per side, instead of dividing by zero.
#[test]
fn a_terrain_level_of_bounding_size_zero_has_no_cells_per_side() {
    use minkowski::terrain::terrain_volumes::{LevelBound, TerrainLevel};
    let level = TerrainLevel {
        bounding_size: 0,
        bound: LevelBound::Slab,
        cells: Vec::new(),
    };
    assert_eq!(level.per_side(64), 0);
    let level = TerrainLevel {
        bounding_size: 16,
        ..level
    };
    assert_eq!(level.per_side(64), 4);
}
