//! `tengen replay FILE.sgf [--json] [--superko situational|positional]` (docs/operating.md,
//! "Commands"): plays an SGF game's main line through the rules core.
//!
//! Output with `--json`, one line per move and a final line:
//! `{"number":N,"color":"B","point":"Q16","captured":["Q15"]}` (a pass has
//! `"point":"pass"`), then `{"final":{"board":"...","to_move":"W","captured_by_B":n,
//! "captured_by_W":n}}` (`board` as in the wire contract's `state`; `captured_by_B` = stones Black
//! took). Without `--json`: `12 W D4 captures D5 E5` per move, then the board as a
//! diagram and a summary line.
//!
//! Moves are numbered from 1 in file order; setup stones (`AB`/`AW`) are not moves. A
//! handicap game whose file has `HA` but no `AB` and starts with a White move gets the
//! fixed handicap placement. An illegal move stops the replay with exit 1 and
//! `FILE: move N (C P) is illegal: reason`; a file that cannot be read or parsed exits 2.

use std::io::{BufWriter, Write};
use std::path::Path;

use serde::Serialize;
use tengen_rules::game::{Game, Played, Superko};
use tengen_rules::point::sorted_gtp;
use tengen_rules::sgf::{self, GameRecord};
use tengen_rules::Color;

use super::args::ReplayArgs;
use super::CliError;

/// One `--json` line per move.
#[derive(Serialize)]
struct MoveLine<'a> {
    number: usize,
    color: &'a str,
    point: String,
    captured: Vec<String>,
}

/// The last `--json` line.
#[derive(Serialize)]
struct FinalLine<'a> {
    #[serde(rename = "final")]
    final_: FinalState<'a>,
}

#[derive(Serialize)]
struct FinalState<'a> {
    board: String,
    to_move: &'a str,
    #[serde(rename = "captured_by_B")]
    captured_by_b: u32,
    #[serde(rename = "captured_by_W")]
    captured_by_w: u32,
}

/// Runs `tengen replay`.
pub(super) fn run(args: ReplayArgs) -> Result<(), CliError> {
    let superko = Superko::parse(&args.superko).ok_or_else(|| {
        CliError::input(format!(
            "--superko: '{}' is not situational or positional",
            args.superko
        ))
    })?;
    let rec = load(&args.file)?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let io = |e: std::io::Error| CliError::work(format!("writing the output: {e}"));
    let game = replay(&args.file, &rec, superko, |number, played| {
        let point = played.mv.to_gtp();
        let captured = sorted_gtp(played.captured.iter().copied());
        let line = if args.json {
            serde_json::to_string(&MoveLine {
                number,
                color: played.color.letter(),
                point,
                captured,
            })
            .map_err(|e| CliError::work(e.to_string()))?
        } else if captured.is_empty() {
            format!("{number} {} {point}", played.color)
        } else {
            format!(
                "{number} {} {point} captures {}",
                played.color,
                captured.join(" ")
            )
        };
        writeln!(out, "{line}").map_err(io)
    });
    // Moves before an illegal one are printed before the error.
    let game = match game {
        Ok(g) => g,
        Err(e) => {
            out.flush().map_err(io)?;
            return Err(e);
        }
    };
    let board = game.board();
    if args.json {
        let line = serde_json::to_string(&FinalLine {
            final_: FinalState {
                board: board.to_rows(),
                to_move: game.to_move().letter(),
                captured_by_b: game.prisoners(Color::Black),
                captured_by_w: game.prisoners(Color::White),
            },
        })
        .map_err(|e| CliError::work(e.to_string()))?;
        writeln!(out, "{line}").map_err(io)?;
    } else {
        let rows = board.to_rows();
        let size = board.size() as usize;
        for (i, row) in rows.as_bytes().chunks(size).enumerate() {
            let row = String::from_utf8_lossy(row);
            writeln!(out, "{:>2} {row}", size - i).map_err(io)?;
        }
        writeln!(
            out,
            "{} to move; captured by B: {}, by W: {}",
            game.to_move(),
            game.prisoners(Color::Black),
            game.prisoners(Color::White)
        )
        .map_err(io)?;
    }
    out.flush().map_err(io)
}

/// Reads and parses an SGF file; any fault is bad input (exit 2) naming the file.
pub(crate) fn load(path: &Path) -> Result<GameRecord, CliError> {
    let bytes = std::fs::read(path)
        .map_err(|e| CliError::input(format!("{}: cannot read: {e}", path.display())))?;
    sgf::parse_bytes(&bytes).map_err(|e| CliError::input(format!("{}: {e}", path.display())))
}

/// Sets up the record's start position and plays its moves, calling `each` with the
/// 1-based move number and what the move did. An illegal move is exit 1.
pub(crate) fn replay(
    path: &Path,
    rec: &GameRecord,
    superko: Superko,
    mut each: impl FnMut(usize, &Played) -> Result<(), CliError>,
) -> Result<Game, CliError> {
    let first = rec.moves.first().map(|m| m.color);
    let setup = !rec.black_setup.is_empty() || !rec.white_setup.is_empty();
    let game = if !setup && rec.handicap >= 2 && first == Some(Color::White) {
        Game::with_handicap(rec.size, rec.handicap, superko)
    } else {
        let to_move = first.unwrap_or(if rec.handicap >= 2 && setup {
            Color::White
        } else {
            Color::Black
        });
        Game::with_setup(
            rec.size,
            &rec.black_setup,
            &rec.white_setup,
            to_move,
            superko,
        )
    };
    let mut game = game.map_err(|e| CliError::input(format!("{}: setup: {e}", path.display())))?;
    for (i, m) in rec.moves.iter().enumerate() {
        let number = i + 1;
        let played = game.play_as(m.color, m.mv).map_err(|why| {
            CliError::work(format!(
                "{}: move {number} ({} {}) is illegal: {}",
                path.display(),
                m.color,
                m.mv.to_gtp(),
                why.as_str()
            ))
        })?;
        each(number, &played)?;
    }
    Ok(game)
}
