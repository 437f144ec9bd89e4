//! What the clock at the table costs the scan loop: the schedule is polled once per turn
//! (100 times a second), so its poll is on the board's real path; a changed face is then
//! rendered to a 128x64 frame (at most 10 times a second per display) and, for `/clock` and
//! the live page, encoded as a PNG per viewer.
//!
//! The game is a byo-yomi countdown: main time used up, White thinking through 60 s
//! periods, the state in which the faces change most (every second, and every tenth of a
//! second in each period's last 10 s) and a call falls every few seconds.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use tengen_protocol::event::GameSetup;
use tengen_protocol::{Event, GameView, Timestamp};
use tengen_rules::clock::TimeControl;
use tengen_rules::Color;
use tengen_table::{render, Face, Schedule};

/// A game whose clock is counting down in byo-yomi from `start` ms.
fn countdown(start: u64) -> (GameView, Schedule) {
    let setup = GameSetup {
        time_control: TimeControl::Byoyomi {
            main_ms: 0,
            periods: 1_000,
            period_ms: 60_000,
        },
        ..GameSetup::default()
    };
    let event = Event::GameStarted(setup);
    let at = Timestamp::from_millis(start);
    let mut view = GameView::new();
    if let Err(e) = view.apply(&event, at) {
        panic!("the game starts: {e}");
    }
    let mut schedule = Schedule::new();
    schedule.on_event(&event, at);
    (view, schedule)
}

fn bench(c: &mut Criterion) {
    // One whole 60 s period polled every 10 ms, as the scan loop polls it: 6,000 polls.
    c.bench_function(
        "schedule: a 60 s byo-yomi period polled every 10 ms (6000 polls)",
        |b| {
            b.iter_batched(
                || countdown(0),
                |(view, mut schedule)| {
                    let mut redraws = 0usize;
                    for tick in 1..=6_000u64 {
                        let due = schedule.poll(&view, Timestamp::from_millis(tick * 10));
                        redraws += due.faces.len() + usize::from(due.sound.is_some());
                    }
                    black_box(redraws)
                },
                criterion::BatchSize::SmallInput,
            );
        },
    );
    let (view, _) = countdown(0);
    let face = Face::of(&view, Color::Black, Timestamp::from_millis(51_300));
    c.bench_function("face: Face::of for one player", |b| {
        b.iter(|| {
            Face::of(
                black_box(&view),
                Color::Black,
                Timestamp::from_millis(51_300),
            )
        });
    });
    c.bench_function("render: one face to a 128x64 frame", |b| {
        b.iter(|| render(black_box(&face)));
    });
    let frame = render(&face);
    // The pages load scale 1 and let the browser enlarge it (CSS `pixelated`); scale 8 is
    // the 1024x512 picture a client may ask for.
    for scale in [1, 8] {
        c.bench_function(&format!("png: one frame at scale {scale}"), |b| {
            b.iter(|| black_box(&frame).to_png(scale));
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
