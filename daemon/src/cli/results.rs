//! `tengen results FILE.xml --round N (--zip ROUND.zip | --sgf DIR) --out OUT
//! [--format opengotha|aga|csv]` (SPEC.md, "Command line"): a round's results written back
//! from its game records, for a director whose pairing laptop is not on the hall network.
//!
//! Each record (`*.sgf` in the zip the hall serves as `/round/{round}.zip`, or in the
//! folder) is matched to its game by `GN`, the game id `r{round}-t{table}`. Its `PB` and
//! `PW` must be the pairing's players (`name firstName`, as `tengen pairings` prints them):
//! a record on the wrong table would otherwise give one pair's result to another. A
//! mismatch, two records for one table, or an unreadable file is exit 2 naming it, and
//! nothing is written. `RE` gives the result (`B+...`, `W+...`; `B+F`/`W+F`, a forfeit, is
//! a win by default; `0`, `Draw`, `Jigo` a draw); a record without one, `?` or `Void` leaves
//! the game's result unknown, and is listed. Records of other rounds, and files without
//! `GN`, are listed and left out.
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
use tengen_tournament::{aga_results, csv_results, write_atomically, GameResult, Tournament};

use super::args::ResultsArgs;
use super::pairings::load_round;
use super::CliError;

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

/// Runs `tengen results`.
pub(super) fn run(args: ResultsArgs) -> Result<(), CliError> {
    let format = Format::parse(&args.format)?;
    if same_file(&args.file, &args.out) {
        return Err(CliError::input(format!(
            "--out: {} is the tournament file; write the results beside it",
            args.out.display()
        )));
    }
    let original = std::fs::read_to_string(&args.file)
        .map_err(|e| CliError::input(format!("{}: {e}", args.file.display())))?;
    let t = load_round(&args.file, args.round)?;
    let records = match (&args.zip, &args.sgf) {
        (Some(zip), _) => from_zip(zip)?,
        (None, Some(dir)) => from_dir(dir)?,
        (None, None) => return Err(CliError::input("give --zip ROUND.zip or --sgf DIR")),
    };
    let found = match_records(&t, args.round, &records)?;
    let mut results = Vec::new();
    for (table, (name, result)) in &found {
        match result {
            Some(r) => {
                println!("table {table}: {} ({name})", r.label());
                results.push((*table, *r));
            }
            None => println!("table {table}: result unknown in {name}, left as it was"),
        }
    }
    for p in t.round(args.round) {
        if !found.contains_key(&p.table) {
            println!("table {}: no record, left as it was", p.table);
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
    println!(
        "{} results of round {} written to {}{}",
        results.len(),
        args.round,
        args.out.display(),
        kept.map(|k| format!(" (the file before kept as {})", k.display()))
            .unwrap_or_default()
    );
    Ok(())
}

/// Each table's record and its result (`None`: unreadable), checked against the pairing.
fn match_records(
    t: &Tournament,
    round: u32,
    records: &[Record],
) -> Result<BTreeMap<u32, (String, Option<GameResult>)>, CliError> {
    let pairings = t.round(round);
    let mut found: BTreeMap<u32, (String, Option<GameResult>)> = BTreeMap::new();
    for r in records {
        let Some(gn) = root_value(&r.record, "GN") else {
            println!("{}: no GN (game id), left out", r.name);
            continue;
        };
        let Some(p) = pairings.iter().find(|p| p.game == gn) else {
            println!(
                "{}: game {gn} is not a game of round {round}, left out",
                r.name
            );
            continue;
        };
        for (side, want, got) in [
            ("PB", p.black.display_name(), &r.record.black_name),
            ("PW", p.white.display_name(), &r.record.white_name),
        ] {
            if got.as_deref() != Some(want.as_str()) {
                return Err(CliError::input(format!(
                    "table {}: {} has {side}[{}] but the pairing has \"{want}\"; nothing written",
                    p.table,
                    r.name,
                    got.as_deref().unwrap_or("")
                )));
            }
        }
        let result = r.record.result.as_deref().and_then(GameResult::from_sgf);
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
