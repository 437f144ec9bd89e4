//! One game of the feed, written from its public events: the events file, the record and
//! the game's line in its round's index. A plain function of the events (and the arbiter's
//! confirmed result), so it is tested exactly and the hall's routes and the export write
//! the same bytes.

use axum::body::Bytes;
use serde_json::{json, Value};
use tengen_protocol::topics::BoardKey;
use tengen_protocol::view::Phase;
use tengen_protocol::{Envelope, GameView};
use tengen_tournament::GameResult;

use crate::public::round_games::zip_record;

/// One game as the feed has it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GameFiles {
    /// `{table}.json`: the game's public events, one per line (see [`events_file`]).
    pub(crate) events: Bytes,
    /// `{table}.sgf`: the game's public record.
    pub(crate) sgf: Bytes,
    /// Its line in the round's index, without the two links (the index adds them).
    pub(crate) line: Value,
    /// The game is over as far as the public knows.
    pub(crate) over: bool,
}

/// The events file of `events`: `"[\n"`, the events one per line joined by `",\n"`, and
/// `"\n]\n"`. A newer event only ever adds to the end (before the closing `"\n]\n"`), so a
/// follower asks for the bytes after the ones it has (docs/round-feed.md).
pub(crate) fn events_file(events: &[Envelope]) -> Vec<u8> {
    let mut out = Vec::with_capacity(events.len() * 200 + 4);
    out.extend_from_slice(b"[\n");
    for (i, e) in events.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(b",\n");
        }
        // An envelope always serialises (plain data); an empty line would still parse.
        if let Ok(line) = serde_json::to_vec(e) {
            out.extend_from_slice(&line);
        }
    }
    if !events.is_empty() {
        out.push(b'\n');
    }
    out.extend_from_slice(b"]\n");
    out
}

/// The files of game `game` of board `key` from its public events (`game_started` first;
/// events of other games and private ones must already be left out), with the result the
/// arbiter confirmed, if any, once the public events end the game (the broadcast delay has
/// released its end; issue 34). `None` before its `game_started` is public.
pub(crate) fn game_files(
    key: &BoardKey,
    game: &str,
    events: &[Envelope],
    confirmed: Option<GameResult>,
) -> Option<GameFiles> {
    let mut view = GameView::new();
    for e in events {
        // An event the fold refuses is left out of the record, as everywhere else.
        if let Err(err) = view.apply_envelope(e) {
            tracing::debug!("feed {}/{} seq {}: {err}", key.board, game, e.seq);
        }
    }
    let setup = view.setup()?.clone();
    let over = view.phase() == Phase::Over;
    let confirmed = confirmed.filter(|_| over);
    let (sgf, result) = zip_record(&view.sgf(false), key, confirmed);
    let state = if over {
        "over"
    } else if view.waiting().is_some() {
        "waiting"
    } else {
        "playing"
    };
    let line = json!({
        "table": number_or_text(&setup.table),
        "board": key.board,
        "tournament": key.tournament,
        "game": game,
        "black": setup.black,
        "black_rank": setup.black_rank,
        "white": setup.white,
        "white_rank": setup.white_rank,
        "state": state,
        "moves": view.record().len(),
        "result": if over { result } else { None },
    });
    Some(GameFiles {
        events: Bytes::from(events_file(events)),
        sgf: Bytes::from(sgf),
        line,
        over,
    })
}

/// `"12"` as the number 12, anything else as the text it is (rounds and tables are numbers
/// in OpenGotha, names elsewhere).
pub(crate) fn number_or_text(s: &str) -> Value {
    match s.parse::<u64>() {
        Ok(n) if n.to_string() == s => json!(n),
        _ => json!(s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{env, mv};
    use tengen_protocol::event::{EndReason, Event, GameEnd, GameSetup};

    fn key() -> BoardKey {
        BoardKey {
            tournament: "open".into(),
            board: "b1".into(),
        }
    }

    fn setup() -> Event {
        Event::GameStarted(GameSetup {
            size: 9,
            black: "Dosaku".into(),
            white: "Sansa".into(),
            round: "1".into(),
            table: "3".into(),
            black_rank: Some("9p".into()),
            ..Default::default()
        })
    }

    /// The events file only grows at its end: the file of a longer stream starts with the
    /// shorter one's bytes but its last three (`"\n]\n"`), and each line is one event.
    #[test]
    fn the_events_file_only_grows_at_its_end() {
        let all = [env(1, setup()), env(2, mv(1, "C3")), env(3, mv(2, "G7"))];
        assert_eq!(events_file(&[]), b"[\n]\n");
        for n in 1..all.len() {
            let short = events_file(&all[..n]);
            let long = events_file(&all[..=n]);
            assert!(long.starts_with(&short[..short.len() - 3]), "{n}");
            let tail = &long[short.len() - 3..];
            assert!(
                tail.starts_with(b",\n{"),
                "{}",
                String::from_utf8_lossy(tail)
            );
        }
        let whole: Vec<Envelope> =
            serde_json::from_slice(&events_file(&all)).expect("the file is one JSON array");
        assert_eq!(whole, all);
    }

    /// The record and the index line come from the fold of the events: players, ranks,
    /// moves, state; the result only once the game is over.
    #[test]
    fn the_line_and_record_follow_the_game() {
        let mut events = vec![env(1, setup()), env(2, mv(1, "C3")), env(3, mv(2, "G7"))];
        let files = game_files(&key(), "g1", &events, None).expect("set up");
        assert_eq!(files.line["table"], json!(3));
        assert_eq!(files.line["black"], "Dosaku");
        assert_eq!(files.line["black_rank"], "9p");
        assert_eq!(files.line["white_rank"], Value::Null);
        assert_eq!(files.line["moves"], 2);
        assert_eq!(files.line["state"], "playing");
        assert_eq!(files.line["result"], Value::Null);
        assert!(!files.over);
        let sgf = String::from_utf8(files.sgf.to_vec()).unwrap();
        let record = tengen_rules::sgf::parse(&sgf).expect("an SGF");
        assert_eq!(record.moves.len(), 2);
        assert!(sgf.contains("TENGENBOARD[b1]"), "{sgf}");
        events.push(env(
            4,
            Event::GameOver(GameEnd::uncounted("W+R", EndReason::Resignation)),
        ));
        let files = game_files(&key(), "g1", &events, None).expect("set up");
        assert!(files.over);
        assert_eq!(files.line["state"], "over");
        assert_eq!(files.line["result"], "W+R");
        let confirmed =
            game_files(&key(), "g1", &events, Some(GameResult::BlackWins)).expect("set up");
        assert_eq!(confirmed.line["result"], "B+", "the arbiter's result wins");
        assert!(game_files(&key(), "g1", &events[1..], None).is_none());
    }

    /// An arbiter's confirmation goes public with the game's end, never ahead of the delay
    /// (issue 34): a game the public still sees in play has no result, in its line or its
    /// record.
    #[test]
    fn a_confirmed_result_waits_for_the_public_end_of_the_game() {
        let mut events = vec![env(1, setup()), env(2, mv(1, "C3"))];
        let early = game_files(&key(), "g1", &events, Some(GameResult::BlackWins)).expect("up");
        assert_eq!(early.line["result"], Value::Null);
        assert_eq!(early.line["state"], "playing");
        let sgf = String::from_utf8(early.sgf.to_vec()).unwrap();
        assert!(
            !sgf.contains("RE[") && !sgf.contains("TENGENRESULT"),
            "{sgf}"
        );
        events.push(env(
            3,
            Event::GameOver(GameEnd::uncounted("W+R", EndReason::Resignation)),
        ));
        let released = game_files(&key(), "g1", &events, Some(GameResult::BlackWins)).expect("up");
        assert_eq!(released.line["result"], "B+");
        let sgf = String::from_utf8(released.sgf.to_vec()).unwrap();
        assert!(
            sgf.contains("RE[B+]") && sgf.contains("TENGENRESULT"),
            "{sgf}"
        );
    }
}
