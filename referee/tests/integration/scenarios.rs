//! One scenario script per alert code (raised with the right points and article, and
//! cleared when the board is restored) and one innocent look-alike each (nothing raised).
//!
//! Each script in `tests/scenarios/` carries its expectations in `#!` lines:
//! `#! alert CODE [ARTICLE] [POINTS...]` (the alerts, in order), `#! none` (no alert at all),
//! `#! restored N` (alerts cleared as restored), `#! moves N` (moves and passes in the
//! record), `#! event TYPE` (at least one event of that type), `#! result R` (the result).

use crate::common;

use std::path::PathBuf;

use tengen_protocol::event::ClearedHow;
use tengen_protocol::Event;
use tengen_sim::{Script, SimOptions, Simulation};

struct Outcome {
    events: Vec<Event>,
    moves: usize,
    result: Option<String>,
}

fn run_script(path: &PathBuf, seed: u64) -> Outcome {
    let text = std::fs::read_to_string(path).expect("scenario readable");
    let script = Script::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let settings = common::settings_for_script(&script);
    let mut sim = Simulation::from_parsed(&script, &SimOptions::seeded(seed))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let run = common::run(&mut sim, settings);
    let view = run.pipeline.referee().view();
    Outcome {
        moves: view.record().len(),
        result: view.result().map(str::to_string),
        events: run.events.into_iter().map(|(_, e)| e).collect(),
    }
}

fn type_name(e: &Event) -> String {
    e.kind().to_string()
}

/// Checks one scenario; returns what went wrong.
fn check(path: &PathBuf, seed: u64) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("scenario readable");
    let out = run_script(path, seed);
    let mut problems = Vec::new();
    let alerts: Vec<(String, String, Vec<String>)> = out
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Alert(a) => Some((
                a.code.as_str().to_string(),
                a.article.clone(),
                a.points.iter().map(|p| p.to_gtp()).collect(),
            )),
            _ => None,
        })
        .collect();
    let mut want_alerts = Vec::new();
    let mut has_expectation = false;
    for line in text.lines().filter_map(|l| l.strip_prefix("#!")) {
        has_expectation = true;
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["none"] => {
                if !alerts.is_empty() {
                    problems.push(format!("expected no alert, got {alerts:?}"));
                }
            }
            ["alert", code, rest @ ..] => want_alerts.push((code.to_string(), rest.to_vec())),
            ["restored", n] => {
                let got = out
                    .events
                    .iter()
                    .filter(|e| {
                        matches!(
                            e,
                            Event::AlertCleared {
                                how: ClearedHow::Restored,
                                ..
                            }
                        )
                    })
                    .count();
                if got.to_string() != *n {
                    problems.push(format!("expected {n} restored, got {got}"));
                }
            }
            ["moves", n] => {
                if out.moves.to_string() != *n {
                    problems.push(format!("expected {n} moves, got {}", out.moves));
                }
            }
            ["event", t] => {
                if !out.events.iter().any(|e| type_name(e) == *t) {
                    problems.push(format!("expected a '{t}' event"));
                }
            }
            ["result", r] => {
                if out.result.as_deref() != Some(*r) {
                    problems.push(format!("expected result {r}, got {:?}", out.result));
                }
            }
            other => problems.push(format!("bad expectation line {other:?}")),
        }
    }
    if !has_expectation {
        problems.push("no #! expectations".to_string());
    }
    if !want_alerts.is_empty() {
        if alerts.len() != want_alerts.len() {
            problems.push(format!(
                "expected {} alerts, got {alerts:?}",
                want_alerts.len()
            ));
        }
        for ((code, rest), (got_code, got_article, got_points)) in want_alerts.iter().zip(&alerts) {
            if code != got_code {
                problems.push(format!("expected alert {code}, got {got_code}"));
                continue;
            }
            let (article, points): (Vec<&str>, Vec<&str>) = rest
                .iter()
                .partition(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()));
            if let Some(a) = article.first() {
                if got_article != a {
                    problems.push(format!("{code}: expected article {a}, got {got_article}"));
                }
            }
            if !points.is_empty() && *got_points != points {
                problems.push(format!(
                    "{code}: expected points {points:?}, got {got_points:?}"
                ));
            }
        }
    }
    if !problems.is_empty() {
        let list: Vec<String> = out
            .events
            .iter()
            .map(|e| serde_json::to_string(e).unwrap_or_default())
            .collect();
        problems.push(format!("events:\n  {}", list.join("\n  ")));
    }
    problems
}

fn scenarios() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("scenario dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    v.sort();
    v
}

#[test]
fn every_scenario_meets_its_expectations_under_several_seeds() {
    let all = scenarios();
    assert!(all.len() >= 24, "scenarios missing");
    let mut failures = Vec::new();
    for path in &all {
        for seed in [1u64, 2, 3] {
            let problems = check(path, seed);
            if !problems.is_empty() {
                failures.push(format!(
                    "{} (seed {seed}):\n{}",
                    path.file_name()
                        .map(|n| n.to_string_lossy().to_string())
                        .unwrap_or_default(),
                    problems.join("\n")
                ));
                break;
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_alert_code_has_a_scenario_and_a_look_alike() {
    let names: Vec<String> = scenarios()
        .iter()
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().to_string()))
        .collect();
    for code in [
        "uncaptured_stones",
        "wrong_capture",
        "stone_moved",
        "takeback",
        "double_move",
        "wrong_color",
        "suicide",
        "ko",
        "superko",
        "clock_before_move",
        "board_disturbed",
        "time_expired",
        "mismatch",
    ] {
        assert!(names.contains(&code.to_string()), "no scenario for {code}");
        assert!(
            names.contains(&format!("{code}_ok")),
            "no look-alike for {code}"
        );
    }
}
