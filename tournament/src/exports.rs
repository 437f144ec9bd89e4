//! A round's results in other formats: the AGA's rating submission and CSV.

use std::collections::HashSet;
use std::fmt::Write as _;

use crate::games::GameResult;
use crate::model::Tournament;

/// Round `round`'s games in the AGA's results format, for rating.
///
/// The format is the one the AGA documents for submitting rated games ("Qualifications
/// for Rated Games", usgo.org/ratings, a minimal example there):
///
/// ```text
/// TOURNEY Princeton Go Club Rated Games, Princeton, NJ, June 15-30, 2004
///         start=6/15/2004
///         finish=6/30/2004
///         rules=AGA
/// PLAYERS
///  489 Matthews, Paul 4k
/// 3199 Mott, Rick     4k
/// GAMES
/// 489 3199 b 0 7
/// ```
///
/// and here: the `TOURNEY` line is the tournament's name with the round, its location and
/// dates; `start`/`finish` are `beginDate`/`endDate` as `M/D/YYYY`; `rules=Chinese` (the
/// rules the tengen board keeps). `PLAYERS` lists the round's players by id (`id Name,
/// FirstName rank`, the rank lower-cased); `GAMES` has one line per game by table,
/// `white_id black_id result handicap komi` with the result `w`, `b` or `?` (every other
/// result, by-default ones included, as OpenGotha's own AGA export writes them). The AGA
/// format has no comment or round lines, so none are written.
///
/// Ids: a player's `agaId` when it is a number; otherwise a temporary id, as the AGA
/// allows "a temporary number distinct from the normal range", counted down from 99999
/// (as OpenGotha does), skipping real ids, in file order over the whole tournament so a
/// player keeps it in every round. Handicap and komi as OpenGotha's export writes them:
/// an even game is `0` and the integer part of the komi (`7` for 7.5), a one-stone game
/// (no komi) `0 0`, a handicap game `N 0`.
pub fn aga_results(tournament: &Tournament, round: u32) -> String {
    let ids = aga_ids(tournament);
    let pairings = tournament.round(round);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "TOURNEY {} (round {round}), {}, {} to {}",
        one_line(tournament.name()),
        one_line(tournament.location()),
        tournament.begin_date(),
        tournament.end_date()
    );
    let _ = writeln!(out, "        start={}", us_date(tournament.begin_date()));
    let _ = writeln!(out, "        finish={}", us_date(tournament.end_date()));
    let _ = writeln!(out, "        rules=Chinese");
    out.push_str("PLAYERS\n");
    let mut listed: Vec<(u32, usize)> = Vec::new();
    let mut seen = HashSet::new();
    for p in &pairings {
        for player in [p.black, p.white] {
            if let Some(&i) = tournament.index.get(&player.key) {
                if seen.insert(i) {
                    listed.push((ids[i], i));
                }
            }
        }
    }
    listed.sort_unstable();
    for (id, i) in listed {
        let player = &tournament.players()[i];
        let _ = writeln!(
            out,
            "{id} {}, {} {}",
            one_line(&player.name),
            one_line(&player.first_name),
            player.rank.trim().to_lowercase()
        );
    }
    out.push_str("GAMES\n");
    let komi = tournament.komi().trunc();
    for p in &pairings {
        let id = |key: &str| tournament.index.get(key).map_or(0, |&i| ids[i]);
        let result = match p.result {
            GameResult::WhiteWins => "w",
            GameResult::BlackWins => "b",
            _ => "?",
        };
        let (handicap, komi) = match p.handicap {
            0 => (0, format!("{komi}")),
            1 => (0, "0".to_string()),
            h => (h, "0".to_string()),
        };
        let _ = writeln!(
            out,
            "{} {} {result} {handicap} {komi}",
            id(&p.white.key),
            id(&p.black.key)
        );
    }
    out
}

/// Every player's AGA id (index-aligned with `tournament.players()`).
fn aga_ids(tournament: &Tournament) -> Vec<u32> {
    let real = |s: &str| {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u32>().ok())
            .flatten()
            .filter(|&n| n > 0)
    };
    let taken: HashSet<u32> = tournament
        .players()
        .iter()
        .filter_map(|p| real(&p.aga_id))
        .collect();
    let mut next = 99_999u32;
    tournament
        .players()
        .iter()
        .map(|p| {
            real(&p.aga_id).unwrap_or_else(|| {
                while taken.contains(&next) {
                    next -= 1;
                }
                let id = next;
                next -= 1;
                id
            })
        })
        .collect()
}

/// `2019-10-26` as `10/26/2019`; anything else as written.
fn us_date(iso: &str) -> String {
    let mut parts = iso.splitn(3, '-');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(y), Some(m), Some(d)) => match (y.parse::<u32>(), m.parse::<u32>(), d.parse::<u32>())
        {
            (Ok(y), Ok(m), Ok(d)) => format!("{m}/{d}/{y}"),
            _ => iso.to_string(),
        },
        _ => iso.to_string(),
    }
}

/// A value on one line (a line break would start a new record).
fn one_line(s: &str) -> String {
    s.replace(['\r', '\n'], " ")
}

/// Round `round`'s games as CSV, one line per game by table, lines ending in `\n`:
/// `round,table,black,black_rank,white,white_rank,handicap,result` with the players'
/// display names and the result's [`GameResult::label`] (`B+`, `W+`, `?`...). A field
/// holding a comma, a double quote or a line break is quoted, its quotes doubled
/// (RFC 4180).
pub fn csv_results(tournament: &Tournament, round: u32) -> String {
    let mut out = String::from("round,table,black,black_rank,white,white_rank,handicap,result\n");
    for p in tournament.round(round) {
        let fields = [
            p.round.to_string(),
            p.table.to_string(),
            p.black.display_name(),
            p.black.rank.clone(),
            p.white.display_name(),
            p.white.rank.clone(),
            p.handicap.to_string(),
            p.result.label().to_string(),
        ];
        let line: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        out.push_str(&line.join(","));
        out.push('\n');
    }
    out
}

/// One CSV field, quoted when it must be.
fn csv_field(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}
