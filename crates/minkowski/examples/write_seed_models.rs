//! Writes seed 000's four models (cube 8, cone 33, cylinder 64 and sphere 482 vertices)
//! as OBJ files, from the tessellations in `minkowski::shape::tessellation`.
//!
//! `cargo run -p minkowski --example write_seed_models -- examples/models`

use minkowski::hull::quickhull3d;
use minkowski::shape::tessellation;

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "examples/models".into());
    std::fs::create_dir_all(&dir).expect("create the output folder");
    for (name, points) in tessellation::seed000_shapes() {
        let hull = quickhull3d(&points).expect("the tessellations are finite");
        let path = format!("{dir}/{name}.obj");
        std::fs::write(&path, hull.to_obj()).expect("write the model");
        println!(
            "{path}: {} vertices, {} faces",
            hull.vertices().len(),
            hull.num_faces()
        );
    }
}
