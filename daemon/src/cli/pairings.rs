//! `tengen pairings FILE.xml --round N [--boards PATTERN] [--json]` (docs/operating.md, "Commands"): each game of a round of an OpenGotha tournament file, with the board it is
//! played on and what that board is set up with.
//!
//! The table form is for a director reading it; `--json` is one object per game, in
//! The wire contract's key order: `{"round":6,"table":12,"board":"table-12","game":"r6-t12",
//! "black":"Vannier Luc","black_rank":"4K","white":"Gao Chuande","white_rank":"1D",
//! "handicap":3,"komi":0,"size":19,"time":"byoyomi 60m 1x30s"}`. Names are the file's
//! `name`, a space and `firstName`; `komi` is the board's for that handicap
//! ([`Tournament::komi_for`]); `time` is the tournament's time system in the script syntax.
//! Players with a bye are listed after the games (`{"round":6,"bye":"..."}` with `--json`).
//!
//! A file that cannot be read or is not a tournament (a control character in a name
//! included), a round with no games, or a bad `--boards` pattern is exit 2 with one line
//! naming what is wrong. A reader that stops reading (`| head`) ends the output quietly.

use serde::Serialize;
use tengen_tournament::{BoardPattern, Pairing, Tournament};

use super::args::PairingsArgs;
use super::{print_lines, CliError};

/// One game as `--json` prints it.
#[derive(Serialize)]
struct GameLine<'a> {
    round: u32,
    table: u32,
    board: String,
    game: &'a str,
    black: String,
    black_rank: &'a str,
    white: String,
    white_rank: &'a str,
    handicap: u32,
    komi: f64,
    size: u32,
    time: &'a str,
}

/// A player with a bye, as `--json` prints it.
#[derive(Serialize)]
struct ByeLine {
    round: u32,
    bye: String,
    rank: String,
}

/// A tournament file's round, checked: the tournament and the round's games.
pub(super) fn load_round(path: &std::path::Path, round: u32) -> Result<Tournament, CliError> {
    let t =
        Tournament::read(path).map_err(|e| CliError::input(format!("{}: {e}", path.display())))?;
    if t.round(round).is_empty() {
        let rounds = t.rounds();
        let known = match (rounds.first(), rounds.last()) {
            (Some(a), Some(b)) => format!("it has games in rounds {a} to {b}"),
            _ => "it has no games yet".to_string(),
        };
        return Err(CliError::input(format!(
            "{}: round {round} has no games ({known})",
            path.display()
        )));
    }
    Ok(t)
}

/// Runs `tengen pairings`.
pub(super) fn run(args: PairingsArgs) -> Result<(), CliError> {
    let boards =
        BoardPattern::parse(&args.boards).map_err(|e| CliError::input(format!("--boards: {e}")))?;
    let t = load_round(&args.file, args.round)?;
    let time = t.time_system().script();
    let pairings = t.round(args.round);
    let line = |p| game_line(&t, &boards, &time, p);
    let byes = t.byes(args.round);
    let mut out = Vec::with_capacity(pairings.len() + byes.len() + 2);
    if args.json {
        for p in &pairings {
            out.push(to_json(&line(p))?);
        }
        for b in &byes {
            let bye = ByeLine {
                round: args.round,
                bye: b.display_name(),
                rank: b.rank.clone(),
            };
            out.push(to_json(&bye)?);
        }
        return print_lines(&out);
    }
    out.push(format!(
        "{} - round {} of {}: {} games, {}x{}, komi {} (even games), time {}",
        t.name(),
        args.round,
        t.number_of_rounds(),
        pairings.len(),
        t.size(),
        t.size(),
        t.komi(),
        time
    ));
    out.push(format!(
        "{:>5}  {:<12} {:<9} {:<30} {:<30} {:>3} {:>5}",
        "table", "board", "game", "black", "white", "hc", "komi"
    ));
    for p in &pairings {
        let l = line(p);
        out.push(format!(
            "{:>5}  {:<12} {:<9} {:<30} {:<30} {:>3} {:>5}",
            l.table,
            l.board,
            l.game,
            format!("{} ({})", l.black, l.black_rank),
            format!("{} ({})", l.white, l.white_rank),
            l.handicap,
            l.komi
        ));
    }
    for b in &byes {
        out.push(format!("  bye  {} ({})", b.display_name(), b.rank));
    }
    print_lines(&out)
}

/// A game of the round as printed.
fn game_line<'a>(
    t: &Tournament,
    boards: &BoardPattern,
    time: &'a str,
    p: &'a Pairing<'a>,
) -> GameLine<'a> {
    GameLine {
        round: p.round,
        table: p.table,
        board: boards.board(p.table),
        game: &p.game,
        black: p.black.display_name(),
        black_rank: &p.black.rank,
        white: p.white.display_name(),
        white_rank: &p.white.rank,
        handicap: p.handicap,
        komi: t.komi_for(p.handicap),
        size: t.size(),
        time,
    }
}

fn to_json(value: &impl Serialize) -> Result<String, CliError> {
    serde_json::to_string(value).map_err(|e| CliError::work(format!("json: {e}")))
}
