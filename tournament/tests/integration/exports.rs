//! The round's results as the AGA's results format and as CSV; the CSV read back by
//! python3's `csv` module.

use crate::support;

use support::{data, have_python, python, sample};
use tengen_tournament::{aga_results, csv_results, GameResult, Tournament};

#[test]
fn aga_results_of_a_round() {
    let t = Tournament::read(data("juvisy.xml")).expect("read");
    let aga = aga_results(&t, 4);
    let lines: Vec<&str> = aga.lines().collect();
    assert_eq!(
        lines[..5],
        [
            "TOURNEY Tournoi de Juvisy (round 4), Juvisy, 2019-10-26 to 2019-10-28",
            "        start=10/26/2019",
            "        finish=10/28/2019",
            "        rules=Chinese",
            "PLAYERS",
        ]
    );
    let games_at = lines.iter().position(|l| *l == "GAMES").expect("GAMES");
    let players = &lines[5..games_at];
    let games = &lines[games_at + 1..];
    let round = t.round(4);
    assert_eq!(games.len(), round.len());
    assert_eq!(players.len(), 2 * round.len());
    // No AGA ids in this file: temporary ids from 99999 down, in file order.
    assert!(
        players.contains(&"99999 Rebelo, Manuela 18k"),
        "{players:?}"
    );
    assert!(players.contains(&"99993 Nemo, André 2k"), "{players:?}");
    let ids: Vec<u32> = players
        .iter()
        .map(|l| l.split(' ').next().expect("id").parse().expect("number"))
        .collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "sorted by id");
    // Round 4 table 9: Rebelo (99999, black, 9 stones) lost to Ravera (white).
    let ravera = players
        .iter()
        .find(|l| l.contains("Ravera, Sylvain"))
        .and_then(|l| l.split(' ').next())
        .expect("Ravera");
    assert!(
        games.contains(&format!("{ravera} 99999 w 9 0").as_str()),
        "{games:?}"
    );
    for (line, p) in games.iter().zip(&round) {
        let fields: Vec<&str> = line.split(' ').collect();
        assert_eq!(fields.len(), 5);
        let result = match p.result {
            GameResult::WhiteWins => "w",
            GameResult::BlackWins => "b",
            _ => "?",
        };
        assert_eq!(fields[2], result);
        match p.handicap {
            0 => assert_eq!(fields[3..], ["0", "7"]),
            1 => assert_eq!(fields[3..], ["0", "0"]),
            h => assert_eq!(fields[3..], [h.to_string().as_str(), "0"]),
        }
    }
}

#[test]
fn aga_ids_from_the_file() {
    // Vannier Remi (the fourth player) gets a real AGA id; the others temporary ones,
    // from 99999 down in file order, skipping it.
    let text = sample("tournoi-chinois.xml").replacen(
        "agaId=\"\" club=\"35Re\"",
        "agaId=\"99998\" club=\"35Re\"",
        1,
    );
    let t = Tournament::parse(&text).expect("read");
    let aga = aga_results(&t, 1);
    assert!(aga.contains("\n99998 Vannier, Remi 2d\n"), "{aga}");
    assert!(aga.contains("\n99999 高, 传德 1d\n"), "{aga}");
    assert!(aga.contains("\n99997 屈, 盼盼 12k\n"), "{aga}");
    // Table 1: 马超 (the tenth player, 99990) black, Vannier Remi white, white won.
    assert!(aga.contains("GAMES\n99998 99990 w 0 7\n"), "{aga}");
}

#[test]
fn csv_results_read_back_by_python() {
    let t = Tournament::read(data("tournoi-chinois.xml")).expect("read");
    let csv = csv_results(&t, 1);
    assert!(csv.starts_with("round,table,black,black_rank,white,white_rank,handicap,result\n"));
    assert_eq!(
        csv.lines().nth(1),
        Some("1,1,马 超,1D,Vannier Remi,2D,0,W+")
    );

    // Names that need quoting.
    let quoted = sample("tournoi-chinois.xml")
        .replace(
            "firstName=\"Remi\"",
            "firstName=\"Remi, &quot;the&quot; 2nd\"",
        )
        .replace("\"VANNIERREMI\"", "\"VANNIERREMI,&quot;THE&quot;2ND\"");
    let t2 = Tournament::parse(&quoted).expect("read");
    let csv2 = csv_results(&t2, 1);
    assert_eq!(
        csv2.lines().nth(1),
        Some("1,1,马 超,1D,\"Vannier Remi, \"\"the\"\" 2nd\",2D,0,W+")
    );
    if !have_python() {
        return;
    }
    let rows = python(
        "import csv, sys, json\nfor row in csv.reader(sys.stdin): print(json.dumps(row, ensure_ascii=False))",
        &[],
        Some(&csv2),
    );
    let rows: Vec<Vec<String>> = rows
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    let round = t2.round(1);
    assert_eq!(rows.len(), 1 + round.len());
    assert_eq!(
        rows[0],
        [
            "round",
            "table",
            "black",
            "black_rank",
            "white",
            "white_rank",
            "handicap",
            "result"
        ]
    );
    for (row, p) in rows[1..].iter().zip(&round) {
        assert_eq!(
            *row,
            [
                p.round.to_string(),
                p.table.to_string(),
                p.black.display_name(),
                p.black.rank.clone(),
                p.white.display_name(),
                p.white.rank.clone(),
                p.handicap.to_string(),
                p.result.label().to_string(),
            ]
        );
    }
    assert_eq!(rows[1][4], "Vannier Remi, \"the\" 2nd");
}
