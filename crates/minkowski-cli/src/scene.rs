//! `minkowski scene`: seed 000's collision experiment, made honest.
//!
//! N objects — seed 000's cube (8 vertices), cone (33), cylinder (64) and sphere (482) as
//! convex hulls, and capsules — at random positions and orientations in a cube, moving
//! for K frames; every frame runs the world's broad phase and narrow phase and reports
//! pairs, contacts and times.
//!
//! Sizing (printed with the results): objects are about 2 units across; the world is a
//! cube of side `L = 2 s̄ (N / 2)^(1/3)`, where `s̄` is the mean side of the objects'
//! boxes: for boxes of side `s̄` with uniform centres, a box meets another with
//! probability `(2 s̄ / L)³`, so each meets about `N (2 s̄ / L)³ = 2` others. Each
//! object moves a tenth of its size per frame in a random direction (bouncing off the
//! walls) and turns by 0.05 rad per frame about a random axis.
//!
//! `--layout seed000 --array A` is the seed's forced-overlap layout instead: A copies of
//! each of the four shapes at one spot (random orientations, offsets of a tenth of their
//! size), so every pair overlaps, as in its Table 7.2.14.

use std::io::Write;
use std::time::Instant;

use minkowski::shape::{tessellation, Capsule, ConvexPolyhedron, Shape};
use minkowski::world::{BroadPhaseKind, ObjectHandle, World, WorldOptions};
use minkowski::{Pose, Real, Rotation, Vector};
use serde_json::json;

/// Parsed `minkowski scene` options.
#[derive(Debug, Clone)]
pub struct SceneArgs {
    pub objects: usize,
    pub frames: usize,
    pub broadphase: String,
    pub threads: usize,
    pub seed: u64,
    pub seed000_array: Option<usize>,
    pub verify: bool,
    pub json: bool,
    /// Full contacts (EPA for penetrating pairs) or only whether pairs touch.
    pub contact_details: bool,
}

pub const USAGE: &str = "\
usage: minkowski scene [--objects N] [--frames K] [--broadphase grid|sap|bvh]
                       [--threads T] [--seed S] [--layout seed000 --array A]
                       [--contacts full|touch] [--verify] [--json]
  defaults: --objects 1000 --frames 100 --broadphase bvh --threads <all cores> --seed 1
  --contacts full (default) computes every touching pair's contact (EPA when penetrating);
  --contacts touch only decides which pairs touch";

pub fn parse(args: &[String]) -> Result<SceneArgs, String> {
    let mut a = SceneArgs {
        objects: 1000,
        frames: 100,
        broadphase: "bvh".into(),
        threads: 0,
        seed: 1,
        seed000_array: None,
        verify: false,
        json: false,
        contact_details: true,
    };
    let mut layout_seed000 = false;
    let mut it = args.iter();
    let num = |v: Option<&String>, flag: &str| -> Result<u64, String> {
        v.ok_or(format!("{flag} needs a value"))?
            .parse::<u64>()
            .map_err(|_| format!("{flag} needs a non-negative integer"))
    };
    while let Some(flag) = it.next() {
        match flag.as_str() {
            "--objects" => a.objects = num(it.next(), flag)? as usize,
            "--frames" => a.frames = num(it.next(), flag)? as usize,
            "--threads" => a.threads = num(it.next(), flag)? as usize,
            "--seed" => a.seed = num(it.next(), flag)?,
            "--array" => a.seed000_array = Some(num(it.next(), flag)? as usize),
            "--broadphase" => {
                let v = it.next().ok_or("--broadphase needs grid, sap or bvh")?;
                if !["grid", "sap", "bvh"].contains(&v.as_str()) {
                    return Err(format!("unknown broad phase '{v}' (grid, sap, bvh)"));
                }
                a.broadphase = v.clone();
            }
            "--layout" => match it.next().map(String::as_str) {
                Some("seed000") => layout_seed000 = true,
                Some("random") => layout_seed000 = false,
                other => return Err(format!("unknown layout {other:?} (seed000, random)")),
            },
            "--contacts" => match it.next().map(String::as_str) {
                Some("full") => a.contact_details = true,
                Some("touch") => a.contact_details = false,
                other => return Err(format!("unknown --contacts {other:?} (full, touch)")),
            },
            "--verify" => a.verify = true,
            "--json" => a.json = true,
            other => return Err(format!("unknown option '{other}'")),
        }
    }
    if layout_seed000 {
        match a.seed000_array {
            Some(n) if (1..=1000).contains(&n) => {}
            Some(_) => return Err("--array must be between 1 and 1000".into()),
            None => return Err("--layout seed000 needs --array A (the seed used 2..18)".into()),
        }
    } else if a.seed000_array.is_some() {
        return Err("--array goes with --layout seed000".into());
    }
    if a.objects > 2_000_000 {
        return Err("--objects is limited to 2,000,000".into());
    }
    Ok(a)
}

/// splitmix64
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E3779B97F4A7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> Real {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64) as Real
    }
    fn signed(&mut self) -> Real {
        2.0 * self.unit() - 1.0
    }
    fn dir(&mut self) -> Vector {
        loop {
            let v = Vector::new(self.signed(), self.signed(), self.signed());
            let l = v.length();
            if l > 0.1 && l <= 1.0 {
                return v / l;
            }
        }
    }
    fn rotation(&mut self) -> Rotation {
        Rotation::from_axis_angle(self.dir(), self.unit() * std::f32::consts::TAU as Real)
    }
}

struct Body {
    handle: ObjectHandle,
    pose: Pose,
    velocity: Vector,
    spin: Rotation,
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

pub fn run(args: &SceneArgs, out: &mut dyn Write) -> Result<bool, String> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads)
        .build()
        .map_err(|e| format!("cannot start {} threads: {e}", args.threads))?;
    run_in_pool(args, &pool, out)
}

fn run_in_pool(
    args: &SceneArgs,
    pool: &rayon::ThreadPool,
    out: &mut dyn Write,
) -> Result<bool, String> {
    let threads = pool.current_num_threads();
    let mut rng = Rng(args.seed);
    // The five shapes.
    let mut shapes: Vec<(&'static str, Shape)> = tessellation::seed000_shapes()
        .into_iter()
        .map(|(name, pts)| {
            (
                name,
                ConvexPolyhedron::new(pts)
                    .expect("valid tessellation")
                    .into(),
            )
        })
        .collect();
    let seed_shapes = shapes.len();
    shapes.push((
        "capsule",
        Capsule::new(0.6, 0.4).expect("valid capsule").into(),
    ));

    // Who goes where.
    let (count, kinds): (usize, Vec<usize>) = match args.seed000_array {
        Some(a) => (4 * a, (0..4 * a).map(|i| i % seed_shapes).collect()),
        None => (
            args.objects,
            (0..args.objects).map(|i| i % shapes.len()).collect(),
        ),
    };
    let rotations: Vec<Rotation> = (0..count).map(|_| rng.rotation()).collect();
    let mean_side = if count == 0 {
        0.0
    } else {
        kinds
            .iter()
            .zip(&rotations)
            .map(|(&k, r)| {
                let b = shapes[k]
                    .1
                    .local_aabb()
                    .transformed(&Pose::new(*r, Vector::ZERO));
                let e = b.maxs - b.mins;
                ((e.x * e.y * e.z) as f64).cbrt()
            })
            .sum::<f64>()
            / count as f64
    };
    let side = match args.seed000_array {
        Some(_) => 0.0,
        None => 2.0 * mean_side * (count.max(1) as f64 / 2.0).cbrt(),
    } as Real;
    let kind = match args.broadphase.as_str() {
        "grid" => BroadPhaseKind::Grid {
            cell_size: (2.0 * mean_side) as Real,
        },
        "sap" => BroadPhaseKind::SweepAndPrune,
        _ => BroadPhaseKind::Tree { fat_factor: 0.5 },
    };
    let options = WorldOptions {
        contact_details: args.contact_details,
        ..Default::default()
    };
    let mut world = World::new(kind, options);
    let mut bodies = Vec::with_capacity(count);
    for (i, &k) in kinds.iter().enumerate() {
        let size = 2.0 as Real;
        let position = match args.seed000_array {
            Some(_) => rng.dir() * (0.1 * size),
            None => {
                Vector::new(rng.unit(), rng.unit(), rng.unit()) * side - Vector::splat(side * 0.5)
            }
        };
        let pose = Pose::new(rotations[i], position);
        let handle = world
            .insert(shapes[k].1.clone(), pose)
            .map_err(|e| format!("cannot insert object {i}: {e}"))?;
        bodies.push(Body {
            handle,
            pose,
            velocity: rng.dir() * (0.1 * size),
            spin: Rotation::from_axis_angle(rng.dir(), 0.05),
        });
    }
    let figures = json!({
        "objects": count,
        "frames": args.frames,
        "broadphase": args.broadphase,
        "threads": threads,
        "seed": args.seed,
        "layout": if args.seed000_array.is_some() { "seed000" } else { "random" },
        "array": args.seed000_array,
        "world_side": side,
        "mean_box_side": mean_side,
        "speed_per_frame": 0.2,
        "contacts": if args.contact_details { "full" } else { "touch" },
    });
    if !args.json {
        writeln!(out, "scene: {figures}").map_err(|e| e.to_string())?;
        writeln!(
            out,
            "{:>6} {:>9} {:>9} {:>10} {:>10}",
            "frame", "pairs", "contacts", "broad ms", "narrow ms"
        )
        .map_err(|e| e.to_string())?;
    }
    let (mut frame_ms, mut broad_ms, mut narrow_ms) = (Vec::new(), Vec::new(), Vec::new());
    let mut verified = true;
    let half = side * 0.5;
    for frame in 0..args.frames {
        let t0 = Instant::now();
        if frame > 0 {
            for b in bodies.iter_mut() {
                let mut p = b.pose.translation + b.velocity;
                if args.seed000_array.is_none() {
                    for k in 0..3 {
                        if p[k].abs() > half {
                            b.velocity[k] = -b.velocity[k];
                            p[k] = p[k].clamp(-half, half);
                        }
                    }
                } else {
                    // The forced-overlap layout jitters in place.
                    p = b.pose.translation + (b.velocity - b.pose.translation) * 0.01;
                }
                b.pose = Pose::new((b.spin * b.pose.rotation).normalize(), p);
                world
                    .set_pose(b.handle, b.pose)
                    .map_err(|e| e.to_string())?;
            }
        }
        let t_moved = Instant::now();
        pool.install(|| world.update());
        let total = t0.elapsed().as_secs_f64() * 1e3;
        let t = world.timings();
        // The broad phase's share includes updating the boxes of the moved objects.
        let broad = t.broad_ms + (t_moved - t0).as_secs_f64() * 1e3;
        frame_ms.push(total);
        broad_ms.push(broad);
        narrow_ms.push(t.narrow_ms);
        let contacts = world.contacts().len();
        let mut verdict = None;
        if args.verify {
            let r = world.verify(1e-4);
            if let Err(e) = &r {
                verified = false;
                verdict = Some(e.clone());
            }
        }
        if args.json {
            let mut line = json!({
                "frame": frame, "pairs": t.pairs, "contacts": contacts,
                "broad_ms": broad, "narrow_ms": t.narrow_ms,
                // broad_ms = move_ms (new poses and boxes into the broad phase) + pair_ms.
                "move_ms": broad - t.broad_ms, "pair_ms": t.broad_ms,
            });
            if args.verify {
                line["verified"] = json!(verdict.is_none());
                if let Some(e) = &verdict {
                    line["difference"] = json!(e);
                }
            }
            writeln!(out, "{line}").map_err(|e| e.to_string())?;
        } else if frame < 5 || frame % 10 == 0 || frame + 1 == args.frames || verdict.is_some() {
            write!(
                out,
                "{frame:>6} {:>9} {contacts:>9} {broad:>10.3} {:>10.3}",
                t.pairs, t.narrow_ms
            )
            .map_err(|e| e.to_string())?;
            match &verdict {
                Some(e) => writeln!(out, "  VERIFY FAILED: {e}"),
                None if args.verify => writeln!(out, "  verified"),
                None => writeln!(out),
            }
            .map_err(|e| e.to_string())?;
        }
    }
    let summary = json!({
        "summary": true,
        "median_frame_ms": median(&mut frame_ms),
        "median_broad_ms": median(&mut broad_ms),
        "median_narrow_ms": median(&mut narrow_ms),
        "verified": if args.verify { json!(verified) } else { json!(null) },
        "scene": figures,
    });
    if args.json {
        writeln!(out, "{summary}").map_err(|e| e.to_string())?;
    } else {
        writeln!(
            out,
            "median per frame: {:.3} ms (broad {:.3} ms, narrow {:.3} ms){}",
            summary["median_frame_ms"].as_f64().unwrap_or(0.0),
            summary["median_broad_ms"].as_f64().unwrap_or(0.0),
            summary["median_narrow_ms"].as_f64().unwrap_or(0.0),
            if args.verify {
                if verified {
                    "; every frame verified against brute force"
                } else {
                    "; VERIFY FAILED"
                }
            } else {
                ""
            }
        )
        .map_err(|e| e.to_string())?;
    }
    Ok(verified)
}
