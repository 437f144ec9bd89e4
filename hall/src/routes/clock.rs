//! The players' clock of each board, served by the hall (docs/mqtt-http.md, "HTTP": `/clock`): the
//! tablet page, the two faces as PNG and their `face` events, exactly as a board serves
//! them ([`tengen_net::clock_view`]), drawn by the displays' one pure function
//! ([`tengen_table::render`]) from the hall's fold of the board's events. A tablet beside a
//! board reaches the hall, where a board's own `/clock` stays on its loopback.
//!
//! Which fold, and who may see the live one (docs/operating.md, "The players' clock on a
//! tablet"): the players need the live time, and under a broadcast delay the public must
//! not see a move (nor its time, nor the move number) before the delay releases it.
//!
//! - `/board/{t}/{b}/clock`: the public fold, as late as the public pages; without a
//!   broadcast delay that is the live game.
//! - `/board/{t}/{b}/clock?key=K`: the live fold, for the tablet at that table. `K` is the
//!   board's clock key ([`ClockKeys`]); a wrong one is refused (403), never served the
//!   public clock instead, so a tablet set up wrong says so at once.
//! - `/console/board/{t}/{b}/clock`: the live fold, arbiters only;
//!   `/console/board/{t}/{b}/clock-link` sends an arbiter to the tablet's link (with its
//!   key under a delay), which the arbiters' board page offers.
//! - `/commentary/board/{t}/{b}/clock`: what the commentary pages show, live in a closed
//!   commentary room, else the public fold.
//!
//! Faces are drawn ten times a second for each board and fold someone is watching, by one
//! task per board and fold that ends when its last viewer has gone.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Path, Query, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::{Extension, Router};
use ring::hmac;
use subtle::ConstantTimeEq;
use tokio::sync::watch;

use tengen_net::clock_view;
use tengen_protocol::topics::BoardKey;
use tengen_protocol::Timestamp;
use tengen_table::PlayerFaces;

use crate::boards::hall_state::{lock, Shared};
use crate::routes::console_gate::{Arbiter, Commentator};
use crate::routes::{board_key, no_such_board, serve_at, App};
use crate::wall_clock;

/// How often the faces of a watched board are drawn again: ten times a second, as the
/// displays redraw (tenths of a second under 10 s).
const REDRAW: Duration = Duration::from_millis(100);

/// Hex digits of a board's clock key (96 bits).
const KEY_HEX: usize = 24;

/// Which fold of a board the faces are drawn from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Fold {
    /// Every event as the board sent it.
    Live,
    /// What the public has seen (behind the broadcast delay, if any).
    Public,
}

/// The hall's key to each board's live clock: the first [`KEY_HEX`] hex digits of
/// HMAC-SHA256 over `tengen clock {tournament}/{board}`, keyed with the boards' command
/// key (`hall.command_key_file`), so a board's link stays the same across restarts, or
/// with a random key of this run without one (then every link changes when the hall
/// restarts). Knowing one board's key tells nothing of another's, nor of the command key.
#[derive(Clone)]
pub(crate) struct ClockKeys {
    key: hmac::Key,
    /// Whether the key comes from the command key (the links survive a restart).
    lasting: bool,
}

impl ClockKeys {
    /// Keys made with `command_key` (`hall.command_key_file`), or with a random key.
    pub(crate) fn new(command_key: Option<&[u8]>) -> ClockKeys {
        match command_key {
            Some(k) => ClockKeys {
                key: hmac::Key::new(hmac::HMAC_SHA256, k),
                lasting: true,
            },
            None => {
                let random: [u8; 32] = rand::Rng::random(&mut rand::rng());
                ClockKeys {
                    key: hmac::Key::new(hmac::HMAC_SHA256, &random),
                    lasting: false,
                }
            }
        }
    }

    /// Board `board`'s clock key.
    pub(crate) fn of(&self, board: &BoardKey) -> String {
        let tag = hmac::sign(
            &self.key,
            format!("tengen clock {}/{}", board.tournament, board.board).as_bytes(),
        );
        tag.as_ref()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
            .chars()
            .take(KEY_HEX)
            .collect()
    }

    /// Whether `given` is board `board`'s clock key (compared in constant time).
    fn opens(&self, board: &BoardKey, given: &str) -> bool {
        let want = self.of(board);
        given.len() == want.len() && bool::from(want.as_bytes().ct_eq(given.as_bytes()))
    }
}

/// The instant the live faces are drawn at: now on the hall's clock, or later where the
/// board's clock runs ahead of the hall's: the board's last event time run on by the time
/// since the hall heard the board's `state` after it (`heard_ago`), as the live page
/// counts. So the players' time never runs backwards, nor stands still, on a board whose
/// clock is ahead.
fn live_instant(
    last_event: Option<Timestamp>,
    heard_ago: Option<Duration>,
    wall_ms: u64,
) -> Timestamp {
    let board = match (last_event, heard_ago) {
        (Some(t), Some(ago)) => t.millis().saturating_add(ms(ago)),
        (Some(t), None) => t.millis(),
        (None, _) => 0,
    };
    Timestamp::from_millis(board.max(wall_ms))
}

/// A duration in whole ms.
fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The instant the public faces are drawn at under a broadcast delay: the time of the last
/// event the delay released, run on by the time since it was released, as the public pages
/// count the running clock. So the public clock never shows a press before the delay
/// releases it.
fn public_instant(
    last_event: Option<Timestamp>,
    released_ago: Duration,
    wall_ms: u64,
) -> Timestamp {
    match last_event {
        Some(t) => Timestamp::from_millis(t.millis().saturating_add(ms(released_ago))),
        None => Timestamp::from_millis(wall_ms),
    }
}

/// Both faces of board `key` now, from `fold`; `None` for a board the hall has not heard
/// of.
fn faces_now(hall: &Shared, key: &BoardKey, fold: Fold, wall_ms: u64) -> Option<PlayerFaces> {
    let h = lock(hall);
    let board = h.board_view(key)?;
    let faces = if fold == Fold::Public && h.is_delayed() {
        let view = board.public_view();
        let (_, released_ago) = board.public_feed().state_with_age();
        PlayerFaces::of(
            view,
            public_instant(view.last_time(), released_ago, wall_ms),
        )
    } else {
        let view = board.live_view();
        let (state, heard_ago) = board.feed().state_with_age();
        let heard_ago = (!state.is_null()).then_some(heard_ago);
        PlayerFaces::of(view, live_instant(view.last_time(), heard_ago, wall_ms))
    };
    Some(faces)
}

/// Where a watched board's faces are sent, by board and fold.
type Watched = HashMap<(BoardKey, Fold), Arc<watch::Sender<PlayerFaces>>>;

/// The faces of every board and fold being watched, each drawn by its own task.
#[derive(Clone, Default)]
struct Tickers {
    watched: Arc<Mutex<Watched>>,
}

impl Tickers {
    /// The faces of board `key` from `fold`, drawn now and then ten times a second while
    /// the receiver (or another of the same board and fold) is kept; `None` for a board
    /// the hall has not heard of.
    fn watch(
        &self,
        hall: &Shared,
        key: &BoardKey,
        fold: Fold,
    ) -> Option<watch::Receiver<PlayerFaces>> {
        let mut watched = self.watched.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(tx) = watched.get(&(key.clone(), fold)) {
            return Some(tx.subscribe());
        }
        let faces = faces_now(hall, key, fold, wall_clock::wall_ms())?;
        let (tx, rx) = watch::channel(faces);
        let tx = Arc::new(tx);
        watched.insert((key.clone(), fold), tx.clone());
        tokio::spawn(self.clone().draw(hall.clone(), key.clone(), fold, tx));
        Some(rx)
    }

    /// Draws board `key`'s faces every [`REDRAW`] and sends them when they changed, until
    /// nobody watches.
    async fn draw(
        self,
        hall: Shared,
        key: BoardKey,
        fold: Fold,
        tx: Arc<watch::Sender<PlayerFaces>>,
    ) {
        let mut every = tokio::time::interval(REDRAW);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            every.tick().await;
            {
                // Under the map's lock: a viewer who comes now either finds this task
                // still listed (and is counted) or starts a new one.
                let mut watched = self.watched.lock().unwrap_or_else(|p| p.into_inner());
                if tx.receiver_count() == 0 {
                    watched.remove(&(key, fold));
                    return;
                }
            }
            if let Some(faces) = faces_now(&hall, &key, fold, wall_clock::wall_ms()) {
                tx.send_if_modified(|shown| {
                    let changed = *shown != faces;
                    if changed {
                        *shown = faces;
                    }
                    changed
                });
            }
        }
    }

    /// How many boards and folds are being drawn.
    #[cfg(test)]
    fn drawing(&self) -> usize {
        self.watched.lock().unwrap_or_else(|p| p.into_inner()).len()
    }
}

/// What the clock routes share beside the [`App`].
#[derive(Clone)]
struct ClockShared {
    keys: ClockKeys,
    tickers: Tickers,
}

/// The clock routes of every board (see the module documentation), with `keys` to the
/// live clocks.
pub(crate) fn routes(keys: ClockKeys) -> Router<App> {
    Router::new()
        .route("/board/{tournament}/{board}/clock", get(public_clock))
        .route(
            "/board/{tournament}/{board}/clock/{*rest}",
            get(public_clock),
        )
        .route(
            "/console/board/{tournament}/{board}/clock",
            get(console_clock),
        )
        .route(
            "/console/board/{tournament}/{board}/clock/{*rest}",
            get(console_clock),
        )
        .route(
            "/console/board/{tournament}/{board}/clock-link",
            get(clock_link),
        )
        .route(
            "/commentary/board/{tournament}/{board}/clock",
            get(commentary_clock),
        )
        .route(
            "/commentary/board/{tournament}/{board}/clock/{*rest}",
            get(commentary_clock),
        )
        .layer(Extension(ClockShared {
            keys,
            tickers: Tickers::default(),
        }))
}

/// Serves `req` from the clock router on board `params`' faces from `fold`, with
/// `/clock` and what follows it in the path as its own.
async fn serve(
    app: &App,
    shared: &ClockShared,
    params: &HashMap<String, String>,
    fold: Fold,
    req: Request,
) -> Response {
    let faces = board_key(params).and_then(|key| shared.tickers.watch(&app.hall, &key, fold));
    let Some(faces) = faces else {
        return no_such_board();
    };
    let path = match params.get("rest") {
        Some(rest) => format!("/clock/{rest}"),
        None => "/clock".to_string(),
    };
    // The hall does not know where each board's Black sits: the default (south), and the
    // page's `?flip` for the others.
    serve_at(clock_view::router(faces, false, app.lang), &path, req).await
}

/// `/board/{t}/{b}/clock[/...]`: the public clock, or the live one with the board's key.
async fn public_clock(
    State(app): State<App>,
    Extension(shared): Extension<ClockShared>,
    Path(params): Path<HashMap<String, String>>,
    Query(query): Query<HashMap<String, String>>,
    req: Request,
) -> Response {
    let fold = match (query.get("key"), board_key(&params)) {
        (None, _) => Fold::Public,
        (Some(given), Some(key)) if shared.keys.opens(&key, given) => Fold::Live,
        (Some(_), _) => {
            return (
                StatusCode::FORBIDDEN,
                "this key does not open this board's live clock: ask an arbiter for the \
                 tablet's link (the board's page in the console has it)\n",
            )
                .into_response()
        }
    };
    serve(&app, &shared, &params, fold, req).await
}

/// `/console/board/{t}/{b}/clock[/...]`: the live clock, for arbiters.
async fn console_clock(
    State(app): State<App>,
    _: Arbiter,
    Extension(shared): Extension<ClockShared>,
    Path(params): Path<HashMap<String, String>>,
    req: Request,
) -> Response {
    serve(&app, &shared, &params, Fold::Live, req).await
}

/// `/console/board/{t}/{b}/clock-link`: for an arbiter, to the link a tablet at that table
/// opens: the public clock when it is live (no broadcast delay), else the live clock with
/// the board's key.
async fn clock_link(
    State(app): State<App>,
    _: Arbiter,
    Extension(shared): Extension<ClockShared>,
    Path((t, b)): Path<(String, String)>,
) -> Response {
    let Some(key) = BoardKey::new(&t, &b).filter(|k| lock(&app.hall).board_view(k).is_some())
    else {
        return no_such_board();
    };
    let page = format!("/board/{}/{}/clock", key.tournament, key.board);
    if !lock(&app.hall).is_delayed() {
        return Redirect::to(&page).into_response();
    }
    if !shared.keys.lasting {
        tracing::info!(
            "clock link of {}/{}: without hall.command_key_file the link changes when the \
             hall restarts",
            key.tournament,
            key.board
        );
    }
    Redirect::to(&format!("{page}?key={}", shared.keys.of(&key))).into_response()
}

/// `/commentary/board/{t}/{b}/clock[/...]`: the clock as the commentary pages show the
/// board (live in a closed room, else as the public sees it).
async fn commentary_clock(
    State(app): State<App>,
    _: Commentator,
    Extension(shared): Extension<ClockShared>,
    Path(params): Path<HashMap<String, String>>,
    req: Request,
) -> Response {
    let fold = if app.commentary_live {
        Fold::Live
    } else {
        Fold::Public
    };
    serve(&app, &shared, &params, fold, req).await
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use tengen_protocol::Event;
    use tengen_table::face::Screen;

    use super::*;
    use crate::boards::hall_state::HallState;
    use crate::test_support::{env, game_started, mv, T0};

    fn board() -> BoardKey {
        BoardKey::new("t", "b1").unwrap()
    }

    /// A hall that heard board `t/b1`'s game of three moves (no clock: the faces show the
    /// move number), with `broadcast` (a `[broadcast]` section, or none).
    fn hall(broadcast: &str) -> Shared {
        let config =
            crate::config::HallConfig::parse(broadcast, std::path::Path::new("hall.toml")).unwrap();
        let mut h = HallState::new("tengen", None).with_broadcast(config.broadcast.as_ref());
        let now = Instant::now();
        let events: [Event; 4] = [
            game_started(19, 0, "none"),
            mv(1, "Q16"),
            mv(2, "D4"),
            mv(3, "Q4"),
        ];
        for (seq, e) in events.into_iter().enumerate() {
            let payload = serde_json::to_vec(&env(seq as u64 + 1, e)).unwrap();
            h.on_message("tengen/t/b1/events", &payload, now);
            h.tick(now);
        }
        Arc::new(Mutex::new(h))
    }

    fn moves(faces: &PlayerFaces) -> u32 {
        match &faces.black.as_ref().unwrap().screen {
            Screen::Play(p) => p.moves,
            other => panic!("not a game: {other:?}"),
        }
    }

    /// Under a broadcast delay the public faces are the released game's (the move number
    /// two moves back: never ahead of the public pages), the live ones the board's.
    #[test]
    fn the_public_clock_is_as_late_as_the_public_pages() {
        let wall = T0.millis() + 60_000;
        let delayed = hall("[broadcast]\ndelay_moves = 2\n");
        assert_eq!(
            moves(&faces_now(&delayed, &board(), Fold::Live, wall).unwrap()),
            3
        );
        assert_eq!(
            moves(&faces_now(&delayed, &board(), Fold::Public, wall).unwrap()),
            1
        );
        let open = hall("");
        assert_eq!(
            moves(&faces_now(&open, &board(), Fold::Public, wall).unwrap()),
            3
        );
        let unknown = BoardKey::new("t", "b2").unwrap();
        assert_eq!(faces_now(&open, &unknown, Fold::Public, wall), None);
    }

    #[test]
    fn instants_of_the_live_and_the_public_clock() {
        let t = Timestamp::from_millis(1_000_000);
        let heard = Some(Duration::from_millis(200));
        // Boards and hall on one time: the hall's.
        assert_eq!(live_instant(Some(t), heard, 1_000_500).millis(), 1_000_500);
        // A board ahead of the hall's clock: its last event, run on since it was heard.
        assert_eq!(live_instant(Some(t), heard, 990_000).millis(), 1_000_200);
        assert_eq!(live_instant(Some(t), None, 990_000).millis(), 1_000_000);
        assert_eq!(live_instant(None, heard, 5).millis(), 5);
        // Released 3 s ago, whatever the wall clock says.
        let ago = Duration::from_secs(3);
        assert_eq!(public_instant(Some(t), ago, 9_999_999).millis(), 1_003_000);
        assert_eq!(public_instant(None, ago, 42).millis(), 42);
    }

    #[test]
    fn a_clock_key_opens_its_own_board_only() {
        let keys = ClockKeys::new(Some(b"the boards' command key"));
        let b1 = board();
        let b2 = BoardKey::new("t", "b2").unwrap();
        let k1 = keys.of(&b1);
        assert_eq!(k1.len(), KEY_HEX);
        assert!(k1.chars().all(|c| c.is_ascii_hexdigit()));
        assert!(keys.opens(&b1, &k1));
        assert!(!keys.opens(&b2, &k1));
        assert!(!keys.opens(&b1, &k1[..KEY_HEX - 1]));
        assert!(!keys.opens(&b1, ""));
        assert!(!keys.opens(&b1, &format!("{k1}0")));
        // The same command key, the same links after a restart; a random one, not.
        assert_eq!(ClockKeys::new(Some(b"the boards' command key")).of(&b1), k1);
        assert_ne!(ClockKeys::new(None).of(&b1), ClockKeys::new(None).of(&b1));
    }

    /// A watched board is drawn by one task whatever the number of viewers, and the task
    /// ends once the last viewer has gone.
    #[tokio::test]
    async fn faces_are_drawn_while_someone_watches() {
        let hall = hall("");
        let tickers = Tickers::default();
        let a = tickers.watch(&hall, &board(), Fold::Live).unwrap();
        let b = tickers.watch(&hall, &board(), Fold::Live).unwrap();
        assert_eq!(moves(&a.borrow()), 3);
        assert_eq!(tickers.drawing(), 1);
        let unknown = BoardKey::new("t", "b2").unwrap();
        assert!(tickers.watch(&hall, &unknown, Fold::Live).is_none());
        drop((a, b));
        let start = Instant::now();
        while tickers.drawing() > 0 {
            assert!(start.elapsed() < Duration::from_secs(5), "the task ends");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}
