//! Rules-core speed: random legal playouts on 19x19 with situational superko checking
//! (time per legal move played, including every rejected try), and a full-board area
//! count; the naive flood-fill reference of `tests/common/naive.rs` in the same run.
//!
//! Run: `cargo bench -p tengen-rules --bench rules`. Divide the reported time by the
//! element count (or read the throughput) for ns per move. Each benchmark runs twice: in
//! wall-clock time (`wall/...`) and in this thread's CPU time (`cpu/...`), which is what
//! counts on a shared, loaded machine where wall time includes waiting for a core.

use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tengen_rules::{score, Board, Color, Game, Move, Point, ScoreRules, Superko};

#[allow(dead_code)]
#[path = "../tests/common/naive.rs"]
mod naive;

use naive::Naive;

/// SplitMix64, for reproducible playouts.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

const SIZE: u8 = 19;
const MAX_MOVES: usize = 3 * 361;

/// The playout policy both engines share: a uniformly random legal point that is not a
/// single-point eye of the mover (all on-board neighbours its own stones); pass if none.
trait Engine {
    fn to_move(&self) -> Color;
    fn stone(&self, p: Point) -> Option<Color>;
    /// Plays `mv`; `Some(captured)` if legal.
    fn try_play(&mut self, mv: Move) -> Option<Vec<Point>>;
}

impl Engine for Game {
    fn to_move(&self) -> Color {
        Game::to_move(self)
    }
    fn stone(&self, p: Point) -> Option<Color> {
        self.board().get(p)
    }
    fn try_play(&mut self, mv: Move) -> Option<Vec<Point>> {
        self.play(mv).ok().map(|p| p.captured)
    }
}

impl Engine for Naive {
    fn to_move(&self) -> Color {
        self.to_move
    }
    fn stone(&self, p: Point) -> Option<Color> {
        self.grid[p.index(self.size)]
    }
    fn try_play(&mut self, mv: Move) -> Option<Vec<Point>> {
        let c = self.to_move;
        self.play(c, mv.point()).ok()
    }
}

fn own_eye(e: &impl Engine, c: Color, p: Point) -> bool {
    let s = SIZE as i16;
    [(-1i16, 0i16), (1, 0), (0, -1), (0, 1)]
        .iter()
        .all(|(dc, dr)| {
            let (col, row) = (p.col as i16 + dc, p.row as i16 + dr);
            col < 0
                || row < 0
                || col >= s
                || row >= s
                || e.stone(Point::new(col as u8, row as u8)) == Some(c)
        })
}

/// Plays one random game to two passes (or the move cap); returns the moves played.
fn playout(e: &mut impl Engine, seed: u64) -> usize {
    let mut rng = Rng(seed);
    let mut empties: Vec<Point> = (0..SIZE)
        .flat_map(|c| (0..SIZE).map(move |r| Point::new(c, r)))
        .collect();
    let (mut moves, mut passes) = (0, 0);
    while moves < MAX_MOVES && passes < 2 {
        let color = e.to_move();
        let mut n = empties.len();
        let mut played = false;
        while n > 0 {
            let k = rng.below(n);
            let p = empties[k];
            if !own_eye(e, color, p) {
                if let Some(caps) = e.try_play(Move::Play(p)) {
                    empties.swap_remove(k);
                    empties.extend(caps);
                    played = true;
                    break;
                }
            }
            n -= 1;
            empties.swap(k, n);
        }
        if played {
            passes = 0;
        } else {
            e.try_play(Move::Pass);
            passes += 1;
        }
        moves += 1;
    }
    moves
}

const SEEDS: [u64; 4] = [1, 2, 3, 4];

/// This thread's CPU time in nanoseconds (`CLOCK_THREAD_CPUTIME_ID`).
fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec and the clock id is a constant Linux
    // supports; clock_gettime writes nothing else.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Criterion measurement in thread CPU nanoseconds.
struct ThreadCpu;

/// Formats CPU nanoseconds like criterion's wall time (ns, µs, ms, s).
struct NsFormatter;

impl ValueFormatter for NsFormatter {
    fn scale_values(&self, typical: f64, values: &mut [f64]) -> &'static str {
        let (div, unit) = match typical {
            t if t < 1e3 => (1.0, "ns"),
            t if t < 1e6 => (1e3, "µs"),
            t if t < 1e9 => (1e6, "ms"),
            _ => (1e9, "s"),
        };
        values.iter_mut().for_each(|v| *v /= div);
        unit
    }
    fn scale_throughputs(
        &self,
        typical: f64,
        throughput: &Throughput,
        values: &mut [f64],
    ) -> &'static str {
        let n = match throughput {
            Throughput::Elements(n) | Throughput::Bytes(n) | Throughput::BytesDecimal(n) => {
                *n as f64
            }
            _ => 1.0,
        };
        // Values are ns per iteration: report ns per element.
        let _ = typical;
        values.iter_mut().for_each(|v| *v /= n);
        "ns/elem"
    }
    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}

impl Measurement for ThreadCpu {
    type Intermediate = u64;
    type Value = u64;
    fn start(&self) -> u64 {
        thread_cpu_ns()
    }
    fn end(&self, i: u64) -> u64 {
        thread_cpu_ns() - i
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, v: &u64) -> f64 {
        *v as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &NsFormatter
    }
}

fn playouts<M: Measurement>(c: &mut Criterion<M>, label: &str) {
    let moves: usize = SEEDS
        .iter()
        .map(|&s| playout(&mut Game::new(SIZE, Superko::Situational).unwrap(), s))
        .sum();
    let naive_moves: usize = SEEDS
        .iter()
        .map(|&s| playout(&mut Naive::new(SIZE, Superko::Situational), s))
        .sum();
    // Same policy and seeds: both engines must have played the same games.
    assert_eq!(moves, naive_moves);
    let mut group = c.benchmark_group(format!("{label}/playout_19x19_situational"));
    group.throughput(Throughput::Elements(moves as u64));
    group.bench_function("tengen", |b| {
        b.iter(|| {
            for &s in &SEEDS {
                black_box(playout(
                    &mut Game::new(SIZE, Superko::Situational).unwrap(),
                    s,
                ));
            }
        })
    });
    group.sample_size(10);
    group.bench_function("naive", |b| {
        b.iter(|| {
            for &s in &SEEDS {
                black_box(playout(&mut Naive::new(SIZE, Superko::Situational), s));
            }
        })
    });
    group.finish();
}

fn counting<M: Measurement>(c: &mut Criterion<M>, label: &str) {
    // A finished random game: a full board with territories and dame.
    let mut game = Game::new(SIZE, Superko::Situational).unwrap();
    playout(&mut game, 7);
    let board: Board = game.board().clone();
    let rules = ScoreRules::default();
    let mut naive = Naive::new(SIZE, Superko::Situational);
    playout(&mut naive, 7);
    assert_eq!(naive.rows(), board.to_rows());
    let mut group = c.benchmark_group(format!("{label}/count_19x19"));
    group.bench_function("tengen", |b| {
        b.iter(|| score(black_box(&board), &[], &rules).unwrap())
    });
    group.bench_function("naive", |b| b.iter(|| black_box(&naive).area()));
    group.finish();
}

fn config<M: Measurement>(m: M) -> Criterion<M> {
    Criterion::default()
        .with_measurement(m)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .configure_from_args()
}

fn wall(c: &mut Criterion) {
    playouts(c, "wall");
    counting(c, "wall");
}

fn cpu(_: &mut Criterion) {
    let mut c = config(ThreadCpu);
    playouts(&mut c, "cpu");
    counting(&mut c, "cpu");
}

criterion_group! {
    name = benches;
    config = config(criterion::measurement::WallTime);
    targets = wall, cpu
}
criterion_main!(benches);
