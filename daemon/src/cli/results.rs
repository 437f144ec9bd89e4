//! `tengen results FILE.xml --round N (--zip ROUND.zip | --sgf DIR) --out OUT
//! [--format opengotha|aga|csv] [--boards PATTERN] [--tournament ID]` (docs/operating.md, "Commands"): a round's results written back from its game records, for a director whose
//! pairing laptop is not on the hall network.
//!
//! Each record (`*.sgf` in the zip the hall serves as `/round/{round}.zip`, or in the
//! folder) is matched to its game by `GN`, the game id `r{round}-t{table}`, and then
//! checked to be that game's record, or nothing is written (exit 2, naming the table):
//!
//! - `PB` and `PW` must be the pairing's players (`name firstName`, as `tengen pairings`
//!   prints them): a record on the wrong table would otherwise give one pair's result to
//!   another;
//! - `RO`, when there, must be the round, and `EV`, when there, the tournament file's name
//!   (the hall sets a game up with both);
//! - `TENGENBOARD`, the board the hall heard the game from, must be the table's board
//!   (`--boards`, as the hall's `[tournament] boards`), and `TENGENTOURNAMENT` the
//!   tournament id when `--tournament` is given. Every record of a hall's zip carries them;
//!   a record of a zip without `TENGENBOARD` is refused (a forged `r1-t3.sgf` with the
//!   pairing's names would otherwise be written). Records in a folder (`--sgf`, perhaps
//!   typed in by hand) are checked when they carry them.
//!
//! Two records for one table, or an unreadable file, is exit 2 too. The result is
//! `TENGENRESULT` when the record has it (the OpenGotha value an arbiter confirmed at the
//! hall), else `RE` ([`GameResult::from_game`]: `B+...`, `W+...`; a forfeit `B+F`/`W+F` is
//! a win by default only when no move was played: one after two warnings was played; `0`,
//! `Draw`, `Jigo` a draw); a record without one, `?` or `Void` leaves the game's result
//! unknown, and is listed. Records of other rounds, and files without `GN`, are listed and
//! left out; when no record at all is of the round (round 1's zip given with `--round 2`)
//! it is exit 2 and nothing is written.
//!
//! `opengotha` writes the tournament file with those games' `result` set and every other
//! byte as it was ([`Tournament::with_results`]); `aga` and `csv` write the round's results
//! in those formats. `OUT` is written atomically and an existing file is kept as
//! `OUT.bak` ([`tengen_tournament::write_atomically`]); `OUT` may not be the tournament
//! file itself.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use tengen_rules::sgf::GameRecord;
use tengen_tournament::{
    aga_results, csv_results, round_and_table, write_atomically, BoardPattern, GameResult,
    Tournament,
};

use super::args::ResultsArgs;
use super::pairings::load_round;
use super::{print_lines, CliError};

/// The largest record read (a long game with comments is ~50 KB).
const MAX_RECORD: u64 = 4 << 20;

/// What is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    OpenGotha,
    Aga,
    Csv,
}

impl Format {
    fn parse(s: &str) -> Result<Format, CliError> {
        match s {
            "opengotha" => Ok(Format::OpenGotha),
            "aga" => Ok(Format::Aga),
            "csv" => Ok(Format::Csv),
            other => Err(CliError::input(format!(
                "--format: \"{other}\" is not opengotha, aga or csv"
            ))),
        }
    }
}

/// A game record by the name it came under.
struct Record {
    name: String,
    record: GameRecord,
}

/// Where the records came from, and what the checks of whose a record is need.
struct Expected<'a> {
    /// The boards of the tables.
    boards: &'a BoardPattern,
    /// The tournament id, when given.
    tournament: Option<&'a str>,
    /// The records are a hall's zip: each must name its board.
    from_zip: bool,
}

/// Runs `tengen results`.
pub(super) fn run(args: ResultsArgs) -> Result<(), CliError> {
    let format = Format::parse(&args.format)?;
    if same_file(&args.file, &args.out) {
        return Err(CliError::input(format!(
            "--out: {} is the tournament file; write the results beside it",
            args.out.display()
        )));
    }
    let boards =
        BoardPattern::parse(&args.boards).map_err(|e| CliError::input(format!("--boards: {e}")))?;
    let original = std::fs::read_to_string(&args.file)
        .map_err(|e| CliError::input(format!("{}: {e}", args.file.display())))?;
    let t = load_round(&args.file, args.round)?;
    let (records, source) = match (&args.zip, &args.sgf) {
        (Some(zip), _) => (from_zip(zip)?, zip),
        (None, Some(dir)) => (from_dir(dir)?, dir),
        (None, None) => return Err(CliError::input("give --zip ROUND.zip or --sgf DIR")),
    };
    let expected = Expected {
        boards: &boards,
        tournament: args.tournament.as_deref(),
        from_zip: args.zip.is_some(),
    };
    let mut said = Vec::new();
    let found = match_records(&t, args.round, &records, &expected, &mut said)?;
    if found.is_empty() {
        return Err(CliError::input(format!(
            "{}: no record of round {} ({}); nothing written",
            source.display(),
            args.round,
            rounds_held(&records)
        )));
    }
    let mut results = Vec::new();
    for (table, (name, result)) in &found {
        match result {
            Some(r) => {
                said.push(format!("table {table}: {} ({name})", r.label()));
                results.push((*table, *r));
            }
            None => said.push(format!(
                "table {table}: result unknown in {name}, left as it was"
            )),
        }
    }
    for p in t.round(args.round) {
        if !found.contains_key(&p.table) {
            said.push(format!("table {}: no record, left as it was", p.table));
        }
    }
    let written = Tournament::with_results(&original, args.round, &results)
        .map_err(|e| CliError::input(format!("{}: {e}", args.file.display())))?;
    let text = match format {
        Format::OpenGotha => written,
        Format::Aga | Format::Csv => {
            let updated = Tournament::parse(&written)
                .map_err(|e| CliError::work(format!("the results written back: {e}")))?;
            if format == Format::Aga {
                aga_results(&updated, args.round)
            } else {
                csv_results(&updated, args.round)
            }
        }
    };
    let kept = write_atomically(&args.out, &text)
        .map_err(|e| CliError::work(format!("{}: {e}", args.out.display())))?;
    said.push(format!(
        "{} results of round {} written to {}{}",
        results.len(),
        args.round,
        args.out.display(),
        kept.map(|k| format!(" (the file before kept as {})", k.display()))
            .unwrap_or_default()
    ));
    print_lines(&said)
}

/// What the records hold, for the error when none is of the round: `its records are of
/// round 1`, or `it holds no record with a game id`.
fn rounds_held(records: &[Record]) -> String {
    let mut rounds: Vec<u32> = records
        .iter()
        .filter_map(|r| root_value(&r.record, "GN"))
        .filter_map(|gn| round_and_table(gn).map(|(round, _)| round))
        .collect();
    rounds.sort_unstable();
    rounds.dedup();
    let listed: Vec<String> = rounds.iter().map(u32::to_string).collect();
    match listed.as_slice() {
        [] if records.is_empty() => "it holds no record".to_string(),
        [] => "it holds no record with a game id (GN)".to_string(),
        [one] => format!("its records are of round {one}"),
        many => format!("its records are of rounds {}", many.join(", ")),
    }
}

/// Each table's record and its result (`None`: unreadable), checked to be that table's
/// game (see the module documentation).
fn match_records(
    t: &Tournament,
    round: u32,
    records: &[Record],
    expected: &Expected<'_>,
    said: &mut Vec<String>,
) -> Result<BTreeMap<u32, (String, Option<GameResult>)>, CliError> {
    let pairings = t.round(round);
    let mut found: BTreeMap<u32, (String, Option<GameResult>)> = BTreeMap::new();
    for r in records {
        let Some(gn) = root_value(&r.record, "GN") else {
            said.push(format!("{}: no GN (game id), left out", r.name));
            continue;
        };
        let Some(p) = pairings.iter().find(|p| p.game == gn) else {
            said.push(format!(
                "{}: game {gn} is not a game of round {round}, left out",
                r.name
            ));
            continue;
        };
        let refuse = |why: String| {
            CliError::input(format!(
                "table {}: {} {why}; nothing written",
                p.table, r.name
            ))
        };
        for (side, want, got) in [
            ("PB", p.black.display_name(), &r.record.black_name),
            ("PW", p.white.display_name(), &r.record.white_name),
        ] {
            if got.as_deref() != Some(want.as_str()) {
                return Err(refuse(format!(
                    "has {side}[{}] but the pairing has \"{want}\"",
                    got.as_deref().unwrap_or("")
                )));
            }
        }
        if let Some(ro) = root_value(&r.record, "RO").filter(|ro| *ro != round.to_string()) {
            return Err(refuse(format!(
                "has RO[{ro}] but GN[{gn}] is of round {round}"
            )));
        }
        if let Some(ev) = root_value(&r.record, "EV").filter(|ev| *ev != t.name()) {
            return Err(refuse(format!(
                "has EV[{ev}] but the tournament file is \"{}\"",
                t.name()
            )));
        }
        let board = expected.boards.board(p.table);
        match root_value(&r.record, "TENGENBOARD") {
            Some(b) if b != board => {
                return Err(refuse(format!(
                    "is the record of board {b} (TENGENBOARD), not of table {}'s board {board} \
                     (--boards {})",
                    p.table, expected.boards
                )))
            }
            None if expected.from_zip => {
                return Err(refuse(
                    "names no board (TENGENBOARD): not a record of a hall's round zip".to_string(),
                ))
            }
            _ => {}
        }
        if let Some(id) = expected.tournament {
            let named = root_value(&r.record, "TENGENTOURNAMENT");
            if named != Some(id) {
                return Err(refuse(format!(
                    "is of tournament \"{}\" (TENGENTOURNAMENT), not \"{id}\" (--tournament)",
                    named.unwrap_or("")
                )));
            }
        }
        let confirmed = root_value(&r.record, "TENGENRESULT").map(|v| {
            GameResult::from_opengotha(v)
                .ok_or_else(|| refuse(format!("has TENGENRESULT[{v}], not an OpenGotha result")))
        });
        let result = match confirmed {
            Some(confirmed) => Some(confirmed?),
            None => r.record.result.as_deref().and_then(|re| {
                let absent = root_value(&r.record, "TENGENREASON") == Some("absent");
                GameResult::from_ending(re, !r.record.moves.is_empty(), absent)
            }),
        };
        if let Some((other, _)) = found.insert(p.table, (r.name.clone(), result)) {
            return Err(CliError::input(format!(
                "table {}: two records, {other} and {}; nothing written",
                p.table, r.name
            )));
        }
    }
    Ok(found)
}

/// A root property kept in `extra_root` (first value).
fn root_value<'a>(rec: &'a GameRecord, ident: &str) -> Option<&'a str> {
    rec.extra_root
        .iter()
        .find(|(i, _)| i == ident)
        .map(|(_, v)| v.trim())
        .filter(|v| !v.is_empty())
}

fn parse_record(name: String, bytes: &[u8]) -> Result<Record, CliError> {
    let record = tengen_rules::sgf::parse_bytes(bytes)
        .map_err(|e| CliError::input(format!("{name}: {e}")))?;
    Ok(Record { name, record })
}

/// The `.sgf` files of a zip, in the zip's order.
fn from_zip(path: &Path) -> Result<Vec<Record>, CliError> {
    let bad = |e: &dyn std::fmt::Display| CliError::input(format!("{}: {e}", path.display()));
    let file = std::fs::File::open(path).map_err(|e| bad(&e))?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| bad(&e))?;
    let mut records = Vec::new();
    for i in 0..zip.len() {
        let entry = zip.by_index(i).map_err(|e| bad(&e))?;
        let name = format!("{}:{}", path.display(), entry.name());
        if !entry.is_file() || !entry.name().to_ascii_lowercase().ends_with(".sgf") {
            continue;
        }
        let mut bytes = Vec::new();
        entry
            .take(MAX_RECORD + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| CliError::input(format!("{name}: {e}")))?;
        if bytes.len() as u64 > MAX_RECORD {
            return Err(CliError::input(format!("{name}: larger than 4 MiB")));
        }
        records.push(parse_record(name, &bytes)?);
    }
    Ok(records)
}

/// The `.sgf` files of a folder, by name.
fn from_dir(dir: &Path) -> Result<Vec<Record>, CliError> {
    let bad = |e: std::io::Error| CliError::input(format!("{}: {e}", dir.display()));
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(bad)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x.eq_ignore_ascii_case("sgf")))
        .collect();
    paths.sort();
    let mut records = Vec::new();
    for p in paths {
        let name = p.display().to_string();
        let bytes = std::fs::read(&p).map_err(|e| CliError::input(format!("{name}: {e}")))?;
        if bytes.len() as u64 > MAX_RECORD {
            return Err(CliError::input(format!("{name}: larger than 4 MiB")));
        }
        records.push(parse_record(name, &bytes)?);
    }
    Ok(records)
}

/// Whether two paths name the same existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sgf_results_map_to_opengotha() {
        for (re, want) in [
            ("B+R", Some(GameResult::BlackWins)),
            ("W+3.5", Some(GameResult::WhiteWins)),
            ("W+T", Some(GameResult::WhiteWins)),
            ("B+F", Some(GameResult::BlackWinsByDefault)),
            ("W+Forfeit", Some(GameResult::WhiteWinsByDefault)),
            ("0", Some(GameResult::Equal)),
            ("Jigo", Some(GameResult::Equal)),
            ("Draw", Some(GameResult::Equal)),
            ("?", None),
            ("Void", None),
            ("", None),
            ("X+1", None),
        ] {
            assert_eq!(GameResult::from_sgf(re), want, "{re}");
        }
    }
}
