//! `tengen frames FILE [--at MS | --from MS --to MS] [--json]` (docs/operating.md, "The black box"):
//! a board's frames file read back. `--at`: the board as the sensors saw it then, `size`
//! rows of `.XO?` (`?` between the bands: a hand, a stone half down), top row first;
//! `--from/--to`: each scan with a change or a press in the window, a `ms` line and the
//! board (or one JSON line each with `--json`). With neither: what the file holds.

use tengen_protocol::frames::board_text;

use super::args::FramesArgs;
use super::{print_lines, CliError};
use crate::black_box;

/// Runs `tengen frames`.
pub(super) fn run(args: FramesArgs) -> Result<(), CliError> {
    // A window needs only its own blocks; what the file holds needs them all.
    let read = match (args.at, args.from, args.to) {
        (Some(at), _, _) => black_box::read_window(&args.file, at, at),
        (None, Some(from), Some(to)) if from <= to => black_box::read_window(&args.file, from, to),
        _ => black_box::read(&args.file),
    };
    let record = read.map_err(|e| CliError::input(e.to_string()))?;
    if record.torn_bytes() > 0 {
        eprintln!(
            "tengen frames: {} bytes at the end are not a whole record (a writer at work, or a torn write): left out",
            record.torn_bytes()
        );
    }
    for offset in record.damaged() {
        eprintln!("tengen frames: a damaged record at byte {offset} is skipped");
    }
    let size = record.header().size;
    let lines = match (args.at, args.from, args.to) {
        (Some(at), _, _) => {
            let board = record.board_at(at).ok_or_else(|| {
                CliError::input(format!("--at {at}: nothing was seen that early"))
            })?;
            if args.json {
                let line = serde_json::json!({
                    "ms": at,
                    "board": board_text(&board, size, ""),
                    "presses": [],
                });
                vec![line.to_string()]
            } else {
                vec![board_text(&board, size, "\n")]
            }
        }
        (None, Some(from), Some(to)) => {
            if from > to {
                return Err(CliError::input(format!("--from {from} is after --to {to}")));
            }
            if args.json {
                let text = record.json_lines(from, to);
                vec![text.trim_end().to_string()]
            } else {
                record
                    .window(from, to)
                    .into_iter()
                    .map(|l| {
                        let presses = if l.presses.is_empty() {
                            String::new()
                        } else {
                            format!(" press {}", l.presses.join(" "))
                        };
                        let rows = l.board.as_bytes().chunks(size.max(1) as usize);
                        let rows: Vec<&str> =
                            rows.map(|r| std::str::from_utf8(r).unwrap_or("")).collect();
                        format!("{} ms{presses}\n{}", l.ms, rows.join("\n"))
                    })
                    .collect()
            }
        }
        _ => {
            let h = record.header();
            let (first, last) = record.span().unwrap_or((0, 0));
            let line = serde_json::json!({
                "board": h.board,
                "game": h.game,
                "size": h.size,
                "start": tengen_protocol::Timestamp::from_millis(h.start_ms).to_string(),
                "from": first,
                "to": last,
                "changes": record.changes(),
            });
            vec![line.to_string()]
        }
    };
    print_lines(&lines)
}
