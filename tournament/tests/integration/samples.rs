//! The three real OpenGotha files, read and checked field by field against an independent
//! reader (python3's `xml.etree.ElementTree`, `support::READER`), the player keys of
//! accented and Chinese names, the time systems through tengen's own time-control
//! parser, and the players and games of OpenGotha's own EGD exports (`.h9`).

use crate::support;

use std::collections::HashMap;

use serde_json::Value;
use support::{data, have_python, of_kind, read_with_python, sample, SAMPLES};
use tengen_rules::clock::TimeControl;
use tengen_tournament::{player_key, GameResult, TimeSystem, Tournament};

#[test]
fn every_sample_reads() {
    let juvisy = Tournament::read(data("juvisy.xml")).expect("juvisy");
    assert_eq!(juvisy.name(), "Tournoi de Juvisy");
    assert_eq!(juvisy.short_name(), "Tournoi de Juvisy");
    assert_eq!(juvisy.location(), "Juvisy");
    assert_eq!(juvisy.director(), "Brice CHARTIER");
    assert_eq!(juvisy.begin_date(), "2019-10-26");
    assert_eq!(juvisy.end_date(), "2019-10-28");
    assert_eq!(juvisy.players().len(), 19);
    assert_eq!(juvisy.games().count(), 36);
    assert_eq!(juvisy.number_of_rounds(), 4);
    assert_eq!(juvisy.rounds(), vec![1, 2, 3, 4]);
    assert_eq!(juvisy.komi(), 7.5);
    assert_eq!(juvisy.size(), 19);
    assert_eq!(
        juvisy.time_system(),
        TimeSystem::StandardByoyomi {
            basic_minutes: 60,
            period_seconds: 30
        }
    );
    assert_eq!(juvisy.time_system().script(), "byoyomi 60m 1x30s");

    let chinese = Tournament::read(data("tournoi-chinois.xml")).expect("tournoi-chinois");
    assert_eq!(chinese.name(), "Tournoi chinois");
    assert_eq!(chinese.short_name(), "TournoiChinois");
    assert_eq!(chinese.players().len(), 24);
    assert_eq!(chinese.games().count(), 12);
    assert_eq!(chinese.number_of_rounds(), 5);
    assert_eq!(chinese.time_system().script(), "byoyomi 60m 1x30s");

    let cdfo = Tournament::read(data("cdfo2020.xml")).expect("cdfo2020");
    assert_eq!(cdfo.name(), "Championnat de France Open 2020");
    assert_eq!(cdfo.short_name(), "CdFO2020");
    assert_eq!(cdfo.location(), "OGS");
    assert_eq!(cdfo.players().len(), 23);
    assert_eq!(cdfo.games().count(), 77);
    assert_eq!(cdfo.number_of_rounds(), 7);
    assert_eq!(
        cdfo.time_system(),
        TimeSystem::CanadianByoyomi {
            basic_minutes: 80,
            moves: 15,
            period_seconds: 300
        }
    );
    assert_eq!(cdfo.time_system().script(), "canadian 80m 15/5m");
}

#[test]
fn a_round_reads_as_the_file_says() {
    let t = Tournament::read(data("tournoi-chinois.xml")).expect("read");
    let round = t.round(1);
    assert_eq!(round.len(), 12);
    let first = &round[0];
    assert_eq!((first.round, first.table), (1, 1));
    assert_eq!(first.game, "r1-t1");
    assert_eq!(first.black.key, "马超");
    assert_eq!(first.black.display_name(), "马 超");
    assert_eq!(first.white.display_name(), "Vannier Remi");
    assert_eq!(first.white.rank, "2D");
    assert_eq!(first.white.egf_pin, "10598830");
    assert_eq!(first.white.club, "35Re");
    assert_eq!(first.white.country, "FR");
    assert_eq!(first.result, GameResult::WhiteWins);
    assert_eq!(round[2].result, GameResult::Unknown);
    assert_eq!(round[3].result, GameResult::BothWin);
    assert!(round.windows(2).all(|w| w[0].table < w[1].table));
    assert!(t.round(2).is_empty());
    assert!(t.round(0).is_empty());
    assert!(t.byes(1).is_empty());
}

#[test]
fn player_keys_of_accented_and_chinese_names() {
    assert_eq!(player_key("Nemo", "André"), "NEMOANDRÉ");
    assert_eq!(player_key("高", "传德"), "高传德");
    assert_eq!(player_key("Delli-Zotti", "Mathieu"), "DELLI-ZOTTIMATHIEU");
    assert_eq!(player_key("Tu", "Linh_Vu"), "TULINH_VU");
    assert_eq!(player_key("Van der Berg", "Jan Piet"), "VANDERBERGJANPIET");
    // Rust's and Java's full upper-casing: one letter may become two.
    assert_eq!(player_key("Weiß", "Jörg"), "WEISSJÖRG");

    let juvisy = Tournament::read(data("juvisy.xml")).expect("read");
    let nemo = juvisy.player("NEMOANDRÉ").expect("Nemo André");
    assert_eq!(nemo.display_name(), "Nemo André");
    assert_eq!(nemo.rank, "2K");
    assert!(juvisy.player("BURQFRANÇOIS").is_some());
    assert!(juvisy.player("MOSCARDOLÉO").is_some());
    let chinese = Tournament::read(data("tournoi-chinois.xml")).expect("read");
    let gao = chinese.player("高传德").expect("高 传德");
    assert_eq!((gao.name.as_str(), gao.first_name.as_str()), ("高", "传德"));
    assert_eq!(gao.rank, "1D");
    let cdfo = Tournament::read(data("cdfo2020.xml")).expect("read");
    assert!(cdfo.player("DRÉAN-GUÉNAÏZIABENJAMIN").is_some());
    assert!(cdfo.player("DONZETFRÉDÉRIC").is_some());
}

#[test]
fn time_systems_are_scripts_tengen_reads() {
    let systems = [
        (
            TimeSystem::SuddenDeath { basic_minutes: 45 },
            "absolute 45m",
        ),
        (TimeSystem::SuddenDeath { basic_minutes: 1 }, "absolute 60s"),
        (TimeSystem::SuddenDeath { basic_minutes: 0 }, "absolute 0s"),
        (
            TimeSystem::StandardByoyomi {
                basic_minutes: 60,
                period_seconds: 30,
            },
            "byoyomi 60m 1x30s",
        ),
        (
            TimeSystem::StandardByoyomi {
                basic_minutes: 90,
                period_seconds: 60,
            },
            "byoyomi 90m 1x60s",
        ),
        (
            TimeSystem::CanadianByoyomi {
                basic_minutes: 80,
                moves: 15,
                period_seconds: 300,
            },
            "canadian 80m 15/5m",
        ),
        (
            TimeSystem::CanadianByoyomi {
                basic_minutes: 30,
                moves: 20,
                period_seconds: 450,
            },
            "canadian 30m 20/450s",
        ),
        (
            TimeSystem::Fischer {
                basic_minutes: 60,
                increment_seconds: 10,
            },
            "fischer 60m +10s",
        ),
        (
            TimeSystem::Fischer {
                basic_minutes: 3,
                increment_seconds: 0,
            },
            "fischer 3m +0s",
        ),
    ];
    for (system, script) in systems {
        assert_eq!(system.script(), script);
        // tengen's own reader of the script syntax takes it, and writes it back the same.
        let control = TimeControl::parse(script).expect(script);
        assert_eq!(control.to_string(), script);
        assert_eq!(
            control.main_ms(),
            u64::from(system.basic_minutes()) * 60_000
        );
    }
}

fn s(v: &Value) -> &str {
    v.as_str().expect("a JSON string")
}

fn n(v: &Value) -> u64 {
    v.as_u64().expect("a JSON number")
}

/// Every field of every round of `file` against python's reading of it.
fn compare_with_python(path: &std::path::Path, t: &Tournament) {
    let objects = read_with_python(path);
    let general = of_kind(&objects, "general")[0];
    assert_eq!(t.name(), s(&general["name"]));
    assert_eq!(t.short_name(), s(&general["short_name"]));
    assert_eq!(t.location(), s(&general["location"]));
    assert_eq!(t.begin_date(), s(&general["begin"]));
    assert_eq!(t.end_date(), s(&general["end"]));
    assert_eq!(t.komi(), general["komi"].as_f64().expect("komi"));
    assert_eq!(u64::from(t.size()), n(&general["size"]));
    assert_eq!(u64::from(t.number_of_rounds()), n(&general["rounds"]));
    assert_eq!(t.time_system().script(), s(&general["time"]));

    let players = of_kind(&objects, "player");
    assert_eq!(t.players().len(), players.len());
    for (mine, theirs) in t.players().iter().zip(&players) {
        assert_eq!(mine.key, s(&theirs["key"]));
        assert_eq!(mine.name, s(&theirs["name"]));
        assert_eq!(mine.first_name, s(&theirs["first_name"]));
        assert_eq!(mine.rank, s(&theirs["rank"]));
        assert_eq!(mine.club, s(&theirs["club"]));
        assert_eq!(mine.country, s(&theirs["country"]));
        assert_eq!(mine.egf_pin, s(&theirs["egf_pin"]));
        assert_eq!(mine.display_name(), s(&theirs["display"]));
    }

    let games = of_kind(&objects, "game");
    let mut by_round: HashMap<u64, Vec<&Value>> = HashMap::new();
    for g in &games {
        by_round.entry(n(&g["round"])).or_default().push(g);
    }
    let last = by_round
        .keys()
        .copied()
        .max()
        .unwrap_or(0)
        .max(u64::from(t.number_of_rounds()));
    let mut compared = 0;
    for round in 0..=last + 1 {
        let mut theirs = by_round.remove(&round).unwrap_or_default();
        theirs.sort_by_key(|g| n(&g["table"]));
        let mine = t.round(u32::try_from(round).expect("round"));
        assert_eq!(mine.len(), theirs.len(), "round {round}");
        for (p, g) in mine.iter().zip(&theirs) {
            let at = format!("{} round {round} table {}", path.display(), p.table);
            assert_eq!(u64::from(p.round), round, "{at}");
            assert_eq!(u64::from(p.table), n(&g["table"]), "{at}");
            assert_eq!(p.game, format!("r{round}-t{}", p.table), "{at}");
            assert_eq!(p.black.key, s(&g["black"]), "{at}");
            assert_eq!(p.white.key, s(&g["white"]), "{at}");
            assert_eq!(p.black.display_name(), s(&g["black_name"]), "{at}");
            assert_eq!(p.white.display_name(), s(&g["white_name"]), "{at}");
            assert_eq!(p.black.rank, s(&g["black_rank"]), "{at}");
            assert_eq!(p.white.rank, s(&g["white_rank"]), "{at}");
            assert_eq!(u64::from(p.handicap), n(&g["handicap"]), "{at}");
            assert_eq!(Value::Bool(p.known_color), g["known_color"], "{at}");
            assert_eq!(p.result.as_opengotha(), s(&g["result"]), "{at}");
            compared += 1;
        }
    }
    assert_eq!(compared, games.len());

    for bye in of_kind(&objects, "bye") {
        let round = u32::try_from(n(&bye["round"])).expect("round");
        assert!(t.byes(round).iter().any(|p| p.key == s(&bye["player"])));
    }
    let byes: usize = (0..=u32::try_from(last).expect("round") + 1)
        .map(|r| t.byes(r).len())
        .sum();
    assert_eq!(byes, of_kind(&objects, "bye").len());
}

#[test]
fn every_round_of_every_sample_matches_python() {
    if !have_python() {
        return;
    }
    for name in SAMPLES {
        let t = Tournament::parse(&sample(name)).expect(name);
        compare_with_python(&data(name), &t);
    }
}

#[test]
fn the_generated_tournament_matches_python() {
    if !have_python() {
        return;
    }
    // 101 players at 50 tables: one bye a round, every name form, every result.
    let xml = support::generate::tournament(101, 50, 3);
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("generated.xml");
    std::fs::write(&path, &xml).expect("write");
    let t = Tournament::parse(&xml).expect("generated");
    assert_eq!(t.byes(1).len(), 1);
    compare_with_python(&path, &t);
}

/// An `.h9` file (ISO-8859-1) as characters.
fn latin1(name: &str) -> String {
    std::fs::read(data(name))
        .expect("read h9")
        .into_iter()
        .map(char::from)
        .collect()
}

/// The player lines of an `.h9` export: (name, rank, per-round cells), in placement order
/// (a tie leaves the number blank; the games refer to players by line order).
fn h9_players(text: &str) -> Vec<(String, String, Vec<String>)> {
    text.lines()
        .filter(|l| !l.starts_with(';') && l.len() > 40)
        .map(|l| {
            // `Pl Name Rk Co Club MMS SOS SOSOS 0` then one cell per round; the rank
            // (`3D`, `18K`) may eat into the name's column, so find it by its form.
            let after_number: String = l.chars().skip(5).collect();
            let fields: Vec<&str> = after_number.split_whitespace().collect();
            let is_rank = |f: &&str| {
                f.strip_suffix(['K', 'D', 'P'])
                    .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
            };
            let at = 1 + fields[1..].iter().position(is_rank).expect("a rank");
            let cells = fields[at + 7..].iter().map(|c| c.to_string()).collect();
            (fields[..at].join(" "), fields[at].to_string(), cells)
        })
        .collect()
}

#[test]
fn the_egd_exports_list_the_same_players() {
    for (xml, h9) in [
        ("juvisy.xml", "juvisy.h9"),
        ("tournoi-chinois.xml", "tournoi-chinois.h9"),
    ] {
        let t = Tournament::read(data(xml)).expect(xml);
        let players = h9_players(&latin1(h9));
        assert_eq!(players.len(), t.players().len(), "{h9}");
        let mut checked = 0;
        for (name, rank, _) in &players {
            // The export wrote what ISO-8859-1 cannot hold as '?'.
            if name.contains('?') {
                continue;
            }
            let player = t
                .players()
                .iter()
                .find(|p| p.display_name() == *name)
                .unwrap_or_else(|| panic!("{h9}: {name} is not in {xml}"));
            assert_eq!(&player.rank, rank, "{h9}: {name}");
            checked += 1;
        }
        assert!(checked >= 2, "{h9}: only {checked} names checked");
    }
}

#[test]
fn the_egd_export_of_juvisy_has_the_same_games() {
    // Every name of juvisy is ISO-8859-1, so every game of the export can be checked:
    // a cell `2+/w0` is a win with white against the player on line 2, handicap 0.
    let t = Tournament::read(data("juvisy.xml")).expect("read");
    let players = h9_players(&latin1("juvisy.h9"));
    let key_of = |line: usize| {
        let name = &players[line - 1].0;
        t.players()
            .iter()
            .find(|p| p.display_name() == *name)
            .map(|p| p.key.clone())
            .expect("player")
    };
    let mut games = 0;
    for (line, (_, _, cells)) in players.iter().enumerate() {
        let me = key_of(line + 1);
        for (r, cell) in cells.iter().enumerate() {
            let round = u32::try_from(r + 1).expect("round");
            let digits: String = cell.chars().take_while(char::is_ascii_digit).collect();
            let opponent: usize = digits.parse().expect("opponent");
            if opponent == 0 {
                assert!(t
                    .round(round)
                    .iter()
                    .all(|p| p.black.key != me && p.white.key != me));
                continue;
            }
            let outcome = cell[digits.len()..].chars().next().expect("outcome");
            let (colour, handicap) = cell
                .split_once('/')
                .map(|(_, c)| c.split_at(1))
                .expect("colour");
            let them = key_of(opponent);
            let pairing = t
                .round(round)
                .into_iter()
                .find(|p| p.black.key == me || p.white.key == me)
                .expect("my game");
            let (mine, theirs) = if colour == "w" {
                (&pairing.white.key, &pairing.black.key)
            } else {
                (&pairing.black.key, &pairing.white.key)
            };
            assert_eq!((mine, theirs), (&me, &them), "round {round}: {cell}");
            assert_eq!(
                pairing.handicap.to_string(),
                handicap,
                "round {round}: {cell}"
            );
            let won = match (colour, pairing.result) {
                ("w", GameResult::WhiteWins) | ("b", GameResult::BlackWins) => '+',
                ("w", GameResult::BlackWins) | ("b", GameResult::WhiteWins) => '-',
                _ => '?',
            };
            assert_eq!(won, outcome, "round {round}: {cell}");
            games += 1;
        }
    }
    // Each game seen from both sides.
    assert_eq!(games, 2 * t.games().count());
}
