//! Reading a generated 500-player tournament (250 tables, 5 rounds) and pairing a round:
//! what `tengen pairings` and the hall do with a big tournament file.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tengen_tournament::Tournament;

#[path = "../tests/support/generate.rs"]
mod generate;

fn bench(c: &mut Criterion) {
    let xml = generate::tournament(500, 250, 5);
    let mut group = c.benchmark_group("tournament");
    group.throughput(Throughput::Bytes(xml.len() as u64));
    group.bench_function("parse_and_round_500_players", |b| {
        b.iter(|| {
            let t = Tournament::parse(std::hint::black_box(&xml)).expect("generated");
            let round = t.round(3);
            assert_eq!(round.len(), 250);
            round.len()
        })
    });
    group.finish();
    let mut group = c.benchmark_group("tournament");
    let t = Tournament::parse(&xml).expect("generated");
    group.bench_function("round_of_250_tables", |b| {
        b.iter(|| t.round(std::hint::black_box(3)).len())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
