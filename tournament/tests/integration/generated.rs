//! A generated tournament of 500 players at 250 tables over 5 rounds: it reads, every
//! round pairs all 500 players once, and results written back to a round read back.

use crate::support;

use std::collections::HashSet;

use support::generate;
use tengen_tournament::{aga_results, csv_results, BoardPattern, GameResult, Tournament};

#[test]
fn five_hundred_players_at_250_tables() {
    let xml = generate::tournament(500, 250, 5);
    let t = Tournament::parse(&xml).expect("generated");
    assert_eq!(t.players().len(), 500);
    assert_eq!(t.games().count(), 1250);
    assert_eq!(t.rounds(), vec![1, 2, 3, 4, 5]);
    assert_eq!(t.name(), "Generated Open 500");
    assert_eq!(t.location(), "Hall & Annex");
    assert_eq!(t.time_system().script(), "canadian 90m 15/5m");
    let (name, first) = generate::player_name_plain(3);
    assert_eq!((name.as_str(), first.as_str()), ("O'Neil 3", "Luc"));
    assert!(t.player("O'NEIL3LUC").is_some());
    assert!(t.player("SMITH&CO6LUC").is_some());

    let boards = BoardPattern::parse("hall1-{table:03}").expect("pattern");
    for round in 1..=5 {
        let pairings = t.round(round);
        assert_eq!(pairings.len(), 250);
        let tables: Vec<u32> = pairings.iter().map(|p| p.table).collect();
        assert_eq!(tables, (1..=250).collect::<Vec<u32>>());
        let mut seen = HashSet::new();
        for p in &pairings {
            assert!(seen.insert(&p.black.key));
            assert!(seen.insert(&p.white.key));
            assert_eq!(p.game, format!("r{round}-t{}", p.table));
        }
        assert_eq!(seen.len(), 500);
        assert!(t.byes(round).is_empty());
        let ids: HashSet<String> = pairings.iter().map(|p| boards.board(p.table)).collect();
        assert_eq!(ids.len(), 250);
        assert!(ids.contains("hall1-007") && ids.contains("hall1-250"));
        assert_eq!(csv_results(&t, round).lines().count(), 251);
        assert!(aga_results(&t, round).lines().count() > 500 + 250);
    }

    let results: Vec<(u32, GameResult)> = (1..=250)
        .map(|table| {
            (
                table,
                if table % 2 == 0 {
                    GameResult::BlackWins
                } else {
                    GameResult::WhiteWins
                },
            )
        })
        .collect();
    let written = Tournament::with_results(&xml, 3, &results).expect("write back");
    let again = Tournament::parse(&written).expect("re-read");
    for (p, (table, result)) in again.round(3).iter().zip(&results) {
        assert_eq!((p.table, p.result), (*table, *result));
    }
    for round in [1, 2, 4, 5] {
        assert_eq!(again.round(round), t.round(round));
    }
}
