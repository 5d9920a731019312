//! The `protocol` feature: the typed requests and answers of the JSON-lines protocol
//! agree with the line handler (the code the `minkowski` tool runs), both ways.
#![cfg(feature = "protocol")]

// The same tests run on the double-precision crate (`minkowski-f64` links them).
#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

use minkowski::protocol::hull::{self, Hull2dAnswer, Hull3dAnswer, Mode};
use minkowski::protocol::{
    answer_line, answer_line_with, ClosestPointsAnswer, ContactAnswer, DistanceAnswer, ErrorAnswer,
    ErrorKind, IntersectsAnswer, ManifoldAnswer, QueryKind, QueryRequest,
};
use minkowski::query::QueryStatus;
use serde_json::Value;

const LINES: &[&str] = &[
    r#"{"id": 1, "query": "intersects", "a": {"type": "sphere", "radius": 1}, "b": {"type": "cuboid", "half_extents": [0.5, 0.5, 0.5]}, "pose_b": {"translation": [1.2, 0, 0]}}"#,
    r#"{"id": 2, "query": "distance", "a": {"type": "capsule", "half_height": 0.5, "radius": 0.2}, "b": {"type": "point", "p": [0.1, 0.2, 0.3]}, "pose_b": {"translation": [2, 0, 0], "rotation": [0, 0.6, 0, 0.8]}}"#,
    r#"{"id": 3, "query": "closest_points", "a": {"type": "convex", "points": [[0,0,0],[1,0,0],[0,1,0],[0,0,1]]}, "b": {"type": "sphere", "radius": 0.1}, "pose_b": {"translation": [1, 1, 1]}}"#,
    r#"{"id": 4, "query": "contact", "a": {"type": "rounded", "radius": 0.1, "shape": {"type": "triangle", "a": [0,0,0], "b": [1,0,0], "c": [0,1,0]}}, "b": {"type": "cone", "half_height": 0.5, "radius": 0.3}, "pose_b": {"translation": [0.2, 0.2, 0.3]}}"#,
    r#"{"id": 5, "query": "manifold", "margin": 0.05, "a": {"type": "cuboid", "half_extents": [2, 0.5, 2]}, "b": {"type": "cuboid", "half_extents": [0.5, 0.5, 0.5]}, "pose_b": {"translation": [0.3, 0.98, 0]}}"#,
    r#"{"id": 6, "query": "contact", "a": {"type": "compound", "parts": [{"shape": {"type": "sphere", "radius": 0.5}, "pose": {"translation": [-1, 0, 0]}}, {"shape": {"type": "cylinder", "half_height": 0.5, "radius": 0.4}}]}, "b": {"type": "ellipsoid", "radii": [0.3, 0.4, 0.5]}, "pose_b": {"translation": [0.2, 0.5, 0.1]}}"#,
    r#"{"id": 7, "query": "intersects", "a": {"type": "segment", "a": [0,0,0], "b": [1,1,1]}, "b": {"type": "compound", "parts": [{"shape": {"type": "pyramid", "half_extents": [1, 1, 1]}}]}}"#,
];

fn without_id(text: &str) -> Value {
    let mut v: Value = serde_json::from_str(text).unwrap();
    v.as_object_mut().unwrap().remove("id");
    v
}

/// A parsed request, written out and answered again, gets the same answer, bit for bit;
/// the typed answer writes exactly the handler's text.
#[test]
fn requests_written_out_get_the_same_answers() {
    for line in LINES {
        let obj: Value = serde_json::from_str(line).unwrap();
        let req = QueryRequest::parse(obj.as_object().unwrap()).unwrap();
        let written = serde_json::to_string(&req).unwrap();
        let again: QueryRequest = serde_json::from_str(&written).unwrap();
        assert_eq!(again, req, "{written}");
        let expected = answer_line(line);
        assert_eq!(
            without_id(&answer_line(&written)),
            without_id(&expected),
            "{line}"
        );
        let typed = serde_json::to_string(&req.answer()).unwrap();
        assert_eq!(format!("{{\"id\":{},{}", obj["id"], &typed[1..]), expected);
    }
}

/// The tool's answers read into the typed answers, and write back the same text.
#[test]
fn answers_read_into_the_typed_answers() {
    fn check<T: serde::Serialize + serde::de::DeserializeOwned>(line: &str) -> T {
        let text = answer_line(line);
        let body = without_id(&text);
        let typed: T =
            serde_json::from_value(body.clone()).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(serde_json::to_value(&typed).unwrap(), body);
        typed
    }
    let i: IntersectsAnswer = check(LINES[0]);
    assert!(i.intersects && i.part_a.is_none());
    let d: DistanceAnswer = check(LINES[1]);
    assert!(d.distance > 0.0 && d.status == QueryStatus::Converged);
    let c: ClosestPointsAnswer = check(LINES[2]);
    assert!(!c.intersects);
    let k: ContactAnswer = check(LINES[3]);
    assert!((k.normal.iter().map(|x| x * x).sum::<f64>() - 1.0).abs() < 1e-6);
    let m: ManifoldAnswer = check(LINES[4]);
    assert_eq!(m.points.len(), 4);
    let k: ContactAnswer = check(LINES[5]);
    assert!(k.part_a.is_some() && k.part_b.is_none());
    let i: IntersectsAnswer = check(LINES[6]);
    assert_eq!((i.intersects, i.part_b), (true, Some(0)));
}

/// Errors: the typed error object, and the request's `Deserialize` refusing with the
/// tool's message.
#[test]
fn errors_are_typed() {
    let bad = r#"{"id": 9, "query": "contact", "a": {"type": "sphere", "radius": -1}, "b": {"type": "point"}}"#;
    let text = answer_line(bad);
    assert!(text.starts_with(r#"{"id":9,"error":"#), "{text}");
    let e: ErrorAnswer = serde_json::from_value(without_id(&text)).unwrap();
    assert_eq!(e.error.kind, ErrorKind::InvalidShape);
    let refused = serde_json::from_str::<QueryRequest>(bad).unwrap_err();
    assert!(refused.to_string().contains(&e.error.message), "{refused}");

    let e: ErrorAnswer = serde_json::from_str(&answer_line("[1]")).unwrap();
    assert_eq!(e.error.kind, ErrorKind::InvalidQuery);
    assert!(
        serde_json::from_str::<QueryRequest>(r#"{"query": "explode", "a": {}, "b": {}}"#).is_err()
    );
    assert_eq!(
        QueryKind::from_name("closest_points"),
        Some(QueryKind::ClosestPoints)
    );
}

#[test]
fn hull_answers_are_typed() {
    let line = r#"{"id": "t", "points": [[0,0,0],[1,0,0],[0,1,0],[0,0,1],[0.1,0.1,0.1]]}"#;
    let text = answer_line_with(line, |q| hull::answer(q, Mode::Space));
    let h: Hull3dAnswer = serde_json::from_value(without_id(&text)).unwrap();
    assert_eq!((h.dimension, h.vertices.len(), h.faces.len()), (3, 4, 4));
    let line = r#"{"id": 2, "points": [[0,0],[2,0],[1,1],[1,3],[0,2]]}"#;
    let mode = Mode::Plane(minkowski::hull::Algorithm2d::Graham);
    let text = answer_line_with(line, |q| hull::answer(q, mode));
    let h: Hull2dAnswer = serde_json::from_value(without_id(&text)).unwrap();
    assert_eq!((h.algorithm.as_str(), h.dimension), ("graham", 2));
    assert_eq!(h.vertices[0], [0.0, 0.0]);
}
