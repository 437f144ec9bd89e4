//! The rounds and their games as the public may have them: what `/rounds`, `/api/rounds`,
//! the round zips ([`super::round_zip`]), the round feed ([`super::round_feed`]) and the
//! static export ([`super::static_export`]) show, read from [`Sources`].
//!
//! A round's games are the boards' current games in that round and, with `[hall]
//! archive_dir`, every archived game of it (finished or not), each once by tournament,
//! board and game id. What the public may see of each, under a broadcast delay
//! (`[broadcast]`):
//!
//! - an archived game is served whole once it is *released*: always without `[broadcast]`;
//!   under it, when it is over and `release_at_end` (the default) is on, or when its board
//!   has begun a later game and its last event is more than `delay_minutes` old (the delay
//!   has then let all of it out);
//! - otherwise, if it is its board's current game, the public (delayed) side as before;
//! - otherwise (after a hall restart, a game in progress whose board has not spoken
//!   since) it is left out until one of the above holds.
//!
//! Each record in a zip says whose it is, as the hall heard it (the topic the broker let
//! the board write to, not anything the board wrote in it): `TENGENBOARD[hall1-03]` and
//! `TENGENTOURNAMENT[open-2026]`, root properties of tengen's own that `tengen results`
//! checks against the table's board. Its result is the game's latest (the fold's: a
//! `game_over` after a reopen replaces the one before), unless an arbiter confirmed one
//! in the Round view: then the record says what the arbiter confirmed, `RE` in SGF's
//! words ([`GameResult::record_result`]: the board's own `RE` when it says the same) and
//! `TENGENRESULT[RESULT_BLACKWINS]`, OpenGotha's exact value, which `tengen results`
//! prefers (SGF has no word for both win or a draw by default).
//!
//! The zip an arbiter downloads (logged in to the console) also holds each game's black box
//! the archive has fetched from its board (`frames/{table}.frames`,
//! [`crate::boards::frames_archive`]), each table's incident log (`incidents/{table}.html`:
//! every alert, decision, warning and correction, `routes/incidents.rs`), and the games an
//! arbiter voided, marked (`...-void.sgf`); the public's never does: a void game leaves
//! every public view (this zip, `/rounds`, the feed).

use std::collections::{BTreeMap, HashSet};

use serde_json::{json, Value};
use tengen_l10n::Render;
use tengen_protocol::topics::BoardKey;
use tengen_protocol::Timestamp;
use tengen_tournament::GameResult;

use crate::boards::archive::{self, GameInfo};
use crate::boards::hall_state::lock;
use crate::boards::hall_state::zip_name;
use crate::config::DelayPolicy;
use crate::public::Sources;

/// One game of a round, as the public may have it.
pub(crate) struct RoundGame {
    /// Its board.
    pub(crate) key: BoardKey,
    /// Its game id.
    pub(crate) game: String,
    /// Its round.
    pub(crate) round: String,
    /// Its file name in the zip.
    pub(crate) name: String,
    /// Over, as far as the public may know.
    pub(crate) over: bool,
    /// Its SGF (when asked for; empty when there is no public record).
    pub(crate) sgf: String,
    /// Where the public's copy is: the archive, whole (`Some`, with the archive's
    /// [`GameInfo::held`] and whether its board began a later game), or its board's public
    /// feed (`None`: the board's current game).
    pub(crate) archived: Option<Archived>,
    /// An arbiter voided it (only in the arbiters' list).
    pub(crate) voided: bool,
}

/// A game the public has whole from the archive ([`RoundGame::archived`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Archived {
    /// [`GameInfo::held`].
    pub(crate) held: (u64, usize),
    /// Its board began a later game.
    pub(crate) superseded: bool,
}

/// True when the public may have archived game `g` whole at `now` (see the module
/// documentation).
fn released(g: &GameInfo, policy: Option<&DelayPolicy>, now: Timestamp) -> bool {
    let Some(p) = policy else {
        return true;
    };
    if g.over && p.release_at_end {
        return true;
    }
    g.superseded && g.last_time.is_some_and(|t| t.plus(p.window_ms) <= now)
}

/// The games of `round` (every round when `None`) that the public may see, each once;
/// with their SGFs when `sgf`. A void game is left out, unless `arbiters` (the arbiters'
/// zip keeps it, marked). With `[tournament]`, a game's round is its pairing's
/// ([`crate::tournament::link::TournamentLink::round_of`]), not its board's label alone
/// (issue 34).
pub(crate) fn round_games(src: &Sources, round: Option<&str>, sgf: bool) -> Vec<RoundGame> {
    games_of(src, round, sgf, false)
}

/// [`round_games`], with the void games too when `arbiters`.
pub(crate) fn games_of(
    src: &Sources,
    round: Option<&str>,
    sgf: bool,
    arbiters: bool,
) -> Vec<RoundGame> {
    let mut games = all_games(src, round, sgf);
    if !arbiters {
        games.retain(|g| !g.voided);
    }
    games
}

/// Every game of `round` the hall holds for the arbiters (void ones included), by board and
/// game id.
pub(crate) fn arbiters_games(src: &Sources, round: &str) -> Vec<(BoardKey, String)> {
    games_of(src, Some(round), false, true)
        .into_iter()
        .map(|g| (g.key, g.game))
        .collect()
}

/// Every game of `round` the public may see, the void ones included.
fn all_games(src: &Sources, round: Option<&str>, sgf: bool) -> Vec<RoundGame> {
    let in_round = |r: &str| !r.is_empty() && round.is_none_or(|x| x == r);
    let seated = |key: &BoardKey, game: &str, label: &str| -> String {
        let paired = src.tournament.as_ref().and_then(|link| {
            let link = link.lock().unwrap_or_else(|p| p.into_inner());
            link.round_of(key, game, label)
        });
        paired.map_or_else(|| label.to_string(), |r| r.to_string())
    };
    let (current, policy) = {
        let h = lock(&src.hall);
        (h.current_games(sgf), h.delay_policy())
    };
    let mut seen: HashSet<(BoardKey, String)> = HashSet::new();
    let mut out = Vec::new();
    if let Some(shared) = &src.archive {
        let a = archive::lock(shared);
        let now = Timestamp::now();
        for mut g in a.games() {
            g.round = seated(&g.key, &g.game, &g.round);
            if !in_round(&g.round) {
                continue;
            }
            let name = zip_name(&g.key, &g.game);
            if released(&g, policy.as_ref(), now) {
                out.push(RoundGame {
                    key: g.key.clone(),
                    game: g.game.clone(),
                    round: g.round.clone(),
                    name,
                    over: g.over,
                    sgf: if sgf {
                        a.sgf(&g.key, &g.game).unwrap_or_default()
                    } else {
                        String::new()
                    },
                    archived: Some(Archived {
                        held: g.held,
                        superseded: g.superseded,
                    }),
                    voided: g.voided,
                });
            } else if let Some(c) = current.iter().find(|c| c.key == g.key && c.game == g.game) {
                out.push(RoundGame {
                    key: g.key.clone(),
                    game: g.game.clone(),
                    round: g.round.clone(),
                    name,
                    over: c.over,
                    sgf: c.sgf.clone(),
                    archived: None,
                    voided: c.voided || g.voided,
                });
            }
            seen.insert((g.key, g.game));
        }
    }
    for mut c in current {
        c.round = seated(&c.key, &c.game, &c.round);
        if !in_round(&c.round) || seen.contains(&(c.key.clone(), c.game.clone())) {
            continue;
        }
        out.push(RoundGame {
            name: zip_name(&c.key, &c.game),
            key: c.key,
            game: c.game,
            round: c.round,
            over: c.over,
            sgf: c.sgf,
            archived: None,
            voided: c.voided,
        });
    }
    out
}

/// A game's record as the zip (and the round feed) holds it: whose it is (`TENGENBOARD`,
/// `TENGENTOURNAMENT`) and, when an arbiter confirmed its result, that result (`RE`,
/// `TENGENRESULT`); with its result (`RE`) as written, and the board's own `TENGENREASON`
/// (`absent`: a loss by default for a player not seated in time, Art. 22). A record the SGF reader cannot read
/// (never one the hall wrote) goes in as it was, with no result.
pub(crate) fn zip_record(
    sgf: &str,
    key: &BoardKey,
    confirmed: Option<GameResult>,
) -> (String, Option<String>) {
    let Ok(mut record) = tengen_rules::sgf::parse(sgf) else {
        return (sgf.to_string(), None);
    };
    record
        .extra_root
        .retain(|(ident, _)| !ident.starts_with("TENGEN") || ident == "TENGENREASON");
    record
        .extra_root
        .push(("TENGENBOARD".to_string(), key.board.clone()));
    record
        .extra_root
        .push(("TENGENTOURNAMENT".to_string(), key.tournament.clone()));
    if let Some(result) = confirmed {
        let played = !record.moves.is_empty();
        record.result = result.record_result(record.result.as_deref(), played);
        record.extra_root.push((
            "TENGENRESULT".to_string(),
            result.as_opengotha().to_string(),
        ));
    }
    (tengen_rules::sgf::write(&record), record.result)
}

/// `s` with every character but ASCII letters, digits and `-` made `_`: a file name.
pub(crate) fn sanitize(s: &str) -> String {
    // 64 at most: a file name (issue 34; labels are bounded when the hall takes them, this
    // is the second lock).
    s.chars()
        .take(64)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The rounds seen, in order (numbers first, by value): round, games, finished games.
pub(crate) fn rounds(src: &Sources) -> Vec<(String, usize, usize)> {
    let mut by_round: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for g in round_games(src, None, false) {
        let n = by_round.entry(g.round).or_default();
        n.0 += 1;
        n.1 += usize::from(g.over);
    }
    let mut list: Vec<(String, usize, usize)> = by_round
        .into_iter()
        .map(|(r, (games, finished))| (r, games, finished))
        .collect();
    list.sort_by_key(|(r, _, _)| (r.parse::<u64>().unwrap_or(u64::MAX), r.clone()));
    list
}

/// `/round/{round}.zip` with the round percent-encoded.
pub(crate) fn zip_link(round: &str) -> String {
    let mut out = String::from("/round/");
    for b in round.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out.push_str(".zip");
    out
}

/// `/api/rounds`: each round with its games, finished games and zip link.
pub(crate) fn rounds_value(src: &Sources) -> Value {
    Value::Array(
        rounds(src)
            .into_iter()
            .map(|(round, games, finished)| {
                let zip = zip_link(&round);
                json!({"round": round, "games": games, "finished": finished, "zip": zip})
            })
            .collect(),
    )
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The `/rounds` page, its words as `render` says.
pub(crate) fn rounds_html(src: &Sources, render: Render) -> String {
    let t = |id: &str| tengen_l10n::html_escape(&tengen_l10n::text(render.lang, id, &[]));
    let rows: String = rounds(src)
        .into_iter()
        .map(|(round, games, finished)| {
            format!(
                "<tr><td>{r}</td><td>{games}</td><td>{finished}</td>\
                 <td><a href=\"{link}\">round-{file}.zip</a></td></tr>\n",
                r = escape(&round),
                link = escape(&zip_link(&round)),
                file = sanitize(&round),
            )
        })
        .collect();
    let body = if rows.is_empty() {
        format!("<p>{}</p>", t("rounds-none"))
    } else {
        format!(
            "<table>\n<tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th></tr>\n{rows}</table>",
            t("rounds-round"),
            t("rounds-games"),
            t("rounds-finished"),
            t("rounds-records"),
        )
    };
    // The frame goes through the renderer (language and switch); the rows, with their
    // round names from outside, are put in after it, so that no `{{` of theirs is read.
    let frame = render.page(
        "<!doctype html>\n<html lang=\"{{lang}}\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{{t:rounds-title}}</title><style>body{font-family:sans-serif;margin:1em}\
         td,th{padding:.2em .8em;text-align:left}</style></head>\n<body>\
         <h1>{{t:rounds-title}}</h1>\n@BODY@\n<p><a href=\"/\">{{t:rounds-all-boards}}</a></p>\n\
         {{lang-switch}}\n</body></html>\n",
    );
    frame.replacen("@BODY@", &body, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(over: bool, superseded: bool, last_ms: u64) -> GameInfo {
        GameInfo {
            key: BoardKey::new("t", "b1").unwrap(),
            game: "g1".into(),
            round: "1".into(),
            over,
            last_time: Some(Timestamp::from_millis(last_ms)),
            superseded,
            held: (1, 1),
            voided: false,
        }
    }

    #[test]
    fn what_the_public_may_have_whole() {
        let now = Timestamp::from_millis(1_000_000);
        let policy = |release_at_end: bool, window_ms: u64| DelayPolicy {
            moves: 10,
            window_ms,
            release_at_end,
        };
        assert!(released(&info(false, false, 0), None, now), "no delay");
        assert!(released(&info(true, false, 0), Some(&policy(true, 0)), now));
        assert!(!released(
            &info(false, false, 0),
            Some(&policy(true, 0)),
            now
        ));
        assert!(!released(
            &info(true, false, 0),
            Some(&policy(false, 0)),
            now
        ));
        // The board has moved on: the moves rule lets it out, the minutes rule once its
        // last event is old enough.
        assert!(released(&info(true, true, 0), Some(&policy(false, 0)), now));
        assert!(released(
            &info(false, true, 400_000),
            Some(&policy(false, 600_000)),
            now
        ));
        assert!(!released(
            &info(false, true, 400_001),
            Some(&policy(false, 600_000)),
            now
        ));
    }

    #[test]
    fn a_zip_record_says_whose_it_is_and_the_confirmed_result() {
        let key = BoardKey::new("cup", "hall1-03").unwrap();
        let board_sgf = "(;FF[4]GM[1]SZ[19]PB[A]PW[B]RE[W+F]GN[r1-t3]TENGENBOARD[forged]\
                         ;B[pd];W[dp])";
        let plain = tengen_rules::sgf::parse(&zip_record(board_sgf, &key, None).0).unwrap();
        let root = |r: &tengen_rules::sgf::GameRecord, ident: &str| -> Vec<String> {
            r.extra_root
                .iter()
                .filter(|(i, _)| i == ident)
                .map(|(_, v)| v.clone())
                .collect()
        };
        assert_eq!(
            root(&plain, "TENGENBOARD"),
            ["hall1-03"],
            "the hall's, not the record's"
        );
        assert_eq!(root(&plain, "TENGENTOURNAMENT"), ["cup"]);
        assert_eq!(plain.result.as_deref(), Some("W+F"));
        assert!(root(&plain, "TENGENRESULT").is_empty());
        assert_eq!(plain.moves.len(), 2);
        // The arbiter gave Black the win (the second warning was a wrong confirm).
        let fixed =
            tengen_rules::sgf::parse(&zip_record(board_sgf, &key, Some(GameResult::BlackWins)).0)
                .unwrap();
        assert_eq!(fixed.result.as_deref(), Some("B+"));
        assert_eq!(root(&fixed, "TENGENRESULT"), ["RESULT_BLACKWINS"]);
        assert_eq!(root(&fixed, "GN"), ["r1-t3"]);
    }

    #[test]
    fn links_are_encoded() {
        assert_eq!(zip_link("3"), "/round/3.zip");
        assert_eq!(zip_link("a b/c"), "/round/a%20b%2Fc.zip");
    }
}
