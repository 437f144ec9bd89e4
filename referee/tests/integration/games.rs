//! Noise robustness on real games (issue 4 §6): GNU Go games played on the simulated board
//! at noise 0.001, hover transients on every move: the record is exactly the source game
//! and not a single alert is raised; injected violations raise exactly one alert each.

use crate::common;

use common::{alerts, brisk, fixture_games, play_game, try_play_game};
use tengen_protocol::event::ClearedHow;
use tengen_protocol::Event;
use tengen_rules::clock::TimeControl;
use tengen_rules::sgf::GameRecord;
use tengen_rules::Move;
use tengen_sim::{Violation, ViolationKind};

fn byoyomi() -> TimeControl {
    TimeControl::parse("byoyomi 60m 5x60s").expect("time control")
}

/// Plays one game and checks the record and the silence of the referee.
/// What is wrong with one game played on the noisy board, if anything.
fn check_clean(record: &GameRecord, seed: u64, noise: f64) -> Option<String> {
    let run = play_game(record, seed, noise, brisk(), byoyomi());
    let found = alerts(&run.events);
    if !found.is_empty() {
        return Some(format!("alerts raised: {found:?}"));
    }
    let retracted = run
        .events
        .iter()
        .filter(|(_, e)| matches!(e, Event::MoveRetracted { .. }))
        .count();
    if retracted > 0 {
        return Some(format!("{retracted} moves retracted"));
    }
    let got: Vec<(tengen_rules::Color, Move)> = run.moves();
    let want: Vec<(tengen_rules::Color, Move)> =
        record.moves.iter().map(|m| (m.color, m.mv)).collect();
    if got != want {
        let at = got.iter().zip(&want).position(|(a, b)| a != b);
        return Some(format!(
            "record differs: {} moves recorded, {} in the source, first difference at {at:?}",
            got.len(),
            want.len()
        ));
    }
    None
}

#[test]
fn fixture_games_at_noise_0_001_record_exactly_and_raise_nothing() {
    let mut games = Vec::new();
    for size in [9u8, 13, 19] {
        let all = fixture_games(size);
        let take = match size {
            9 => all.len(),
            13 => all.len(),
            _ => 4,
        };
        games.extend(all.into_iter().take(take));
    }
    assert!(
        games.len() >= 50,
        "only {} fixture games found",
        games.len()
    );
    let mut failures = Vec::new();
    for (i, (path, record)) in games.iter().enumerate() {
        if let Some(e) = check_clean(record, 100 + i as u64, 0.001) {
            failures.push(format!("{}: {e}", path.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} games failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Issue 23: at noise 0.02 (a sensor wrong in one scan in fifty) the fixture games, twice
/// each with different seeds (108 games), still record exactly with no alert. One game in
/// about twenty raised a false `mismatch` before: a captured stone lifted before the
/// capturing stone's noisy reading had settled.
#[test]
fn fixture_games_at_noise_0_02_record_exactly_and_raise_nothing() {
    let mut games = Vec::new();
    for size in [9u8, 13, 19] {
        let all = fixture_games(size);
        let take = if size == 19 { 4 } else { all.len() };
        games.extend(all.into_iter().take(take));
    }
    let mut failures = Vec::new();
    let mut played = 0;
    for round in 0..2u64 {
        for (i, (path, record)) in games.iter().enumerate() {
            played += 1;
            if let Some(e) = check_clean(record, 100 + i as u64 + 1000 * round, 0.02) {
                failures.push(format!("{} (round {round}): {e}", path.display()));
            }
        }
    }
    assert!(played >= 64, "only {played} games");
    assert!(
        failures.is_empty(),
        "{} of {played} games failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn injected_violations_raise_exactly_one_alert_of_their_code() {
    let games = fixture_games(9);
    assert!(!games.is_empty());
    for kind in [
        ViolationKind::LeaveCapture,
        ViolationKind::MoveStone,
        ViolationKind::DoubleMove,
    ] {
        let mut played = 0;
        for (i, (path, record)) in games.iter().enumerate() {
            if played == 4 {
                break;
            }
            let mut play = brisk();
            play.violations = vec![Violation { at_move: 12, kind }];
            let Some(run) = try_play_game(record, 7 + i as u64, 0.001, play, byoyomi()) else {
                continue;
            };
            played += 1;
            let found = alerts(&run.events);
            assert_eq!(found.len(), 1, "{}: {kind:?}: {found:?}", path.display());
            assert_eq!(found[0].0.as_str(), kind.alert_code(), "{}", path.display());
            let cleared = run
                .events
                .iter()
                .filter(|(_, e)| {
                    matches!(
                        e,
                        Event::AlertCleared {
                            how: ClearedHow::Restored,
                            ..
                        }
                    )
                })
                .count();
            assert_eq!(cleared, 1, "{}: {kind:?} not restored", path.display());
            let got: Vec<Move> = run.moves().into_iter().map(|(_, m)| m).collect();
            let want: Vec<Move> = record.moves.iter().map(|m| m.mv).collect();
            assert_eq!(got, want, "{}: {kind:?} changed the record", path.display());
        }
        assert_eq!(played, 4, "{kind:?}: not enough games allow it");
    }
}

/// Finds the highest noise level at which every fixture game still records exactly with no
/// alert (run with `--ignored --nocapture`; the figure is in BENCHMARKS.md, "Referee").
#[test]
#[ignore]
fn noise_ladder() {
    let mut games = Vec::new();
    for size in [9u8, 13, 19] {
        let all = fixture_games(size);
        let take = if size == 19 { 4 } else { all.len() };
        games.extend(all.into_iter().take(take));
    }
    // `NOISE_LEVELS=0.02,0.03` runs only those levels.
    let levels: Vec<f64> = std::env::var("NOISE_LEVELS")
        .ok()
        .map(|v| v.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![0.002, 0.005, 0.01, 0.02, 0.03, 0.05, 0.08]);
    for noise in levels {
        let mut failed = 0;
        for (i, (path, record)) in games.iter().enumerate() {
            if let Some(why) = check_clean(record, 100 + i as u64, noise) {
                failed += 1;
                println!("  noise {noise}: {}: {why}", path.display());
            }
        }
        println!("noise {noise}: {failed} of {} games failed", games.len());
    }
}

/// Wall time of the pipeline alone per scan over a 19x19 game at human pace (run with
/// `--ignored --nocapture`; the release figure comes from `benches/referee.rs`).
#[test]
#[ignore]
fn time_per_scan_19x19() {
    use tengen_referee::Pipeline;
    let (_, record) = fixture_games(19).into_iter().next().expect("19x19 game");
    let mut options = tengen_sim::SimOptions::seeded(1);
    options.noise = 0.001;
    let mut sim =
        tengen_sim::Simulation::from_sgf(&record, &options, &tengen_sim::GameOptions::default())
            .expect("sim");
    let mut scans = Vec::new();
    while let Some(s) = sim.next_scan() {
        scans.push(s);
    }
    let (mut p, _) =
        Pipeline::new(common::settings(&record, byoyomi()), None, 0).expect("pipeline");
    let start = std::time::Instant::now();
    let mut n = 0;
    for (frame, buttons) in &scans {
        n += p.step(frame, buttons).expect("step").len();
    }
    let el = start.elapsed();
    println!(
        "{} scans, {} events, {:.2} us per scan",
        scans.len(),
        n,
        el.as_secs_f64() * 1e6 / scans.len() as f64
    );
    assert!(n > 0);
}
