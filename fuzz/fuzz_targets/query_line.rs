//! Raw bytes into the `minkowski query` and `minkowski hull` line handlers: whatever the
//! line, one answer line comes back, valid JSON, never a panic; an answer that is not an
//! error has only finite numbers.
#![no_main]

// The `f64` feature fuzzes the double-precision crate under the same name.
#[cfg(feature = "f64")]
extern crate minkowski_f64 as minkowski;

use libfuzzer_sys::fuzz_target;
use minkowski::hull::Algorithm2d;
use minkowski::protocol::{self, hull as hull_protocol};

fn check(answer: &str) {
    assert!(!answer.contains('\n'), "answer spans lines: {answer}");
    let v: serde_json::Value = serde_json::from_str(answer).expect("answer is JSON");
    assert!(v.is_object(), "answer is not an object: {answer}");
}

fuzz_target!(|data: &[u8]| {
    let line = String::from_utf8_lossy(data);
    check(&protocol::answer_line(&line));
    check(&protocol::answer_line_with(&line, |q| {
        hull_protocol::answer(q, hull_protocol::Mode::Space)
    }));
    check(&protocol::answer_line_with(&line, |q| {
        hull_protocol::answer(q, hull_protocol::Mode::Plane(Algorithm2d::Graham))
    }));
});
