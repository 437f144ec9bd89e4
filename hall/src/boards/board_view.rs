//! One board as the hall sees it: the live feed its page is served from (events in `seq`
//! order, state, SGF), its online/offline status, its open alerts and its hardware trouble,
//! all rebuilt from what the broker delivers; and the same board as everyone but the
//! arbiters sees it: without `alert`, `alert_cleared` and `sensor_fault` (issue 34), behind
//! the broadcast delay for the public. Sans-IO: time comes in as an argument.
//!
//! The folds of the board's events are the protocol's [`GameView`]: one of the live
//! stream (its standing `sensor_fault`s are the console's hardware list), one of the
//! events released to the public (the public `state` and SGF), and, under a delay with
//! live commentary (`[hall] commentary = "live"`), one of the live stream for the
//! commentators.
//!
//! History. A hall that starts after a board has begun its game has only the retained
//! topics. With an identity to sign commands, it asks the board to `republish` from
//! `seq` 1 and holds the events back until it has the current game's `game_started` and
//! every event after it; then the feed gets them in order. Without an identity, or when the
//! board does not answer within [`HISTORY_WAIT`], the feed gets what has arrived, in
//! order, and follows live from there.
//!
//! Gaps. Once live, the feed takes each event only after the one before it: an event
//! beyond a missing `seq` (lost by a broker that restarted, or while the hall was away) is
//! held, and the hall asks for what is missing ([`Need::Gap`]), by `republish` from that
//! `seq`. A hall that may not ask, or whose board does not answer within
//! [`HISTORY_WAIT`], follows on past the gap, as before. A venue's hall is *patient*
//! ([`BoardView::patient`]): it asks again, waiting longer each time and not while the
//! answer is still arriving, and gives up only after [`PATIENT_ASKS`] unanswered asks, since
//! what it gives up its hub skips too. A hub's boards are *strict*
//! ([`BoardView::strict`]): the hub asks the board's venue instead of the board, asks again
//! until it answers, and goes past a missing `seq` only on the venue's word that it holds
//! nothing there ([`BoardView::filled`]), so that the hub holds what the venue holds,
//! event for event (`hall/src/venues/`).

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tengen_net::live_view::LiveFeed;
use tengen_protocol::active_alerts::ActiveAlert;
use tengen_protocol::event::BoardState;
use tengen_protocol::view::{ClocksNow, FaultReport, Phase, StateSnapshot};
use tengen_protocol::{Envelope, Event, GameView, PerColor, Timestamp};
use tengen_rules::Color;

use crate::boards::broadcast_delay::DelayQueue;
use crate::boards::labels;
use crate::config::DelayPolicy;

/// How long the hall holds a board's events back while waiting for the republished history.
pub(crate) const HISTORY_WAIT: Duration = Duration::from_secs(5);

/// How often a strict board (a hub's) asks its venue again for what is still missing.
pub(crate) const ASK_AGAIN_EVERY: Duration = Duration::from_secs(3);

/// The longest a patient board ([`BoardView::patient`]) waits between two asks.
const PATIENT_WAIT_MAX: Duration = Duration::from_secs(60);

/// How many times a patient board asks in a row without any of what it asked for
/// arriving before it follows on without it (about 7 minutes of asking).
const PATIENT_ASKS: u32 = 10;

/// What the hall knows of one board.
pub(crate) struct BoardView {
    feed: LiveFeed,
    /// The fold of the events the live feed took, in `seq` order, each once.
    live: GameView,
    status: Option<BoardState>,
    state_at: Option<Instant>,
    /// When the hall last heard anything from the board (its heartbeat `status` every 5
    /// seconds, events, state): the fleet watch's sign of life.
    last_heard: Option<Instant>,
    /// The current game's phase (`playing`, `counting`, `over`), from the newest `state`
    /// or the live fold.
    phase: Option<&'static str>,
    alerts: Vec<ActiveAlert>,
    alert_seen: HashMap<String, u64>,
    round: String,
    game: String,
    history: History,
    /// The board as the public sees it: behind the delay (`delayed`), else as it happens;
    /// never with the arbiters' events.
    public: PublicSide,
    /// Whether `public` lags behind under a broadcast delay.
    delayed: bool,
    /// The board as live commentators see it under a delay: live, without the arbiters'
    /// events (`None`: the commentators see `public`).
    commentary: Option<PublicSide>,
    /// The events followed since the last [`BoardView::take_followed`], when the hall keeps
    /// an archive (`None`: it does not, and nothing is kept).
    followed: Option<Vec<Envelope>>,
    /// Counts the changes that can change the board's summary.
    version: u64,
    /// The `seq` of the board's `state` that last disagreed with the hall's own fold (logged
    /// once until they agree again).
    disagreed: Option<u64>,
    /// The board's own `state` (its fold of its journal), read once into the typed
    /// snapshot: the check on the hall's fold, and what the pages show only while the hall
    /// has no fold of the current game (its history not in yet).
    board_state: Option<StateSnapshot>,
    /// The public summary without its two time fields, serialised, and the `version` it is
    /// of: the overview (`/api/boards`, once a second) rebuilds only the boards that changed.
    summary_json: Option<(u64, String)>,
    /// How the current game last ended, as followed live (its last `game_over`).
    ending: Option<Ending>,
    /// Whether the hall has said it cut this board's labels ([`labels`]).
    labels_cut: bool,
}

/// How a game ended (its last `game_over`): for the Round view, which tells a correction
/// (an arbiter's result after the confirmation) from a board result that merely differs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Ending {
    /// The game id.
    pub(crate) game: String,
    /// The result, SGF form.
    pub(crate) result: String,
    /// The arbiter whose command ended it (`set_result`, `resign`, a second warning),
    /// none when the board ended it (a count, a gesture).
    pub(crate) by: Option<String>,
    /// The `game_over`'s `seq`.
    pub(crate) seq: u64,
}

/// The board as someone who is not an arbiter sees it: the events not yet released (a
/// broadcast delay holds them back; without one each is released at once), the fold of
/// those that are, and the feed their pages are served from, which never carries an
/// `alert`, `alert_cleared` or `sensor_fault`.
struct PublicSide {
    /// The last live `seq` taken into `queue`.
    taken: u64,
    queue: DelayQueue,
    /// Every released event, private ones included (they only move `seq` on: the public
    /// snapshot has no alerts and the public SGF no comments).
    view: GameView,
    feed: LiveFeed,
    state_at: Option<Instant>,
}

impl PublicSide {
    fn new() -> PublicSide {
        PublicSide {
            taken: 0,
            queue: DelayQueue::default(),
            view: GameView::new(),
            feed: LiveFeed::new(),
            state_at: None,
        }
    }

    /// Takes what `live` got since the last call into the queue, releases what `policy`
    /// lets out at `wall`, and returns the released events that are not private.
    fn release(
        &mut self,
        live: &LiveFeed,
        policy: &DelayPolicy,
        now: Instant,
        wall: Timestamp,
    ) -> Vec<Envelope> {
        for e in live.events_after(self.taken) {
            self.taken = e.seq;
            self.queue.push(e, wall);
        }
        let released = self.queue.release(wall, policy);
        if released.is_empty() {
            return released;
        }
        for e in &released {
            if let Err(err) = self.view.apply_envelope(e) {
                tracing::debug!("{} public view, seq {}: {err}", e.board, e.seq);
            }
        }
        let public: Vec<Envelope> = released
            .into_iter()
            .filter(|e| !e.event.is_private())
            .collect();
        for e in &public {
            self.feed.publish(e.clone());
        }
        // A fold without its game (a hall that could not get the history) keeps the
        // board's own state, shown by `show_retained`.
        if self.view.setup().is_some() {
            let at = self.view.last_time().unwrap_or(wall);
            self.feed.set_snapshot(self.view.public_snapshot(at));
            self.feed.set_sgf(self.view.sgf(false));
        }
        self.state_at = Some(now);
        public
    }

    /// Shows the board's own `state` (alerts taken out) and SGF (comments taken out) while
    /// this side has no fold of the game.
    fn show_retained(&mut self, state: Option<&StateSnapshot>, sgf: Option<&str>, now: Instant) {
        if self.view.setup().is_some() {
            return;
        }
        if let Some(s) = state {
            let mut s = s.clone();
            s.alerts.clear();
            self.feed.set_snapshot(Some(s));
            self.state_at = Some(now);
        }
        if let Some(sgf) = sgf {
            self.feed.set_sgf(without_comments(sgf));
        }
    }
}

/// `sgf` with no comment on any move (the board's own record carries its alerts as
/// comments): as it is when it has none, written again without them when it has, empty if
/// it cannot be read.
fn without_comments(sgf: &str) -> String {
    match tengen_rules::sgf::parse(sgf) {
        Ok(record) if record.moves.iter().all(|m| m.comment.is_none()) => sgf.to_string(),
        Ok(mut record) => {
            for m in &mut record.moves {
                m.comment = None;
            }
            tengen_rules::sgf::write(&record)
        }
        Err(_) => String::new(),
    }
}

/// Who a board's summary (`/api/boards` and its kin) is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Audience {
    /// The public: the public side, no alerts.
    Public,
    /// Commentators in a closed room (`[hall] commentary = "live"`): live, no alerts.
    Commentators,
    /// Arbiters: live, with the open alerts counted.
    Arbiters,
}

/// The board's events before the feed follows them live, and those held beyond a gap.
#[derive(Default)]
struct History {
    live: bool,
    /// Before `live`: the events heard so far. After: those beyond a missing `seq`.
    held: BTreeMap<u64, Envelope>,
    asked_at: Option<Instant>,
    /// The board refused the request for now (another consumer asked just before): ask
    /// again at this time.
    again_at: Option<Instant>,
    /// How many times it was asked again.
    asked_again: u32,
    /// When the missing events of a gap (or a known tail) were last asked for.
    gap_asked_at: Option<Instant>,
    /// The newest `seq` the board is known to have (its `state`, a venue's heads).
    head: u64,
    /// Every `seq` up to this one that the feed does not hold is given up for good: the
    /// venue holds nothing there, or the board never answered.
    floor: u64,
    /// The hall's side of a hub: ask until answered, skip only on the venue's word.
    strict: bool,
    /// A venue's hall: ask the board again, waiting longer each time, while what it asked
    /// for is not arriving; give up only after [`PATIENT_ASKS`] asks with nothing.
    patient: bool,
    /// How many asks in a row went without any of the missing events arriving.
    unanswered: u32,
    /// When the last of the events waited for arrived (held, or taken by the feed).
    progress_at: Option<Instant>,
}

impl History {
    /// A patient board's wait before asking again: [`HISTORY_WAIT`] after the first ask,
    /// twice as long after each unanswered one, at most [`PATIENT_WAIT_MAX`]; counted from
    /// the ask or from the last event that arrived, whichever is later (a history that is
    /// still flowing in, after a restart with hundreds of boards answering at once, is not
    /// asked for again).
    fn patient_due(&self, asked_at: Instant, now: Instant) -> bool {
        let wait = HISTORY_WAIT
            .saturating_mul(1 << self.unanswered.min(6))
            .min(PATIENT_WAIT_MAX);
        let since = self.progress_at.map_or(asked_at, |p| p.max(asked_at));
        now.saturating_duration_since(since) >= wait
    }
}

/// What the hall reads of any `state` payload, a whole snapshot or not.
#[derive(Debug, Default, Deserialize)]
struct StateHead {
    #[serde(default)]
    seq: u64,
    #[serde(default)]
    game_id: Option<String>,
    #[serde(default)]
    round: Option<String>,
    #[serde(default)]
    phase: Option<String>,
    #[serde(default)]
    board_id: Option<String>,
}

impl StateHead {
    fn of(s: &StateSnapshot) -> StateHead {
        StateHead {
            seq: s.seq,
            game_id: Some(s.game_id.clone()),
            round: Some(s.round.clone()),
            phase: Some(s.phase.as_str().to_string()),
            board_id: Some(s.board_id.clone()),
        }
    }
}

/// A board's card on the overview and the consoles (`/api/boards`), without its two ages.
#[derive(Serialize)]
struct Summary<'a> {
    tournament: &'a str,
    board: &'a str,
    url: String,
    status: Option<&'a str>,
    game: Option<&'a str>,
    round: Option<&'a str>,
    table: Option<&'a str>,
    black: Option<&'a str>,
    white: Option<&'a str>,
    black_rank: Option<&'a str>,
    white_rank: Option<&'a str>,
    time_control: Option<String>,
    size: Option<u8>,
    position: Option<&'a str>,
    to_move: Option<Color>,
    number: Option<u32>,
    phase: Option<&'static str>,
    captured: Option<&'a PerColor<u32>>,
    clocks: Option<&'a ClocksNow>,
    warnings: Option<&'a PerColor<u32>>,
    result: Option<&'a str>,
    open_alerts: Option<usize>,
    seq: Option<u64>,
    /// The game was voided (the arbiters' summaries only: a public one shows no game).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    voided: bool,
}

/// What a venue's hall answers its hub for one board ([`BoardView::answer`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Answer {
    /// The first `seq` the answer speaks for.
    pub(crate) from: u64,
    /// The last (below `from` when the venue holds nothing there yet).
    pub(crate) to: u64,
    /// Every event the venue holds from `from` to `to`, in order.
    pub(crate) events: Vec<Envelope>,
    /// The `seq` the board should republish from, when the hub asked for events before the
    /// first the venue's feed holds.
    pub(crate) republish_from: Option<u64>,
}

/// How many times the hall asks a board again for its history after a refusal for now.
const ASK_AGAIN: u32 = 3;

/// What the board wants the hall to do after a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Need {
    /// Nothing.
    Nothing,
    /// Send `republish` with `from_seq` 1 (the history is missing).
    History,
    /// The events from this `seq` on are missing (later ones are held, or the board is
    /// known to be further on): send `republish` from it.
    Gap(u64),
}

impl BoardView {
    /// A board not heard from yet.
    pub(crate) fn new() -> BoardView {
        BoardView {
            feed: LiveFeed::new(),
            live: GameView::new(),
            status: None,
            state_at: None,
            last_heard: None,
            phase: None,
            alerts: Vec::new(),
            alert_seen: HashMap::new(),
            round: String::new(),
            game: String::new(),
            history: History::default(),
            public: PublicSide::new(),
            delayed: false,
            commentary: None,
            followed: None,
            version: 0,
            summary_json: None,
            disagreed: None,
            board_state: None,
            ending: None,
            labels_cut: false,
        }
    }

    /// The same board, keeping the events it follows for the archive
    /// ([`BoardView::take_followed`]).
    pub(crate) fn archived(mut self) -> BoardView {
        self.followed = Some(Vec::new());
        self
    }

    /// The events the live fold took since the last call, in `seq` order, each once (empty
    /// unless [`BoardView::archived`]).
    pub(crate) fn take_followed(&mut self) -> Vec<Envelope> {
        self.followed
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// The same board followed strictly, as a hub follows its venues' boards: its
    /// history and gaps are asked for until answered, and a missing `seq` is gone past
    /// only on the venue's word ([`BoardView::filled`]).
    pub(crate) fn strict(mut self) -> BoardView {
        self.history.strict = true;
        self
    }

    /// The same board followed patiently, as a venue's hall follows its boards (its hub
    /// holds what it holds, and skips only what it gives up): a history or a gap that does
    /// not come is asked for again, waiting longer each time, and given up only after
    /// [`PATIENT_ASKS`] asks with none of it arriving, never while it is flowing in.
    pub(crate) fn patient(mut self) -> BoardView {
        self.history.patient = true;
        self
    }

    /// A board whose public pages lag behind under a broadcast delay (see
    /// [`BoardView::release`]); without one, the public pages follow the live feed, its
    /// arbiters' events left out.
    pub(crate) fn delayed() -> BoardView {
        BoardView {
            delayed: true,
            ..BoardView::new()
        }
    }

    /// The same board with a live feed for commentators (`[hall] commentary = "live"`),
    /// its arbiters' events left out: a side of its own under a delay, else the public one.
    pub(crate) fn with_live_commentary(mut self) -> BoardView {
        if self.delayed {
            self.commentary = Some(PublicSide::new());
        }
        self
    }

    /// The feed the public pages are served from: behind the delay, or as it happens when
    /// the hall has none; never with an `alert`, `alert_cleared` or `sensor_fault`.
    pub(crate) fn public_feed(&self) -> &LiveFeed {
        &self.public.feed
    }

    /// The feed live commentators' pages are served from: live, without the arbiters'
    /// events.
    pub(crate) fn commentary_feed(&self) -> &LiveFeed {
        self.commentary
            .as_ref()
            .map_or(&self.public.feed, |c| &c.feed)
    }

    /// The fold of what the public has seen.
    pub(crate) fn public_view(&self) -> &GameView {
        &self.public.view
    }

    /// The fold of the live stream (what the arbiters and the players' live clock see).
    pub(crate) fn live_view(&self) -> &GameView {
        &self.live
    }

    /// Takes the events the live feed got since the last call into the delay, and releases
    /// what `policy` lets the public see at `wall` (`now` is the same moment on the
    /// monotonic clock; without a broadcast delay the hall passes the policy that holds
    /// nothing back). Returns the released public events (alerts and sensor faults are
    /// never public), oldest first. The commentators' side, if any, takes everything at
    /// once.
    ///
    /// The public `state` shows the clocks as the last released event left them (the
    /// pages count the running one down from the release, by `state_age_ms`).
    pub(crate) fn release(
        &mut self,
        policy: &DelayPolicy,
        now: Instant,
        wall: Timestamp,
    ) -> Vec<Envelope> {
        if let Some(c) = self.commentary.as_mut() {
            c.release(&self.feed, &DelayPolicy::default(), now, wall);
        }
        let taken = self.public.taken;
        let public = self.public.release(&self.feed, policy, now, wall);
        if self.public.taken != taken || !public.is_empty() {
            self.version += 1;
        }
        public
    }

    /// The feed the board's pages are served from.
    pub(crate) fn feed(&self) -> &LiveFeed {
        &self.feed
    }

    /// `f` of the board's live `state`, read in place: the hall's own fold of the events it
    /// followed, or, while it has no fold of the current game (its history not in yet, or
    /// a hall that may not ask for it), the board's own retained snapshot; `None` before
    /// any game.
    pub(crate) fn with_live<R>(&self, f: impl FnOnce(Option<&StateSnapshot>) -> R) -> R {
        self.feed.with_snapshot(f)
    }

    /// What the live feed shows now (see [`BoardView::with_live`]).
    fn live_snapshot(&self) -> Option<StateSnapshot> {
        let own = self
            .fold_shown()
            .then(|| self.live.last_time().and_then(|at| self.live.snapshot(at)))
            .flatten();
        own.or_else(|| self.board_state.clone())
    }

    /// True while the hall needs the board's own `state` and `sgf`: it has no fold of the
    /// current game to show (see [`BoardView::with_live`]).
    pub(crate) fn wants_snapshots(&self) -> bool {
        !self.fold_shown()
    }

    /// True when the live feed shows the hall's own fold: it follows the board live and
    /// holds a game from its start.
    fn fold_shown(&self) -> bool {
        self.history.live && self.live.game().is_some() && self.live.last_time().is_some()
    }

    /// Sets the live feed's `state` from [`BoardView::live_snapshot`], as of `now`; and,
    /// while the hall has no fold of the game, the live sides without the arbiters'
    /// events (the public one without a delay, the commentators') from the board's own.
    fn show_live(&mut self, now: Instant) {
        self.feed.set_snapshot(self.live_snapshot());
        if self.fold_shown() {
            self.feed.sgf_from_events();
        } else {
            self.show_retained(None, now);
        }
        self.state_at = Some(now);
    }

    /// How the current game last ended, as the hall followed it (none before its end, and
    /// when the hall has not followed its events).
    pub(crate) fn ending(&self) -> Option<&Ending> {
        self.ending.as_ref()
    }

    /// Shows the board's own `state` (and `sgf`, if given) on the sides that follow the
    /// board live without its arbiters' events: the public one without a delay, the
    /// commentators' under one.
    fn show_retained(&mut self, sgf: Option<&str>, now: Instant) {
        let state = self.board_state.as_ref();
        if !self.delayed {
            self.public.show_retained(state, sgf, now);
        }
        if let Some(c) = self.commentary.as_mut() {
            c.show_retained(state, sgf, now);
        }
    }

    /// The board's last `status` (`online`, `offline`, `restoring`), if heard.
    pub(crate) fn status(&self) -> Option<&'static str> {
        self.status.map(BoardState::as_str)
    }

    /// The board was heard from (any message of its own) at `now`.
    pub(crate) fn heard(&mut self, now: Instant) {
        self.last_heard = Some(now);
    }

    /// When the board was last heard from.
    pub(crate) fn last_heard(&self) -> Option<Instant> {
        self.last_heard
    }

    /// True when the board has a game set up that is not over: a board the fleet watch
    /// keeps an eye on, and that *pause all* reaches.
    pub(crate) fn in_play(&self) -> bool {
        !self.game.is_empty() && self.phase.is_some_and(|p| p != "over")
    }

    /// True when the board dropped off (its last will said `offline`) or has said nothing
    /// for `silence` at `now`.
    pub(crate) fn silent(&self, now: Instant, silence: Duration) -> bool {
        self.status == Some(BoardState::Offline)
            || self
                .last_heard
                .is_some_and(|t| now.saturating_duration_since(t) >= silence)
    }

    /// The round of the current game (from `state` or `game_started`), maybe empty.
    pub(crate) fn round(&self) -> &str {
        &self.round
    }

    /// The current game's id, maybe empty.
    pub(crate) fn game(&self) -> &str {
        &self.game
    }

    /// True once the feed follows the board's events live.
    #[cfg(test)]
    fn is_live(&self) -> bool {
        self.history.live
    }

    /// The open alerts (each an `alert` event), with the order in which the hall first saw
    /// each (larger is newer).
    pub(crate) fn alerts(&self) -> impl Iterator<Item = (&ActiveAlert, u64)> {
        self.alerts.iter().map(|a| {
            let seen = self.alert_seen.get(&a.alert.id).copied().unwrap_or(0);
            (a, seen)
        })
    }

    /// The board's standing hardware trouble, oldest first: a lost link until it is
    /// restored, the newest stuck or noisy sensors (the live fold's
    /// [`GameView::faults`]).
    pub(crate) fn hardware(&self) -> &[FaultReport] {
        self.live.faults()
    }

    /// A `.../state` payload. `can_ask`: the hall may send `republish`. Errors (and changes
    /// nothing) when the payload is not a JSON object.
    pub(crate) fn on_state(
        &mut self,
        payload: &[u8],
        now: Instant,
        can_ask: bool,
    ) -> Result<Need, serde_json::Error> {
        let (mut head, full) = match serde_json::from_slice::<StateSnapshot>(payload) {
            Ok(mut full) => {
                let cut = labels::bound_snapshot(&mut full);
                self.said_cut(cut, &full.board_id);
                (StateHead::of(&full), Some(full))
            }
            Err(_) => (serde_json::from_slice::<StateHead>(payload)?, None),
        };
        if let Some(r) = head.round.as_mut() {
            labels::bound(r, tengen_protocol::command::MAX_SHORT);
        }
        self.version += 1;
        let seq = head.seq;
        let game = head.game_id.as_deref().unwrap_or("");
        if seq < self.feed.last_seq() && !game.is_empty() && game != self.game {
            tracing::warn!(
                "{}: a new journal (state at seq {seq} after {}, game {game:?} after {:?}): \
                 following it",
                head.board_id.as_deref().unwrap_or("a board"),
                self.feed.last_seq(),
                self.game
            );
            self.restart_journal();
        }
        if let Some(r) = head.round {
            self.round = r;
        }
        if let Some(g) = head.game_id {
            self.game = g;
        }
        if let Some(p) = head.phase {
            self.phase = [Phase::Playing, Phase::Counting, Phase::Over]
                .into_iter()
                .map(Phase::as_str)
                .find(|known| *known == p);
        }
        self.board_state = full;
        self.check_state(seq);
        if !self.fold_shown() {
            self.show_live(now);
        }
        if seq > self.feed.last_seq() && !self.history.live {
            return Ok(self.missing(now, can_ask));
        }
        if self.history.live && can_ask {
            // Events the board published that never came (a broker restarted, the hall was
            // away): its state says it is further on.
            return Ok(self.head_seen(seq, now));
        }
        Ok(Need::Nothing)
    }

    /// The board is known to have published up to `seq` (its `state`; for a hub, its
    /// venue's heads): once live, what the feed lacks of it is asked for (once, then again
    /// by [`BoardView::tick`]); before, the history is.
    pub(crate) fn head_seen(&mut self, seq: u64, now: Instant) -> Need {
        let h = &mut self.history;
        h.head = h.head.max(seq);
        if !h.live {
            return self.missing(now, true);
        }
        let next = self.next_seq();
        if seq < next || !self.history.held.is_empty() {
            return Need::Nothing;
        }
        let h = &mut self.history;
        match h.gap_asked_at {
            // A patient board asks again on its own schedule ([`BoardView::tick`]).
            Some(_) if h.patient => Need::Nothing,
            Some(at) if now.saturating_duration_since(at) < ASK_AGAIN_EVERY => Need::Nothing,
            _ => {
                h.gap_asked_at = Some(now);
                Need::Gap(next)
            }
        }
    }

    /// The board's own `state` (its fold of its journal), read into the protocol's typed
    /// snapshot, against the hall's fold of the same events at the same `seq`: they must
    /// agree on the position, the move number, the side to move, the phase, the captures,
    /// the warnings and the result. A disagreement means the hall's view of the board is
    /// wrong (an event lost, or a board that folds differently): logged once, until they
    /// agree again.
    fn check_state(&mut self, seq: u64) {
        if !self.fold_shown() || self.live.seq() != seq || seq == 0 {
            return;
        }
        let Some(theirs) = &self.board_state else {
            if self.disagreed != Some(seq) {
                tracing::warn!(
                    "{}: its state at seq {seq} is not a whole snapshot",
                    self.game
                );
                self.disagreed = Some(seq);
            }
            return;
        };
        // The feed shows the hall's fold as of its last event, which is `seq`.
        let differs: Vec<&str> = self.feed.with_snapshot(|own| {
            let Some(own) = own else {
                return Vec::new();
            };
            [
                ("board", own.board != theirs.board),
                ("number", own.number != theirs.number),
                ("to_move", own.to_move != theirs.to_move),
                ("phase", own.phase != theirs.phase),
                ("captured", own.captured != theirs.captured),
                ("warnings", own.warnings != theirs.warnings),
                ("result", own.result != theirs.result),
            ]
            .into_iter()
            .filter_map(|(k, d)| d.then_some(k))
            .collect()
        });
        if differs.is_empty() {
            if self.disagreed.take().is_some() {
                tracing::info!(
                    "{}: the board's state and the hall's agree again",
                    self.game
                );
            }
        } else if self.disagreed.is_none() {
            tracing::warn!(
                "{}: the board's state at seq {seq} and the hall's fold of its events differ \
                 in {}: the pages show the hall's",
                self.game,
                differs.join(", ")
            );
            self.disagreed = Some(seq);
        }
    }

    /// A `.../sgf` payload: served only while the hall has no fold of the game (else the
    /// feed writes the SGF from the events it holds, as the board does from its journal).
    pub(crate) fn on_sgf(&mut self, sgf: &[u8], now: Instant) {
        if !self.fold_shown() {
            let sgf = String::from_utf8_lossy(sgf).into_owned();
            self.show_retained(Some(&sgf), now);
            self.feed.set_sgf(sgf);
        }
    }

    /// A `.../status` payload's `state` (`online`, `offline`, `restoring`).
    pub(crate) fn on_status(&mut self, state: BoardState) {
        self.version += 1;
        self.status = Some(state);
    }

    /// A `.../alerts/active` payload: the alerts open now. `order` numbers the message.
    pub(crate) fn on_alerts_active(&mut self, alerts: Vec<ActiveAlert>, order: u64) {
        self.version += 1;
        for a in &alerts {
            self.alert_seen.entry(a.alert.id.clone()).or_insert(order);
        }
        self.alert_seen
            .retain(|id, _| alerts.iter().any(|a| a.alert.id == *id));
        self.alerts = alerts;
    }

    /// True when `envelope` cannot be a copy of what the feed holds: the board came back
    /// with a new journal (a spare board, a re-flashed Pi), whose `seq` starts again.
    fn is_new_journal(&self, envelope: &Envelope) -> bool {
        if envelope.seq > self.feed.last_seq() {
            return false;
        }
        match self.feed.event_at(envelope.seq) {
            Some(have) => have != *envelope,
            None => {
                matches!(envelope.event, Event::GameStarted(_))
                    && !self.game.is_empty()
                    && envelope.game != self.game
            }
        }
    }

    /// Forgets the board's old journal: its feeds, folds and history start afresh (its
    /// status, sign of life and open alerts stay), so every page follows the new one. The
    /// feeds stay the same ones, restarted: the pages open on the old journal are told to
    /// load again ([`LiveFeed::restart`]).
    fn restart_journal(&mut self) {
        let mut fresh = if self.delayed {
            BoardView::delayed()
        } else {
            BoardView::new()
        };
        if self.commentary.is_some() {
            fresh = fresh.with_live_commentary();
        }
        let followed = self.followed.take().map(|_| Vec::new());
        let old = std::mem::replace(self, fresh);
        old.feed.restart();
        self.feed = old.feed.clone();
        old.public.feed.restart();
        self.public.feed = old.public.feed.clone();
        if let (Some(c), Some(was)) = (self.commentary.as_mut(), old.commentary.as_ref()) {
            was.feed.restart();
            c.feed = was.feed.clone();
        }
        self.status = old.status;
        self.last_heard = old.last_heard;
        self.alerts = old.alerts;
        self.alert_seen = old.alert_seen;
        self.followed = followed.or(old.followed);
        self.history.strict = old.history.strict;
        self.history.patient = old.history.patient;
    }

    /// Says once that this board's labels were cut to their bounds.
    fn said_cut(&mut self, cut: bool, board: &str) {
        if cut && !self.labels_cut {
            self.labels_cut = true;
            tracing::warn!(
                "{board}: a round, table, name, rank, event or place longer than a command \
                 may set (or with control characters): cut to its bound"
            );
        }
    }

    /// One event from `.../events` (live or republished, maybe a duplicate).
    pub(crate) fn on_event(&mut self, mut envelope: Envelope, now: Instant, can_ask: bool) -> Need {
        self.version += 1;
        if let Event::GameStarted(setup) = &mut envelope.event {
            let cut = labels::bound_setup(setup);
            self.said_cut(cut, &envelope.board);
        }
        if self.is_new_journal(&envelope) {
            tracing::warn!(
                "{}: a new journal (seq {} after {}, game {:?} after {:?}): following it",
                envelope.board,
                envelope.seq,
                self.feed.last_seq(),
                envelope.game,
                self.game
            );
            self.restart_journal();
        }
        if let Event::GameStarted(setup) = &envelope.event {
            self.round.clone_from(&setup.round);
        }
        if !envelope.game.is_empty() {
            self.game.clone_from(&envelope.game);
        }
        if self.waiting() {
            self.history.progress_at = Some(now);
        }
        if self.history.live {
            return self.follow_in_order(envelope, now, can_ask);
        }
        self.history.held.insert(envelope.seq, envelope);
        if self.try_complete(now) {
            return Need::Nothing;
        }
        self.missing(now, can_ask)
    }

    /// The next `seq` the feed takes: the one after its newest, or after what was given up.
    fn next_seq(&self) -> u64 {
        self.feed.last_seq().max(self.history.floor) + 1
    }

    /// A live board's event: into the feed if it is the next one (then the held events
    /// that follow it), else held while what is missing is asked for. A hall that may not
    /// ask follows on past the gap.
    fn follow_in_order(&mut self, envelope: Envelope, now: Instant, can_ask: bool) -> Need {
        let next = self.next_seq();
        let first = self.feed.last_seq() == 0 && self.history.floor == 0;
        if envelope.seq <= next || (first && !self.history.strict) || !can_ask {
            self.follow(envelope, now);
            self.follow_held(now);
            return Need::Nothing;
        }
        self.version += 1;
        self.history.head = self.history.head.max(envelope.seq);
        let was_holding = !self.history.held.is_empty();
        self.history.held.insert(envelope.seq, envelope);
        if was_holding {
            return Need::Nothing;
        }
        tracing::debug!("{}: events from seq {next} missing: asked for", self.game);
        self.history.gap_asked_at = Some(now);
        Need::Gap(next)
    }

    /// Feeds the held events that now come next, in order.
    fn follow_held(&mut self, now: Instant) {
        while let Some(seq) = self.history.held.keys().next().copied() {
            if seq > self.next_seq() {
                break;
            }
            if let Some(e) = self.history.held.remove(&seq) {
                self.follow(e, now);
            }
        }
        if self.history.held.is_empty() && self.history.head < self.next_seq() {
            let h = &mut self.history;
            h.gap_asked_at = None;
            h.again_at = None;
            h.asked_again = 0;
            h.unanswered = 0;
        }
    }

    /// Goes past every `seq` up to `seq` that has not come: given up for good.
    fn give_up_through(&mut self, seq: u64, now: Instant) {
        if seq >= self.next_seq() {
            tracing::warn!(
                "{}: events {} to {seq} never came: following on without them",
                self.game,
                self.next_seq()
            );
        }
        self.history.floor = self.history.floor.max(seq);
        self.follow_held(now);
    }

    /// A hub's answer from the board's venue: every event it holds from `from` to `to` has
    /// been given ([`BoardView::on_event`]); any other `seq` there it never will hold. A
    /// board waiting for its history goes live with what it has (the venue's is all there
    /// is); one waiting for a gap goes past what is still missing up to `to`. An answer
    /// with `to` below `from` (the venue holds nothing yet) changes nothing: the board asks
    /// again.
    pub(crate) fn filled(&mut self, from: u64, to: u64, now: Instant) {
        if to < from {
            return;
        }
        self.version += 1;
        if !self.history.live {
            self.history.floor = self.history.floor.max(to);
            self.go_live(now);
            return;
        }
        if from <= self.next_seq() {
            self.give_up_through(to, now);
        }
    }

    /// The events held back while the history is missing, given by the hall's own archive
    /// (a hub that restarts): the board goes live if they hold a game from its start.
    pub(crate) fn seed(&mut self, events: Vec<Envelope>, now: Instant) {
        if self.history.live {
            return;
        }
        for e in events {
            if !e.game.is_empty() {
                self.game.clone_from(&e.game);
            }
            if let Event::GameStarted(setup) = &e.event {
                self.round.clone_from(&setup.round);
            }
            self.history.held.insert(e.seq, e);
        }
        self.try_complete(now);
    }

    /// What this board's venue answers its hub asking from `from` (0: the current game from
    /// its start): every event the feed holds from there up to its newest. The feed holds
    /// its events in order and never takes one below its newest later, so any `seq` missing
    /// there is missing for good: the answer speaks for the whole span. Events before the
    /// first the feed holds are not in it: the board is to republish them.
    pub(crate) fn answer(&self, from: u64) -> Answer {
        let last = self.feed.last_seq();
        let first = match self.feed.first_seq() {
            0 => last + 1,
            seq => seq,
        };
        let start = if from == 0 {
            self.feed.game_start_seq().unwrap_or(first)
        } else {
            from.max(first)
        };
        Answer {
            from: start,
            to: last,
            events: self.feed.events_between(start, last),
            republish_from: (from > 0 && from < first).then_some(from),
        }
    }

    /// The `seq` the feed follows up to (0: none yet), and how many events it holds back
    /// beyond a gap or while its history is missing.
    pub(crate) fn followed(&self) -> (u64, usize) {
        (self.feed.last_seq(), self.history.held.len())
    }

    /// True when the feed, or the events held back, has `seq`.
    pub(crate) fn holds(&self, seq: u64) -> bool {
        self.history.held.contains_key(&seq) || self.feed.event_at(seq).is_some()
    }

    /// True while the board waits for events it asked for (its history, or a gap).
    pub(crate) fn waiting(&self) -> bool {
        !self.history.live || !self.history.held.is_empty() || self.history.head >= self.next_seq()
    }

    /// The board answered the hall's `republish` with an error: stop waiting, unless the
    /// board said to ask again in `again_in` (its rate limit: another consumer asked just
    /// before); then the events stay held and [`BoardView::tick`] asks again (a few times).
    pub(crate) fn history_refused(&mut self, again_in: Option<Duration>, now: Instant) {
        let h = &self.history;
        let waiting = !h.live || h.gap_asked_at.is_some();
        match again_in {
            Some(wait) if waiting && (h.asked_again < ASK_AGAIN || h.patient) => {
                self.history.asked_again += 1;
                self.history.again_at = Some(now + wait);
            }
            _ if h.live => {
                self.history.gap_asked_at = None;
                let through = match self.history.held.keys().next() {
                    Some(first) => first - 1,
                    None => self.history.head,
                };
                self.give_up_through(through, now);
            }
            _ => self.go_live(now),
        }
    }

    /// Asks again for the history when a refusal said when ([`Need::History`]); gives up
    /// waiting for it [`HISTORY_WAIT`] after the last request.
    pub(crate) fn tick(&mut self, now: Instant) -> Need {
        if self.history.live {
            return self.tick_gap(now);
        }
        if self.history.strict {
            // A hub never gives up on its venue: it asks again until it is answered.
            return match self.history.asked_at {
                Some(at) if now.saturating_duration_since(at) >= ASK_AGAIN_EVERY => {
                    self.history.asked_at = Some(now);
                    Need::History
                }
                _ => Need::Nothing,
            };
        }
        if let Some(again) = self.history.again_at {
            if now >= again {
                self.history.again_at = None;
                self.history.asked_at = Some(now);
                return Need::History;
            }
            return Need::Nothing;
        }
        let Some(at) = self.history.asked_at else {
            return Need::Nothing;
        };
        if self.history.patient {
            if !self.history.patient_due(at, now) {
                return Need::Nothing;
            }
            if self.history.unanswered + 1 < PATIENT_ASKS {
                self.history.unanswered += 1;
                self.history.asked_at = Some(now);
                return Need::History;
            }
            tracing::warn!(
                "{}: its history never came after {PATIENT_ASKS} asks: following on without it",
                self.game
            );
            self.go_live(now);
        } else if now.duration_since(at) >= HISTORY_WAIT {
            self.go_live(now);
        }
        Need::Nothing
    }

    /// A live board waiting for a gap: asked again (strict), or given up after
    /// [`HISTORY_WAIT`].
    fn tick_gap(&mut self, now: Instant) -> Need {
        if self.history.strict {
            let missing = !self.history.held.is_empty() || self.history.head >= self.next_seq();
            let due = self
                .history
                .gap_asked_at
                .is_none_or(|at| now.saturating_duration_since(at) >= ASK_AGAIN_EVERY);
            if missing && due {
                self.history.gap_asked_at = Some(now);
                return Need::Gap(self.next_seq());
            }
            return Need::Nothing;
        }
        if let Some(again) = self.history.again_at {
            if now >= again {
                self.history.again_at = None;
                self.history.gap_asked_at = Some(now);
                return Need::Gap(self.next_seq());
            }
            return Need::Nothing;
        }
        let Some(at) = self.history.gap_asked_at else {
            return Need::Nothing;
        };
        if self.history.patient {
            if !self.history.patient_due(at, now) {
                return Need::Nothing;
            }
            if self.history.unanswered + 1 < PATIENT_ASKS {
                self.history.unanswered += 1;
                self.history.gap_asked_at = Some(now);
                return Need::Gap(self.next_seq());
            }
        }
        let waited = now.saturating_duration_since(at);
        if self.history.patient || waited >= HISTORY_WAIT {
            self.history.gap_asked_at = None;
            let through = match self.history.held.keys().next() {
                Some(first) => first - 1,
                None => self.history.head,
            };
            self.give_up_through(through, now);
        }
        Need::Nothing
    }

    /// Some history is missing: ask for it once, or, if the hall may not ask, show what
    /// has arrived and follow live.
    fn missing(&mut self, now: Instant, can_ask: bool) -> Need {
        if !can_ask {
            self.go_live(now);
            return Need::Nothing;
        }
        if self.history.asked_at.is_none() {
            self.history.asked_at = Some(now);
            return Need::History;
        }
        Need::Nothing
    }

    /// Feeds the held events if they hold the current game from its `game_started` on,
    /// without a gap; true when it did.
    fn try_complete(&mut self, now: Instant) -> bool {
        let held = &self.history.held;
        let Some(last) = held.keys().next_back().copied() else {
            return false;
        };
        let start = held
            .values()
            .rev()
            .find(|e| matches!(e.event, Event::GameStarted(_)))
            .map(|e| e.seq);
        let Some(start) = start else {
            return false;
        };
        let count = held.range(start..).count() as u64;
        if count != last - start + 1 {
            return false;
        }
        let tail = self.history.held.split_off(&start);
        self.history.held = tail;
        // What came before the current game is not followed.
        self.history.floor = self.history.floor.max(start.saturating_sub(1));
        self.go_live(now);
        true
    }

    /// Follows live from now on: what is held goes to the feed in order. A hall that gave
    /// up on the history takes it all, gaps and all; a strict board takes what follows on
    /// from the current game's start (or from what the venue's answer covered) and keeps
    /// the rest held beyond the next gap.
    fn go_live(&mut self, now: Instant) {
        self.history.live = true;
        self.history.asked_at = None;
        if self.history.strict {
            self.follow_held(now);
            return;
        }
        for (_, e) in std::mem::take(&mut self.history.held) {
            self.follow(e, now);
        }
    }

    /// The next event of the live stream: into the live fold and the feed, unless the
    /// feed has it already (a duplicate, or an old event republished).
    fn follow(&mut self, envelope: Envelope, now: Instant) {
        self.version += 1;
        if envelope.seq <= self.feed.last_seq() {
            return;
        }
        if let Err(err) = self.live.apply_envelope(&envelope) {
            tracing::trace!("{} live view, seq {}: {err}", envelope.board, envelope.seq);
        }
        if let Some(followed) = &mut self.followed {
            followed.push(envelope.clone());
        }
        match &envelope.event {
            Event::GameStarted(_) => self.ending = None,
            Event::GameOver(end) => {
                self.ending = Some(Ending {
                    game: envelope.game.clone(),
                    result: end.result.clone(),
                    by: envelope.by.clone(),
                    seq: envelope.seq,
                });
            }
            _ => {}
        }
        if !envelope.game.is_empty() {
            self.phase = Some(self.live.phase().as_str());
        }
        self.feed.publish(envelope);
        self.show_live(now);
    }

    /// The board for the overview (`/api/boards`): ids, status, players, position, clocks,
    /// result. Public: nothing here is for arbiters only.
    ///
    /// For the public the position, clocks and result are the public side's (delayed
    /// under a broadcast delay) and `open_alerts` is null (alerts are never public); for
    /// live commentators they are live, `open_alerts` null; for the arbiters (behind the
    /// console login) they are the live ones, delay or not, with the count of open alerts.
    /// `pages` is where the card links to: `""` (the public `/board/...`), `/console` or
    /// `/commentary`.
    pub(crate) fn summary(
        &self,
        tournament: &str,
        board: &str,
        now: Instant,
        audience: Audience,
        pages: &str,
    ) -> Value {
        let mut v = self.summary_with(audience, |s| {
            serde_json::to_value(self.summary_of(s, audience, tournament, board, pages))
                .unwrap_or(Value::Null)
        });
        let (age, heard) = self.ages(now, audience);
        if let Some(o) = v.as_object_mut() {
            o.insert("state_age_ms".into(), json!(age));
            o.insert("last_heard_ms".into(), json!(heard));
        }
        v
    }

    /// The side a summary for `audience` is made of (`None`: the live feed).
    fn side(&self, audience: Audience) -> Option<&PublicSide> {
        match audience {
            Audience::Public => Some(&self.public),
            Audience::Commentators => Some(self.commentary.as_ref().unwrap_or(&self.public)),
            Audience::Arbiters => None,
        }
    }

    /// `f` of the state a summary for `audience` is made of, read in place.
    fn summary_with<R>(
        &self,
        audience: Audience,
        f: impl FnOnce(Option<&StateSnapshot>) -> R,
    ) -> R {
        match self.side(audience) {
            Some(p) => p.feed.with_snapshot(f),
            None => self.feed.with_snapshot(f),
        }
    }

    /// Writes the public summary (`/api/boards`) as JSON text to `out`: the copy serialised
    /// when the board last changed, with `state_age_ms` and `last_heard_ms` as of `now` put
    /// in front. Equal to [`BoardView::summary`] (public, pages `""`) as JSON, keys aside.
    pub(crate) fn write_public_summary(
        &mut self,
        out: &mut String,
        tournament: &str,
        board: &str,
        now: Instant,
    ) {
        use std::fmt::Write as _;
        let public = Audience::Public;
        if self
            .summary_json
            .as_ref()
            .is_none_or(|(v, _)| *v != self.version)
        {
            let text = self.summary_with(public, |s| {
                serde_json::to_string(&self.summary_of(s, public, tournament, board, ""))
                    .unwrap_or_else(|_| "{}".into())
            });
            self.summary_json = Some((self.version, text));
        }
        let (age, heard) = self.ages(now, public);
        let rest = self
            .summary_json
            .as_ref()
            .map_or("}", |(_, text)| text.get(1..).unwrap_or("}"));
        let _ = write!(out, "{{\"state_age_ms\":{age},\"last_heard_ms\":");
        match heard {
            Some(h) => {
                let _ = write!(out, "{h}");
            }
            None => out.push_str("null"),
        }
        if rest != "}" {
            out.push(',');
        }
        out.push_str(rest);
    }

    /// How old the summary's state for `audience` is at `now`, and how long since the
    /// board was heard from, in ms.
    fn ages(&self, now: Instant, audience: Audience) -> (u64, Option<u64>) {
        let ms = |t: Instant| {
            u64::try_from(now.saturating_duration_since(t).as_millis()).unwrap_or(u64::MAX)
        };
        let state_at = match self.side(audience) {
            Some(p) => p.state_at,
            None => self.state_at,
        };
        (state_at.map_or(0, ms), self.last_heard.map(ms))
    }

    /// [`BoardView::summary`] of state `s` (the one for `audience`), without its ages.
    fn summary_of<'a>(
        &'a self,
        s: Option<&'a StateSnapshot>,
        audience: Audience,
        tournament: &'a str,
        board: &'a str,
        pages: &str,
    ) -> Summary<'a> {
        let arbiters = audience == Audience::Arbiters;
        // A void game leaves every public view: a summary for anyone but the arbiters shows
        // its board with none.
        let s = s.filter(|s| arbiters || !s.voided);
        let (round, game) = if !arbiters {
            (s.map(|s| s.round.as_str()), s.map(|s| s.game_id.as_str()))
        } else {
            (Some(self.round.as_str()), Some(self.game.as_str()))
        };
        Summary {
            tournament,
            board,
            url: format!("{pages}/board/{tournament}/{board}/"),
            status: self.status.map(BoardState::as_str),
            game,
            round,
            table: s.map(|s| s.table.as_str()),
            black: s.map(|s| s.black.as_str()),
            white: s.map(|s| s.white.as_str()),
            black_rank: s.and_then(|s| s.black_rank.as_deref()),
            white_rank: s.and_then(|s| s.white_rank.as_deref()),
            time_control: s.map(|s| s.time_control.to_string()),
            size: s.map(|s| s.size),
            position: s.map(|s| s.board.as_str()),
            to_move: s.map(|s| s.to_move),
            number: s.map(|s| s.number),
            phase: s.map(|s| s.phase.as_str()),
            captured: s.map(|s| &s.captured),
            clocks: s.and_then(|s| s.clocks.as_ref()),
            warnings: s.map(|s| &s.warnings),
            result: s.and_then(|s| s.result.as_deref()),
            open_alerts: arbiters.then_some(self.alerts.len()),
            seq: s.map(|s| s.seq),
            voided: s.is_some_and(|s| s.voided),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_protocol::event::FaultKind;
    use tengen_rules::Color;

    use crate::test_support::{active_alert, env, game_started, gtp};

    fn started(seq: u64) -> Envelope {
        env(seq, game_started(19, 0, "none"))
    }

    fn pass(seq: u64) -> Envelope {
        env(
            seq,
            Event::Pass {
                number: seq as u32,
                color: Color::Black,
            },
        )
    }

    fn seqs(b: &BoardView) -> Vec<u64> {
        b.feed().events_after(0).iter().map(|e| e.seq).collect()
    }

    #[test]
    fn a_board_seen_from_its_start_goes_live_at_once() {
        let t = Instant::now();
        let mut b = BoardView::new();
        assert_eq!(b.on_event(started(1), t, true), Need::Nothing);
        assert_eq!(b.on_event(pass(2), t, true), Need::Nothing);
        assert_eq!(seqs(&b), vec![1, 2]);
        assert_eq!(b.round(), "3");
        assert_eq!(b.game(), "g1");
    }

    /// `v` as the board's `state` payload.
    fn on_state(b: &mut BoardView, v: &Value, t: Instant, can_ask: bool) -> Need {
        b.on_state(v.to_string().as_bytes(), t, can_ask)
            .expect("a JSON object")
    }

    /// A board's whole `state` after `started(1)` and `pass(2)`, said to be at `seq`.
    fn board_snapshot(seq: u64) -> Value {
        let mut view = GameView::new();
        for e in [started(1), pass(2)] {
            view.apply_envelope(&e).expect("folds");
        }
        let mut s = view
            .snapshot(view.last_time().expect("a time"))
            .expect("a game")
            .to_value();
        s["seq"] = json!(seq);
        s
    }

    #[test]
    fn late_hall_asks_once_and_fills_the_gap_in_order() {
        let t = Instant::now();
        let mut b = BoardView::new();
        let need = on_state(
            &mut b,
            &json!({"seq": 5, "round": "3", "number": 3}),
            t,
            true,
        );
        assert_eq!(need, Need::History);
        // Live events overtake the republished ones.
        assert_eq!(b.on_event(pass(6), t, true), Need::Nothing);
        assert!(seqs(&b).is_empty(), "held back until the history is whole");
        b.on_event(pass(1), t, true);
        b.on_event(started(2), t, true);
        b.on_event(pass(3), t, true);
        b.on_event(pass(4), t, true);
        assert!(!b.is_live());
        b.on_event(pass(5), t, true);
        assert!(b.is_live());
        assert_eq!(
            seqs(&b),
            vec![2, 3, 4, 5, 6],
            "from the current game's start"
        );
        b.on_event(pass(6), t, true);
        b.on_event(pass(7), t, true);
        assert_eq!(seqs(&b), vec![2, 3, 4, 5, 6, 7]);
    }

    #[test]
    fn the_boards_state_is_checked_against_the_halls_fold() {
        let t = Instant::now();
        let mut b = BoardView::new();
        b.on_event(started(1), t, true);
        b.on_event(pass(2), t, true);
        let own = b
            .live
            .snapshot(b.live.last_time().expect("a time"))
            .expect("a snapshot")
            .to_value();
        on_state(&mut b, &own, t, true);
        assert_eq!(b.disagreed, None, "the same fold agrees");
        let mut wrong = own.clone();
        wrong["number"] = json!(5);
        wrong["board"] = json!("X".repeat(361));
        on_state(&mut b, &wrong, t, true);
        assert_eq!(b.disagreed, Some(2), "a different position and number");
        assert_eq!(
            b.feed().state()["number"],
            1,
            "the pages show the hall's fold, not the board's"
        );
        on_state(&mut b, &own, t, true);
        assert_eq!(b.disagreed, None, "agreeing again");
        // Not a snapshot at all: said once.
        on_state(&mut b, &json!({"seq": 2}), t, true);
        assert_eq!(b.disagreed, Some(2));
        // Not JSON at all: an error, nothing changes.
        assert!(b.on_state(b"{\"seq\":", t, true).is_err());
        assert_eq!(b.feed().state()["number"], 1);
    }

    #[test]
    fn the_live_summary_of_a_board_heard_only_through_events_is_the_halls_fold() {
        let t = Instant::now();
        let mut b = BoardView::new();
        b.on_event(started(1), t, true);
        b.on_event(pass(2), t, true);
        let live = b.summary("open", "t01", t, Audience::Arbiters, "/console");
        assert_eq!(
            (
                live["black"].as_str(),
                live["table"].as_str(),
                live["number"].as_u64()
            ),
            (Some("Shusaku"), Some("7"), Some(1)),
            "{live}"
        );
        // The board's own snapshot is a check; the hall's fold stays what is shown.
        let mut theirs = board_snapshot(2);
        theirs["number"] = json!(7);
        on_state(&mut b, &theirs, t, true);
        assert_eq!(
            b.summary("open", "t01", t, Audience::Arbiters, "/console")["number"],
            1
        );
        assert_eq!(b.disagreed, Some(2));
    }

    #[test]
    fn without_an_identity_it_shows_what_it_has() {
        let t = Instant::now();
        let mut b = BoardView::new();
        assert_eq!(
            on_state(&mut b, &board_snapshot(5), t, false),
            Need::Nothing
        );
        b.on_event(pass(6), t, false);
        assert_eq!(seqs(&b), vec![6]);
        assert_eq!(
            b.feed().state()["seq"],
            5,
            "without the game's start the hall has no fold of it: the board's own state"
        );
    }

    #[test]
    fn gives_up_waiting_after_a_while_or_a_refusal() {
        let t = Instant::now();
        let mut b = BoardView::new();
        assert_eq!(b.on_event(pass(8), t, true), Need::History);
        assert_eq!(b.on_event(pass(9), t, true), Need::Nothing, "asks once");
        b.tick(t + HISTORY_WAIT / 2);
        assert!(seqs(&b).is_empty());
        b.tick(t + HISTORY_WAIT);
        assert_eq!(seqs(&b), vec![8, 9]);

        let mut c = BoardView::new();
        c.on_event(pass(8), t, true);
        c.history_refused(None, t);
        assert_eq!(seqs(&c), vec![8]);
    }

    #[test]
    fn a_refusal_for_now_is_asked_again_a_few_times() {
        let t = Instant::now();
        let wait = Duration::from_secs(7);
        let mut b = BoardView::new();
        assert_eq!(b.on_event(pass(8), t, true), Need::History);
        b.history_refused(Some(wait), t);
        // Held past the usual wait while the board says to ask again.
        assert_eq!(b.tick(t + HISTORY_WAIT), Need::Nothing);
        assert!(seqs(&b).is_empty());
        let mut now = t + wait;
        assert_eq!(b.tick(now), Need::History, "asked again");
        for _ in 1..ASK_AGAIN {
            b.history_refused(Some(wait), now);
            now += wait;
            assert_eq!(b.tick(now), Need::History);
        }
        // Refused once more: it stops asking and shows what it has.
        b.history_refused(Some(wait), now);
        assert_eq!(seqs(&b), vec![8]);
        assert_eq!(b.tick(now + wait), Need::Nothing);

        // The history that comes after a request asked again completes the board.
        let mut c = BoardView::new();
        c.on_event(pass(8), t, true);
        c.history_refused(Some(wait), t);
        assert_eq!(c.tick(t + wait), Need::History);
        assert_eq!(c.tick(t + wait + HISTORY_WAIT), Need::Nothing);
        assert_eq!(seqs(&c), vec![8], "then it gives up as usual");
    }

    #[test]
    fn a_gap_is_held_and_asked_for_then_filled_in_order() {
        let t = Instant::now();
        let mut b = BoardView::new();
        b.on_event(started(1), t, true);
        b.on_event(pass(2), t, true);
        assert_eq!(b.on_event(pass(5), t, true), Need::Gap(3));
        assert_eq!(b.on_event(pass(6), t, true), Need::Nothing, "asked once");
        assert_eq!(seqs(&b), vec![1, 2], "held beyond the gap");
        assert!(b.waiting());
        // The board republishes from 3.
        for seq in 3..=6 {
            b.on_event(pass(seq), t, true);
        }
        assert_eq!(seqs(&b), vec![1, 2, 3, 4, 5, 6]);
        assert!(!b.waiting());
        assert_eq!(b.tick(t + HISTORY_WAIT), Need::Nothing);
    }

    #[test]
    fn a_gap_the_board_never_fills_is_gone_past_after_a_while() {
        let t = Instant::now();
        let mut b = BoardView::new();
        b.on_event(started(1), t, true);
        assert_eq!(b.on_event(pass(4), t, true), Need::Gap(2));
        b.tick(t + HISTORY_WAIT / 2);
        assert_eq!(seqs(&b), vec![1]);
        b.tick(t + HISTORY_WAIT);
        assert_eq!(seqs(&b), vec![1, 4]);
        // Late copies of what was given up stay out; the next event follows.
        b.on_event(pass(2), t, true);
        assert_eq!(b.on_event(pass(5), t, true), Need::Nothing);
        assert_eq!(seqs(&b), vec![1, 4, 5]);

        // A hall that may not ask follows on at once, as before.
        let mut c = BoardView::new();
        c.on_event(started(1), t, false);
        assert_eq!(c.on_event(pass(4), t, false), Need::Nothing);
        assert_eq!(seqs(&c), vec![1, 4]);
    }

    /// Issue 37: a venue's hall restarted with 700 boards asked them all to `republish` at
    /// once, gave up on 501 gaps after 5 s while the answers were still on their way, and
    /// its hub, which skips only on the venue's word, lost 1,863 events. A patient board
    /// asks again, waiting longer each time, and never while what it asked for flows in.
    #[test]
    fn a_patient_board_asks_again_waiting_longer_and_never_while_the_answer_flows_in() {
        let t = Instant::now();
        let s = Duration::from_secs;
        let mut b = BoardView::new().patient();
        b.on_event(started(1), t, true);
        assert_eq!(b.on_event(pass(9), t, true), Need::Gap(2));
        // Where a plain hall gives up (HISTORY_WAIT), it asks again; then after 10 s, 20 s.
        assert_eq!(b.tick(t + HISTORY_WAIT), Need::Gap(2));
        assert_eq!(seqs(&b), vec![1], "nothing given up");
        assert_eq!(b.tick(t + s(5 + 9)), Need::Nothing);
        assert_eq!(b.tick(t + s(5 + 10)), Need::Gap(2));
        // Part of the answer arrives, slowly: each event puts the next ask off.
        b.on_event(pass(2), t + s(30), true);
        b.on_event(pass(3), t + s(45), true);
        assert_eq!(b.tick(t + s(45 + 19)), Need::Nothing, "still flowing in");
        assert_eq!(seqs(&b), vec![1, 2, 3]);
        b.on_event(pass(4), t + s(60), true);
        for seq in 5..=8 {
            b.on_event(pass(seq), t + s(61), true);
        }
        assert_eq!(seqs(&b), (1..=9).collect::<Vec<_>>());
        assert!(!b.waiting());
        // A head-only gap (its state further on) is asked on the same schedule.
        assert_eq!(b.head_seen(12, t + s(70)), Need::Gap(10));
        assert_eq!(b.head_seen(12, t + s(74)), Need::Nothing);
        assert_eq!(
            b.tick(t + s(75)),
            Need::Gap(10),
            "the wait starts again at 5 s"
        );
    }

    #[test]
    fn a_patient_board_gives_up_only_after_its_asks_went_unanswered() {
        let t = Instant::now();
        let mut b = BoardView::new().patient();
        b.on_event(started(1), t, true);
        assert_eq!(b.on_event(pass(4), t, true), Need::Gap(2));
        let mut now = t;
        let mut asks = 1;
        while b.waiting() && now < t + Duration::from_secs(3600) {
            now += Duration::from_secs(1);
            if b.tick(now) == Need::Gap(2) {
                asks += 1;
            }
        }
        assert_eq!(asks, PATIENT_ASKS, "asked {asks} times in all");
        let waited = now - t;
        assert!(
            waited > Duration::from_secs(300) && waited < Duration::from_secs(600),
            "{waited:?}"
        );
        assert_eq!(seqs(&b), vec![1, 4]);

        // Its history, asked again in the same way, comes in whole after the third ask.
        let mut c = BoardView::new().patient();
        assert_eq!(c.on_event(pass(3), t, true), Need::History);
        assert_eq!(c.tick(t + HISTORY_WAIT), Need::History);
        assert_eq!(c.tick(t + HISTORY_WAIT * 3), Need::History);
        assert!(c.waiting());
        c.on_event(started(1), t + HISTORY_WAIT * 3, true);
        c.on_event(pass(2), t + HISTORY_WAIT * 3, true);
        assert_eq!(seqs(&c), vec![1, 2, 3]);
        assert!(!c.waiting());
    }

    #[test]
    fn a_state_further_on_than_the_feed_asks_for_the_tail() {
        let t = Instant::now();
        let mut b = BoardView::new();
        b.on_event(started(1), t, true);
        b.on_event(pass(2), t, true);
        assert_eq!(on_state(&mut b, &board_snapshot(2), t, true), Need::Nothing);
        assert_eq!(on_state(&mut b, &board_snapshot(4), t, true), Need::Gap(3));
        assert_eq!(on_state(&mut b, &board_snapshot(4), t, true), Need::Nothing);
        b.on_event(pass(3), t, true);
        b.on_event(pass(4), t, true);
        assert_eq!(seqs(&b), vec![1, 2, 3, 4]);
        assert!(!b.waiting());
    }

    #[test]
    fn a_strict_board_asks_its_venue_until_answered_and_skips_only_on_its_word() {
        let t = Instant::now();
        let mut b = BoardView::new().strict();
        b.on_event(started(1), t, true);
        b.on_event(pass(2), t, true);
        assert_eq!(b.on_event(pass(6), t, true), Need::Gap(3));
        // Never given up by itself: asked again.
        assert_eq!(b.tick(t + HISTORY_WAIT * 10), Need::Gap(3));
        assert_eq!(b.tick(t + HISTORY_WAIT * 10), Need::Nothing);
        assert_eq!(seqs(&b), vec![1, 2]);
        // The venue answers 3 to 4 with 3 only: 4 is gone for good there.
        b.on_event(pass(3), t, true);
        b.filled(3, 4, t);
        assert_eq!(seqs(&b), vec![1, 2, 3], "5 still missing");
        assert!(b.waiting());
        // An answer that does not reach the gap changes nothing.
        b.filled(9, 8, t);
        assert!(b.waiting());
        b.filled(5, 7, t);
        assert_eq!(seqs(&b), vec![1, 2, 3, 6]);
        assert!(!b.waiting());
        // A head further on than the feed: the tail is asked for.
        assert_eq!(b.head_seen(9, t), Need::Gap(8));
        assert_eq!(b.head_seen(9, t), Need::Nothing, "not again at once");
        assert!(b.waiting());
    }

    #[test]
    fn a_strict_board_goes_live_on_its_venues_history() {
        let t = Instant::now();
        let mut b = BoardView::new().strict();
        assert_eq!(b.on_event(pass(7), t, true), Need::History);
        assert_eq!(b.tick(t + ASK_AGAIN_EVERY), Need::History, "asked again");
        // The venue holds 4 to 8, no game start among them (it came in late itself).
        for seq in 4..=8 {
            b.on_event(pass(seq), t, true);
        }
        b.filled(4, 8, t);
        assert_eq!(seqs(&b), vec![4, 5, 6, 7, 8]);
        assert!(!b.waiting());
        // With the game's start it goes live on its own, from the start.
        let mut c = BoardView::new().strict();
        c.on_event(pass(3), t, true);
        c.on_event(started(2), t, true);
        assert_eq!(seqs(&c), vec![2, 3]);
    }

    #[test]
    fn a_venue_answers_from_its_feed_and_names_what_the_board_must_resend() {
        let t = Instant::now();
        let mut b = BoardView::new();
        for e in [pass(3), started(4), pass(5), pass(6)] {
            b.on_event(e, t, false);
        }
        let a = b.answer(0);
        assert_eq!((a.from, a.to, a.republish_from), (4, 6, None), "the game");
        assert_eq!(
            a.events.iter().map(|e| e.seq).collect::<Vec<_>>(),
            [4, 5, 6]
        );
        let a = b.answer(5);
        assert_eq!((a.from, a.to, a.events.len()), (5, 6, 2));
        let a = b.answer(1);
        assert_eq!((a.from, a.republish_from, a.events.len()), (3, Some(1), 4));
        let a = b.answer(7);
        assert!(a.to < a.from && a.events.is_empty(), "nothing yet");
        let empty = BoardView::new().answer(1);
        assert!(empty.to < empty.from);
    }

    #[test]
    fn a_seeded_board_follows_on_from_its_archive() {
        let t = Instant::now();
        let mut b = BoardView::new().strict();
        b.seed(vec![started(1), pass(2), pass(3)], t);
        assert_eq!(seqs(&b), vec![1, 2, 3]);
        assert_eq!(b.on_event(pass(5), t, true), Need::Gap(4));
    }

    #[test]
    fn hardware_trouble_stands_until_mended_and_is_counted_once() {
        let fault = |seq: u64, kind: FaultKind, points: &[&str]| {
            env(
                seq,
                Event::SensorFault {
                    points: points.iter().map(|p| gtp(p)).collect(),
                    kind,
                },
            )
        };
        let now = Instant::now();
        let mut b = BoardView::new();
        b.on_event(fault(1, FaultKind::LinkLost, &[]), now, false);
        b.on_event(fault(2, FaultKind::Noisy, &["J1"]), now, false);
        // republished: not counted again
        b.on_event(fault(2, FaultKind::Noisy, &["J1"]), now, false);
        let kinds = |b: &BoardView| -> Vec<String> {
            b.hardware()
                .iter()
                .map(|f| {
                    let points: Vec<String> = f.points.iter().map(|p| p.to_gtp()).collect();
                    format!("{} {}", f.kind, points.join(" "))
                })
                .collect()
        };
        assert_eq!(kinds(&b), ["link_lost ", "noisy J1"]);
        assert_eq!(
            (b.hardware()[1].seq, b.hardware()[1].time),
            (2, env(2, Event::Counting { dead: vec![] }).time)
        );
        b.on_event(fault(3, FaultKind::LinkRestored, &[]), now, false);
        assert_eq!(kinds(&b), ["noisy J1"]);
        for seq in 4..20 {
            b.on_event(fault(seq, FaultKind::Stuck, &["A9"]), now, false);
        }
        assert_eq!(b.hardware().len(), tengen_protocol::view::FAULTS_KEPT);
        assert_eq!(b.hardware()[0].seq, 10);
    }

    #[test]
    fn alerts_keep_the_order_first_seen() {
        let mut b = BoardView::new();
        b.on_alerts_active(vec![active_alert("a1")], 1);
        b.on_alerts_active(vec![active_alert("a1"), active_alert("a2")], 2);
        let seen: Vec<(String, u64)> = b.alerts().map(|(a, n)| (a.alert.id.clone(), n)).collect();
        assert_eq!(seen, vec![("a1".into(), 1), ("a2".into(), 2)]);
        b.on_alerts_active(vec![], 3);
        assert_eq!(b.alerts().count(), 0);
    }

    /// The public side of a board under a delay, as the released events make it: the
    /// protocol's fold of them, with nothing for arbiters only.
    mod public {
        use super::*;
        use tengen_protocol::event::{
            Alert, AlertCode, ClockReading, EndReason, Expected, GameEnd, PerColor, RetractReason,
        };

        use crate::test_support::mv;

        /// No delay at all: everything the live feed has is released at once.
        const NOW: DelayPolicy = DelayPolicy {
            moves: 0,
            window_ms: 0,
            release_at_end: true,
        };

        /// A delayed board fed `events` (seq 1, 2, ...) and released at once.
        fn released(events: Vec<Event>) -> (BoardView, Vec<Envelope>) {
            let mut b = BoardView::delayed();
            let t = Instant::now();
            for (i, e) in events.into_iter().enumerate() {
                b.on_event(env(i as u64 + 1, e), t, false);
            }
            let out = b.release(&NOW, t, Timestamp::now());
            (b, out)
        }

        /// The 9x9 board string with stones at (GTP point, 'X'/'O').
        fn rows(stones: &[(&str, char)]) -> String {
            let mut cells = vec!['.'; 81];
            for (p, c) in stones {
                cells[gtp(p).index(9)] = *c;
            }
            cells.into_iter().collect()
        }

        fn timed(number: u32, color: Color, point: &str, ms: u64) -> Event {
            match mv(number, point) {
                Event::Move {
                    number,
                    point,
                    captured,
                    ..
                } => Event::Move {
                    number,
                    color,
                    point,
                    captured,
                    clock: Some(PerColor::new(ms, ms + 1000)),
                },
                other => other,
            }
        }

        #[test]
        fn nothing_public_before_the_setup() {
            let (b, out) = released(vec![mv(3, "C3")]);
            assert_eq!(out.len(), 1, "the event is public, the position is not");
            assert_eq!(b.public_feed().state(), Value::Null);
            assert_eq!(b.public_feed().sgf(), "");
        }

        #[test]
        fn rebuilds_position_clocks_and_captures() {
            // White's E5 is captured by Black's four stones around it.
            let mut events = vec![game_started(9, 0, "byoyomi 60m 5x30s")];
            for (i, (p, c)) in [
                ("D5", Color::Black),
                ("E5", Color::White),
                ("F5", Color::Black),
                ("A1", Color::White),
                ("E4", Color::Black),
                ("A2", Color::White),
                ("E6", Color::Black),
            ]
            .into_iter()
            .enumerate()
            {
                events.push(timed(i as u32 + 1, c, p, 60_000 - i as u64));
            }
            let (b, _) = released(events);
            let s = b.public_feed().state();
            assert_eq!(
                s["board"],
                rows(&[
                    ("D5", 'X'),
                    ("F5", 'X'),
                    ("E4", 'X'),
                    ("E6", 'X'),
                    ("A1", 'O'),
                    ("A2", 'O')
                ])
            );
            assert_eq!(s["captured"], json!({"B": 1, "W": 0}));
            assert_eq!(s["number"], 7);
            assert_eq!(s["to_move"], "W");
            assert_eq!(s["clocks"]["B"], 59_994);
            assert_eq!(s["seq"], 8);
            assert_eq!(s["alerts"], json!([]));
            assert_eq!(s["black"], "Shusaku");
            assert_eq!(s["phase"], "playing");
        }

        #[test]
        fn retractions_clock_presses_warnings_and_the_end_without_secrets() {
            let alert = Event::Alert(Alert {
                id: "a1".into(),
                code: AlertCode::StoneMoved,
                article: "17.5".into(),
                color: Some(Color::Black),
                points: vec![gtp("E5")],
                expected: Expected::default(),
                message: "secret".into(),
                late_ms: None,
            });
            let (mut b, out) = released(vec![
                game_started(9, 0, "byoyomi 60m 5x30s"),
                timed(1, Color::Black, "E5", 500_000),
                Event::Pass {
                    number: 2,
                    color: Color::White,
                },
                Event::MoveRetracted {
                    number: 2,
                    reason: RetractReason::ClockBeforeMove,
                },
                timed(2, Color::White, "C3", 400_000),
                Event::Clock(ClockReading {
                    color: Some(Color::White),
                    black: 1234,
                    white: 5678,
                    periods: PerColor::new(5, 4),
                    running: Some(Color::Black),
                    paused: Some(false),
                }),
                alert,
                Event::cleared("a1", tengen_protocol::event::ClearedHow::Restored),
                Event::SensorFault {
                    points: vec![gtp("J1")],
                    kind: FaultKind::Noisy,
                },
                Event::Warning {
                    color: Color::White,
                    article: "17.4".into(),
                    count: 1,
                },
            ]);
            let types: Vec<&str> = out.iter().map(|e| e.event.kind()).collect();
            assert_eq!(
                types,
                [
                    "game_started",
                    "move",
                    "pass",
                    "move_retracted",
                    "move",
                    "clock",
                    "warning"
                ],
                "alerts and sensor faults never go public"
            );
            let s = b.public_feed().state();
            assert_eq!(s["board"], rows(&[("E5", 'X'), ("C3", 'O')]));
            assert_eq!(s["number"], 2);
            assert_eq!(
                s["clocks"],
                json!({"B": 1234, "W": 5678, "periods": {"B": 5, "W": 4}, "running": "B", "paused": false}),
                "as the last public event left them"
            );
            assert_eq!(s["warnings"], json!({"B": 0, "W": 1}));
            assert_eq!(s["seq"], 10, "private events move the public seq on");
            assert_eq!(b.public_feed().last_seq(), 10);
            assert!(!s.to_string().contains("secret"));

            b.on_event(
                env(
                    11,
                    Event::GameOver(GameEnd::uncounted("B+R", EndReason::Resignation)),
                ),
                Instant::now(),
                false,
            );
            b.release(&NOW, Instant::now(), Timestamp::now());
            let s = b.public_feed().state();
            assert_eq!(
                (s["phase"].as_str(), s["result"].as_str()),
                (Some("over"), Some("B+R"))
            );
            let sgf_text = b.public_feed().sgf();
            assert!(!sgf_text.contains("secret"), "no comments: {sgf_text}");
            let sgf = tengen_rules::sgf::parse(&sgf_text).unwrap();
            assert_eq!(sgf.moves.len(), 2);
            assert_eq!(sgf.result.as_deref(), Some("B+R"));
            assert_eq!(sgf.black_name.as_deref(), Some("Shusaku"));
            assert_eq!(
                sgf.moves[1].time_left_ms,
                Some(401_000),
                "White's time after move 2"
            );
        }

        #[test]
        fn a_new_game_starts_afresh_with_its_handicap() {
            let (b, _) = released(vec![
                game_started(9, 0, "none"),
                mv(1, "E5"),
                game_started(9, 2, "none"),
            ]);
            let s = b.public_feed().state();
            assert_eq!(s["board"].as_str().unwrap().matches('X').count(), 2);
            assert_eq!(s["to_move"], "W");
            assert_eq!(s["number"], 0);
            let sgf = tengen_rules::sgf::parse(&b.public_feed().sgf()).unwrap();
            assert_eq!(sgf.handicap, 2);
            assert_eq!(sgf.black_setup.len(), 2);
        }

        /// A game whose stream has an alert, its clearing and a sensor fault, with the
        /// alert's words (`secret`) in it.
        fn with_secrets() -> Vec<Event> {
            vec![
                game_started(9, 0, "none"),
                mv(1, "E5"),
                Event::Alert(Alert {
                    id: "a1".into(),
                    code: AlertCode::StoneMoved,
                    article: "17.5".into(),
                    color: Some(Color::Black),
                    points: vec![gtp("E5")],
                    expected: Expected::default(),
                    message: "secret".into(),
                    late_ms: None,
                }),
                Event::cleared("a1", tengen_protocol::event::ClearedHow::Restored),
                Event::SensorFault {
                    points: vec![gtp("J1")],
                    kind: FaultKind::Noisy,
                },
                mv(2, "C3"),
            ]
        }

        /// What `feed` gives of the arbiters' events: their kinds among its events, and
        /// whether its state or SGF says `secret`.
        fn secrets_in(feed: &LiveFeed) -> (Vec<&'static str>, bool, bool) {
            let private: Vec<&'static str> = feed
                .events_after(0)
                .iter()
                .filter(|e| e.event.is_private())
                .map(|e| e.event.kind())
                .collect();
            let state = feed.state().to_string().contains("secret");
            let sgf = feed.sgf().contains("secret");
            (private, state, sgf)
        }

        #[test]
        fn without_a_delay_the_public_side_follows_live_without_the_arbiters_events() {
            let mut b = BoardView::new().with_live_commentary();
            let t = Instant::now();
            for (i, e) in with_secrets().into_iter().enumerate() {
                b.on_event(env(i as u64 + 1, e), t, false);
                b.release(&DelayPolicy::default(), t, Timestamp::now());
            }
            // The arbiters' live feed has them all.
            assert_eq!(b.feed().last_seq(), 6);
            assert!(b.feed().sgf().contains("secret"), "{}", b.feed().sgf());
            for feed in [b.public_feed(), b.commentary_feed()] {
                assert_eq!(feed.last_seq(), 6, "as live as the board");
                assert_eq!(feed.events_after(0).len(), 3);
                assert_eq!(secrets_in(feed), (vec![], false, false));
                assert_eq!(feed.state()["number"], 2);
            }
            let public = b.summary("t", "b1", t, Audience::Public, "");
            assert_eq!(public["open_alerts"], Value::Null);
        }

        #[test]
        fn under_a_delay_live_commentators_get_the_live_board_without_the_arbiters_events() {
            let mut b = BoardView::delayed().with_live_commentary();
            let t = Instant::now();
            for (i, e) in with_secrets().into_iter().enumerate() {
                b.on_event(env(i as u64 + 1, e), t, false);
            }
            let policy = DelayPolicy {
                moves: 2,
                window_ms: 0,
                release_at_end: true,
            };
            b.release(&policy, t, Timestamp::now());
            assert_eq!(b.public_feed().state()["number"], 0, "two moves held back");
            let live = b.commentary_feed();
            assert_eq!(live.state()["number"], 2);
            assert_eq!(secrets_in(live), (vec![], false, false));
            let seen = b.summary("t", "b1", t, Audience::Commentators, "/commentary");
            assert_eq!(
                (&seen["number"], &seen["open_alerts"]),
                (&json!(2), &Value::Null)
            );
            let arbiters = b.summary("t", "b1", t, Audience::Arbiters, "/console");
            assert_eq!(arbiters["open_alerts"], 0);
        }
    }
}
