//! `tengen score FILE.sgf [--dead PTS] [--komi K]` (docs/operating.md, "Commands"): the area
//! count (Art. 9, 11) of the game's final position after lifting the dead stones.
//!
//! Prints one JSON object, keys in the wire contract's order:
//! `{"black_area":184.5,"white_area":176.5,"dame":1,"komi_stones":3.75,"result":"B+1.5",
//! "margin_stones":0.75,"margin_points":1.5}`. Numbers are JSON numbers; a whole number
//! is written without a fraction (`185`, not `185.0`), others with as few decimals as they
//! need (areas in halves, stones in quarters).
//!
//! Komi comes from `--komi`, else from the file's `KM` (points), else 7.5 in an even game
//! and 0 in a handicap game. `HA` gives the handicap compensation (HA/2 stones). An
//! illegal move in the file is exit 1 (as in `tengen replay`); a missing or malformed
//! file, a bad `--dead` list (malformed, off the board, an empty point) or a komi that is
//! not a multiple of 0.5 is exit 2.

use serde::{Serialize, Serializer};
use tengen_rules::game::Superko;
use tengen_rules::point::parse_gtp_list;
use tengen_rules::scoring::{score, ScoreError, ScoreRules};

use super::args::ScoreArgs;
use super::replay::{load, replay};
use super::CliError;

/// Writes a whole number without a fraction, anything else as the shortest decimal.
fn number<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        s.serialize_i64(*v as i64)
    } else {
        s.serialize_f64(*v)
    }
}

/// The printed object.
#[derive(Serialize)]
struct ScoreLine {
    #[serde(serialize_with = "number")]
    black_area: f64,
    #[serde(serialize_with = "number")]
    white_area: f64,
    dame: u32,
    #[serde(serialize_with = "number")]
    komi_stones: f64,
    result: String,
    #[serde(serialize_with = "number")]
    margin_stones: f64,
    #[serde(serialize_with = "number")]
    margin_points: f64,
}

/// Runs `tengen score`.
pub(super) fn run(args: ScoreArgs) -> Result<(), CliError> {
    let rec = load(&args.file)?;
    let game = replay(&args.file, &rec, Superko::Situational, |_, _| Ok(()))?;
    let dead = match &args.dead {
        Some(text) => {
            parse_gtp_list(text, rec.size).map_err(|e| CliError::input(format!("--dead: {e}")))?
        }
        None => Vec::new(),
    };
    let (komi_points, source) = match (args.komi, rec.komi) {
        (Some(k), _) => (k, "--komi".to_string()),
        (None, Some(k)) => (k, format!("{}: KM", args.file.display())),
        (None, None) if rec.handicap >= 2 => (0.0, String::new()),
        (None, None) => (7.5, String::new()),
    };
    let rules = ScoreRules {
        komi_points,
        handicap: rec.handicap,
        warnings: [0, 0],
    };
    let s = score(game.board(), &dead, &rules).map_err(|e| match e {
        ScoreError::BadKomi(_) => CliError::input(format!("{source}: {e}")),
        _ => CliError::input(format!("--dead: {e}")),
    })?;
    let line = serde_json::to_string(&ScoreLine {
        black_area: s.black_area,
        white_area: s.white_area,
        dame: s.dame,
        komi_stones: s.komi_stones,
        result: s.result,
        margin_stones: s.margin_stones,
        margin_points: s.margin_points,
    })
    .map_err(|e| CliError::work(e.to_string()))?;
    println!("{line}");
    Ok(())
}
