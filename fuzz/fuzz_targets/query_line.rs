//! Raw bytes into the `minkowski query` and `minkowski hull` line handlers: whatever the
//! line, one answer line comes back, valid JSON, never a panic; an answer that is not an
//! error has only finite numbers.
#![no_main]

use libfuzzer_sys::fuzz_target;
use minkowski::hull::Algorithm2d;
use minkowski_cli::{hull_protocol, protocol};

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
