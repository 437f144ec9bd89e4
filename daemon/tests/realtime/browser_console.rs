//! The arbiters' console as a floor arbiter uses it (issue 20), in headless Chromium against
//! a real hall, a real mosquitto and real `tengen run` boards (sim backend):
//!
//! - `nothing_decisive_in_one_tap_and_cards_hold_still` (a desk, 1280x900): table 4's board
//!   has two open `clock_before_move` alerts against Black, table 5's board plays on. The
//!   Board panel lists boards by table and players and keeps the table chosen over a reload.
//!   With the mouse over table 4's older card, table 5's board is killed and started again:
//!   its `board_restarted` alert is held behind a "1 new alert - show" bar and the card under
//!   the mouse does not move; once the mouse leaves, the new card shows, offering *Resume
//!   clocks*, which asks first. *Confirm (warning)* asks first, naming the table, the
//!   players and the consequence; Cancel sends nothing; OK sends; the second warning's
//!   question says Black loses (W+F), and the finished game offers *Reopen* and *Correct the
//!   result*. Table 5's clock set to 0:02 with no periods from the Board panel (minutes and
//!   seconds) lets the flag fall: its `time_expired` card offers *Record W+T* and *Forfeit
//!   the turn* (no *Confirm (warning)*); the forfeit asks first, then the board records
//!   Black's pass and play goes on. The history says each step in words ("Resume clocks ·
//!   table 5 · chief · 23:12:40 · done"), never the signed fields.
//! - `a_phone_shows_the_alerts_first_and_the_round_in_play` (390x844): the open alert comes
//!   first, then the Board panel, then the Round view, which opens on the round in play
//!   (round 3 of seven) and shows every table's result without sideways scrolling.
//!
//! Screenshots go to `CARGO_TARGET_TMPDIR/screenshots/console-*.png`. Needs
//! `/usr/bin/chromium` and `/usr/sbin/mosquitto` (a failure under `TENGEN_REQUIRE_ORACLES=1`).

use crate::board::BoardProcess;
use crate::broker::Mosquitto;
use crate::browser::{
    self, answer_console_dialog, ask_via, click, element_js, eval, hover, launch, log_in,
    open_question, screenshot, wait_until,
};

use std::path::{Path, PathBuf};
use std::time::Duration;

use headless_chrome::Tab;
use serde_json::{json, Value};

const TOKEN: &str = "console-token-0123";
const TMP: &str = env!("CARGO_TARGET_TMPDIR");
const LONG: Duration = Duration::from_secs(40);

/// Black presses the clock before setting the stone down, twice (Art. 17.4): two open
/// `clock_before_move` alerts against Black, each a warning once confirmed; then White's
/// clock runs on.
const TWO_EARLY_PRESSES: &str = "place B D5\npress B\nplace W E5\npress W\n\
press B\nplace B F5\npress B\nplace W A1\npress W\npress B\nplace B G5\npress B\nwait 24h\n";

/// Two moves, then Black thinks: Black's clock runs (and the board keeps scanning, so that
/// a flag falls).
const BLACK_THINKS: &str = "place B C3\npress B\nplace W G7\npress W\nwait 24h\n";

/// One board at a table: its id, its game and what its simulated players do.
pub(crate) struct Seat<'a> {
    pub(crate) tournament: &'a str,
    pub(crate) board: &'a str,
    pub(crate) game: &'a str,
    pub(crate) round: u32,
    pub(crate) table: u32,
    pub(crate) black: &'a str,
    pub(crate) white: &'a str,
    pub(crate) size: u8,
    /// The `[time]` table's lines.
    pub(crate) time: &'a str,
    /// The script's actions (the size line is added).
    pub(crate) script: &'a str,
}

/// Writes the seat's board config and script under `dir/{board}` and starts `tengen run`.
pub(crate) fn start_board(dir: &Path, seat: &Seat<'_>, broker_port: u16) -> BoardProcess {
    let dir = dir.join(seat.board);
    std::fs::create_dir_all(&dir).expect("board dir");
    std::fs::write(
        dir.join("game.txt"),
        format!("size {}\n{}", seat.size, seat.script),
    )
    .expect("script");
    let config: PathBuf = dir.join("board.toml");
    std::fs::write(
        &config,
        format!(
            "[board]\nid = \"{board}\"\ntournament = \"{tournament}\"\ngame = \"{game}\"\nsize = {size}\n\
             [hardware]\nbackend = \"sim\"\n[hardware.sim]\nscript = \"game.txt\"\nspeed = 4.0\n\
             [game]\nblack = \"{black}\"\nwhite = \"{white}\"\nround = \"{round}\"\ntable = \"{table}\"\n\
             [time]\n{time}\n\
             [mqtt]\nurl = \"mqtt://127.0.0.1:{broker_port}\"\n\
             [http]\nlisten = \"127.0.0.1:0\"\n[display]\ndriver = \"none\"\n[voice]\nstyle = \"off\"\n\
             [storage]\ndir = \"data\"\n",
            board = seat.board,
            tournament = seat.tournament,
            game = seat.game,
            size = seat.size,
            black = seat.black,
            white = seat.white,
            round = seat.round,
            table = seat.table,
            time = seat.time,
        ),
    )
    .expect("board config");
    BoardProcess::start(&config)
}

/// A hall with one arbiter, `chief`, on `mosq`; its base URL.
async fn start_hall(mosq: &Mosquitto) -> (tengen_hall::RunningHall, String) {
    let config = tengen_hall::HallConfig::parse(
        &format!("[[arbiter]]\nname = \"chief\"\ntoken = \"{TOKEN}\"\n"),
        Path::new("hall.toml"),
    )
    .expect("hall config");
    let hall = tengen_hall::start(&mosq.url(), "127.0.0.1:0", &config)
        .await
        .expect("hall starts");
    let base = format!("http://{}", hall.addr);
    (hall, base)
}

/// JavaScript: the alert card of board `board` with code `code` (the first, newest, if
/// several).
fn card(board: &str, code: &str) -> String {
    format!(
        "[...document.querySelectorAll('#alerts .alert')].find(d => d.dataset.key.split('/')[1] === '{board}' \
         && d.dataset.code === '{code}' && !d.classList.contains('closed'))"
    )
}

/// JavaScript: the texts of the buttons of card `card` (a JavaScript expression), joined by `|`.
fn buttons_of(card: &str) -> String {
    format!("[...({card})?.querySelectorAll('button') ?? []].map(b => b.textContent).join('|')")
}

/// JavaScript: a board of `/api/console/boards`, fetched by the page (a JSON string).
fn board_json(tab: &Tab, board: &str) -> Value {
    let js = format!(
        "fetch('/api/console/boards').then(r => r.json()).then(l => JSON.stringify(l.find(b => b.board === '{board}') ?? null))"
    );
    let text = tab
        .evaluate(&js, true)
        .expect("evaluate")
        .value
        .unwrap_or(Value::Null);
    serde_json::from_str(text.as_str().unwrap_or("null")).unwrap_or(Value::Null)
}

/// Polls board `board` of `/api/console/boards` until `ok` holds; panics with the board.
fn wait_board(tab: &Tab, board: &str, what: &str, ok: impl Fn(&Value) -> bool) -> Value {
    let start = std::time::Instant::now();
    loop {
        let b = board_json(tab, board);
        if ok(&b) {
            return b;
        }
        assert!(start.elapsed() < LONG, "{what}: the hall shows {b}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// How many commands the hall has sent (`/api/console/commands`), as the page fetches them.
fn commands_sent(tab: &Tab) -> usize {
    let n = tab
        .evaluate(
            "fetch('/api/console/commands').then(r => r.json()).then(l => l.length)",
            true,
        )
        .expect("evaluate")
        .value
        .unwrap_or(Value::Null);
    n.as_u64().expect("a count") as usize
}

/// A card's place on the screen: `[x, y, width, height]`.
fn bounds(tab: &Tab, element: &str) -> Value {
    eval(
        tab,
        &format!("(() => {{ const r = ({element}).getBoundingClientRect(); return JSON.stringify([r.x, r.y, r.width, r.height]); }})()"),
    )
}

/// Chooses `value` in the `<select>` with id `id`, as a person's choice does (a `change`).
fn choose(tab: &Tab, id: &str, value: &str) {
    eval(
        tab,
        &format!(
            "(() => {{ const s = document.getElementById('{id}'); s.value = '{value}'; \
             s.dispatchEvent(new Event('change')); return s.value; }})()"
        ),
    );
}

/// Types `value` into the input with id `id` (replacing what it holds).
fn fill(tab: &Tab, id: &str, value: &str) {
    eval(
        tab,
        &format!("(() => {{ const i = document.getElementById('{id}'); i.value = '{value}'; return 1; }})()"),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_decisive_in_one_tap_and_cards_hold_still() {
    let Some(chromium) = browser::chromium() else {
        return;
    };
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let (hall, base) = start_hall(&mosq).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let time = "system = \"byoyomi\"\nmain = \"2h\"\nperiods = 3\nperiod = \"30s\"";
    let four = Seat {
        tournament: "open",
        board: "t01",
        game: "r1-t04",
        round: 1,
        table: 4,
        black: "Kim Minsu",
        white: "Lee Jiwon",
        size: 9,
        time,
        script: TWO_EARLY_PRESSES,
    };
    let five = Seat {
        board: "t02",
        game: "r1-t05",
        table: 5,
        black: "Cho Hyeyeon",
        white: "Park Junghwan",
        script: BLACK_THINKS,
        ..four
    };
    let _table4 = start_board(dir.path(), &four, mosq.port());
    let mut table5 = start_board(dir.path(), &five, mosq.port());

    let checks = tokio::task::spawn_blocking(move || {
        let browser = launch(chromium);
        let tab = browser.new_tab().expect("tab");
        tab.navigate_to(&format!("{base}/console"))
            .expect("console");
        tab.wait_until_navigated().expect("login form");
        log_in(&tab, "chief", TOKEN);
        // Table 4's open cards (a card closed under the mouse stays, greyed, until it leaves).
        let early = "[...document.querySelectorAll('#alerts .alert:not(.closed)')]\
                     .filter(d => d.dataset.key.startsWith('open/t01/'))";
        wait_until(
            &tab,
            &format!("{early}.length"),
            2.into(),
            LONG,
            "table 4's two early presses",
        );
        // Table 5's game is under way: Black's clock runs.
        wait_board(&tab, "t02", "table 5 plays", |b| b["number"] == 2);

        // The Board panel lists boards by table and players; the choice survives a reload.
        wait_until(
            &tab,
            "[...document.querySelectorAll('#board option')].map(o => o.textContent).join('|')",
            "Table 4 · Kim Minsu – Lee Jiwon · t01|Table 5 · Cho Hyeyeon – Park Junghwan · t02"
                .into(),
            LONG,
            "the Board panel's tables",
        );
        choose(&tab, "board", "open/t02");
        tab.reload(false, None).expect("reload");
        tab.wait_until_navigated().expect("reloaded");
        wait_until(
            &tab,
            "document.querySelectorAll('#board option').length",
            2.into(),
            LONG,
            "the boards again",
        );
        std::thread::sleep(Duration::from_millis(2500)); // a board refresh or two
        assert_eq!(
            eval(&tab, "document.getElementById('board').value"),
            json!("open/t02"),
            "the table chosen before the reload"
        );
        assert!(
            eval(&tab, "document.getElementById('boardInfo').textContent")
                .as_str()
                .is_some_and(|t| t.starts_with("Table 5, Cho Hyeyeon – Park Junghwan · t02")),
            "the panel names the table"
        );
        wait_until(
            &tab,
            &format!("{early}.length"),
            2.into(),
            LONG,
            "the cards after the reload",
        );

        // The mouse rests on table 4's older card (the second: newest first) while table 5's
        // board goes down and comes back.
        let older = format!("{early}[1]");
        let older_key = eval(&tab, &format!("({older}).dataset.key"));
        let under = format!(
            "document.querySelector('#alerts .alert[data-key=\"{}\"]')",
            older_key.as_str().expect("a card's key")
        );
        hover(
            &tab,
            &format!("({under}).querySelector('.msg')"),
            "the older card",
        );
        let before = bounds(&tab, &under);
        table5.kill();
        table5.restart();
        wait_until(
            &tab,
            "(() => { const b = document.getElementById('heldBar'); return !b.hidden && /^\\d+ new alerts? - show$/.test(b.textContent); })()",
            true.into(),
            LONG,
            "the new alert held behind the bar",
        );
        std::thread::sleep(Duration::from_millis(1500)); // more refreshes under the mouse
        assert_eq!(
            bounds(&tab, &under),
            before,
            "the card under the mouse stays put"
        );
        assert_eq!(
            eval(&tab, "document.querySelectorAll('#alerts .alert').length"),
            json!(2),
            "nothing added under the mouse"
        );
        screenshot(&tab, TMP, "console-held.png");
        // The mouse leaves: the board's restart shows, first.
        tab.move_mouse_to_point(headless_chrome::browser::tab::point::Point { x: 5.0, y: 5.0 })
            .expect("move the mouse away");
        let restarted = card("t02", "board_restarted");
        wait_until(
            &tab,
            &format!("document.querySelector('#alerts .alert') === ({restarted})"),
            true.into(),
            LONG,
            "the restarted board's card, on top",
        );
        assert_eq!(
            eval(&tab, "document.getElementById('heldBar').hidden"),
            json!(true)
        );
        assert_eq!(
            eval(&tab, &buttons_of(&restarted)),
            json!("Resume clocks|Close, clocks stay stopped|I'll go"),
            "a restarted board offers to resume its clocks"
        );
        // The rule's sentence and, under it, the board's own specifics (issue 31).
        assert!(
            eval(
                &tab,
                &format!("({restarted}).querySelector('.says').textContent")
            )
            .as_str()
            .is_some_and(|t| t.starts_with("The board says: ")),
            "the board's words under the rule's"
        );
        let asked = ask_via(&tab, &format!("[...({restarted}).querySelectorAll('button')].find(b => b.textContent === 'Resume clocks')"), "Resume clocks", true);
        assert!(
            asked.starts_with("Table 5, Cho Hyeyeon – Park Junghwan: the clocks start again"),
            "{asked}"
        );
        wait_until(
            &tab,
            &format!("!({restarted})"),
            true.into(),
            LONG,
            "resume closes the restart's alert",
        );
        wait_board(&tab, "t02", "table 5's clocks run", |b| {
            b["clocks"]["paused"] == false
        });

        // A warning asks first; Cancel sends nothing.
        let confirm_older = format!(
            "[...({under}).querySelectorAll('button')].find(b => b.textContent === 'Confirm (warning)')"
        );
        let sent = commands_sent(&tab);
        let asked = ask_via(&tab, &confirm_older, "Confirm (warning)", false);
        assert_eq!(
            asked,
            "Table 4, Kim Minsu – Lee Jiwon: Black's first warning (clock pressed before the move). \
             One stone comes off Black's count at the end (Art. 24.1)."
        );
        std::thread::sleep(Duration::from_millis(1500));
        assert_eq!(commands_sent(&tab), sent, "Cancel sends nothing");
        assert_eq!(board_json(&tab, "t01")["warnings"], json!({"B": 0, "W": 0}));
        // OK sends: Black's first warning.
        ask_via(&tab, &confirm_older, "Confirm (warning)", true);
        wait_board(&tab, "t01", "Black's first warning", |b| {
            b["warnings"]["B"] == 1
        });
        // The second: the question says what it costs.
        let newer = card("t01", "clock_before_move");
        wait_until(
            &tab,
            &format!("{early}.length"),
            1.into(),
            LONG,
            "one early press left",
        );
        open_question(&tab, &format!("[...({newer}).querySelectorAll('button')].find(b => b.textContent === 'Confirm (warning)')"), "Confirm (warning)");
        screenshot(&tab, TMP, "console-second-warning.png");
        let asked = answer_console_dialog(&tab, true);
        assert_eq!(
            asked,
            "Table 4, Kim Minsu – Lee Jiwon: Black's second warning (clock pressed before the move). \
             Black loses the game (W+F, Art. 24.2)."
        );
        wait_board(&tab, "t01", "the game lost on warnings", |b| {
            b["phase"] == "over" && b["result"] == "W+F"
        });
        // The finished game can be undone from the Board panel.
        choose(&tab, "board", "open/t01");
        wait_until(
            &tab,
            "['bReopen', 'bCorrect'].map(id => !document.getElementById(id).closest('p').hidden && !document.getElementById(id).hidden).join(' ')",
            "true true".into(),
            LONG,
            "Reopen and Correct the result for the finished game",
        );

        // Table 5: the arbiter leaves Black two seconds and no period, in minutes and seconds.
        choose(&tab, "board", "open/t02");
        choose(&tab, "adjColor", "B");
        fill(&tab, "adjMin", "0");
        fill(&tab, "adjSec", "2");
        fill(&tab, "adjPeriods", "0");
        let asked = ask_via(
            &tab,
            &element_js("#bAdjust", "Set the time"),
            "Set the time",
            true,
        );
        assert_eq!(
            asked,
            "Table 5, Cho Hyeyeon – Park Junghwan: Black's clock is set to 0:02, 0 byo-yomi periods left. Art. 22.8: one side's time is changed only with the chief arbiter's consent."
        );
        let flag = card("t02", "time_expired");
        wait_until(
            &tab,
            &buttons_of(&flag),
            "What the sensors saw|Record W+T|Forfeit the turn|I'll go".into(),
            LONG,
            "the flag's card offers the next step, and no warning",
        );
        assert!(
            eval(
                &tab,
                &format!("({flag}).querySelector('a.live').getAttribute('href')")
            )
            .as_str()
            .is_some_and(|h| h.starts_with("/console/board/open/t02/?move=")),
            "the card links the live board at the alert's move"
        );
        screenshot(&tab, TMP, "console-time-expired.png");
        let asked = ask_via(&tab, &format!("[...({flag}).querySelectorAll('button')].find(b => b.textContent === 'Record W+T')"), "Record W+T", false);
        assert_eq!(
            asked,
            "Table 5, Cho Hyeyeon – Park Junghwan: Black's time ran out. The game ends: White wins on time (W+T)."
        );
        let asked = ask_via(&tab, &format!("[...({flag}).querySelectorAll('button')].find(b => b.textContent === 'Forfeit the turn')"), "Forfeit the turn", true);
        assert!(
            asked.starts_with(
                "Table 5, Cho Hyeyeon – Park Junghwan: Black's time ran out. Black loses this turn"
            ),
            "{asked}"
        );
        wait_board(&tab, "t02", "Black's turn forfeited, play goes on", |b| {
            b["number"] == 3 && b["phase"] == "playing" && b["clocks"]["running"] == "W"
        });
        wait_until(
            &tab,
            &format!("!({flag})"),
            true.into(),
            LONG,
            "the flag's card closed",
        );

        // The history, in words, newest first, every command answered.
        let history = "[...document.querySelectorAll('#commands li')].map(l => l.textContent)";
        wait_until(
            &tab,
            &format!("{history}.every(t => t.endsWith(' · done'))"),
            true.into(),
            LONG,
            "every command done",
        );
        let lines = eval(&tab, &format!("JSON.stringify({history})"));
        let lines: Vec<String> =
            serde_json::from_str(lines.as_str().expect("the history")).expect("lines of text");
        let lines: Vec<String> = lines
            .iter()
            .map(|l| l.replace(|c: char| c.is_ascii_digit(), "9"))
            .collect();
        assert_eq!(
            lines,
            [
                "Resume play, White to move · table 9 · chief · 99:99:99 · done",
                "Adjust time: Black 9:99, 9 periods · table 9 · chief · 99:99:99 · done",
                "Confirm alert: clock pressed before the move · table 9 · chief · 99:99:99 · done",
                "Confirm alert: clock pressed before the move · table 9 · chief · 99:99:99 · done",
                "Resume clocks · table 9 · chief · 99:99:99 · done",
            ],
            "the history in words"
        );
        let all = eval(&tab, "document.getElementById('historyBox').textContent");
        for raw in ["sig", "at=", "board=", "tournament="] {
            assert!(
                !all.as_str().unwrap_or_default().contains(raw),
                "{raw} in {all}"
            );
        }
        screenshot(&tab, TMP, "console-history.png");
    });
    checks.await.expect("browser checks");
    hall.stop();
}

/// Emulates a phone of `width` x `height` CSS pixels (a touch screen, 3 device pixels each).
pub(crate) fn phone(tab: &Tab, width: u32, height: u32) {
    use headless_chrome::protocol::cdp::Emulation::SetDeviceMetricsOverride;
    tab.call_method(SetDeviceMetricsOverride {
        width,
        height,
        device_scale_factor: 3.0,
        mobile: true,
        scale: None,
        screen_width: Some(width),
        screen_height: Some(height),
        position_x: None,
        position_y: None,
        dont_set_visible_size: None,
        screen_orientation: None,
        viewport: None,
        display_feature: None,
        device_posture: None,
    })
    .expect("phone metrics");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_phone_shows_the_alerts_first_and_the_round_in_play() {
    let Some(chromium) = browser::chromium() else {
        return;
    };
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    // Seven rounds, all in the file; round 3's table 1 is on its board now.
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tournament/tests/data/opengotha/cdfo2020.xml"),
        dir.path().join("cup.xml"),
    )
    .expect("tournament file");
    let config_path = dir.path().join("hall.toml");
    std::fs::write(
        &config_path,
        format!(
            "[tournament]\nfile = \"cup.xml\"\nboards = \"hall1-{{table:02}}\"\nid = \"cup\"\n\
             [[arbiter]]\nname = \"chief\"\ntoken = \"{TOKEN}\"\n"
        ),
    )
    .expect("hall.toml");
    let config = tengen_hall::HallConfig::load(&config_path).expect("hall config");
    let hall = tengen_hall::start(&mosq.url(), "127.0.0.1:0", &config)
        .await
        .expect("hall starts");
    let base = format!("http://{}", hall.addr);
    let seat = Seat {
        tournament: "cup",
        board: "hall1-01",
        game: "r3-t1",
        round: 3,
        table: 1,
        black: "Neirynck Lucas",
        white: "Labouret Florent",
        size: 19,
        time: "system = \"canadian\"\nmain = \"80m\"\nstones = 15\nperiod = \"5m\"",
        script: TWO_EARLY_PRESSES,
    };
    let _board = start_board(dir.path(), &seat, mosq.port());

    let checks = tokio::task::spawn_blocking(move || {
        let browser = launch(chromium);
        let tab = browser.new_tab().expect("tab");
        phone(&tab, 390, 844);
        tab.navigate_to(&format!("{base}/console"))
            .expect("console");
        tab.wait_until_navigated().expect("login form");
        log_in(&tab, "chief", TOKEN);
        wait_until(
            &tab,
            "document.querySelectorAll('#alerts .alert').length",
            2.into(),
            LONG,
            "the board's alerts",
        );
        wait_until(
            &tab,
            "document.querySelectorAll('#tables tr').length",
            11.into(),
            LONG,
            "the Round view",
        );
        assert_eq!(
            eval(&tab, "document.getElementById('roundNo').value"),
            json!("3"),
            "the round in play, not the file's last"
        );
        wait_until(
            &tab,
            "document.querySelector('#tables tr[data-table=\"1\"] td.state').textContent.startsWith('playing')",
            true.into(),
            LONG,
            "table 1 playing",
        );
        // Top to bottom: the alerts, the Board panel, the Round view.
        let top = |id: &str| {
            eval(
                &tab,
                &format!("document.getElementById('{id}').getBoundingClientRect().top + scrollY"),
            )
            .as_f64()
            .expect("a place")
        };
        let (alerts, panel, round) = (top("alerts"), top("board"), top("tables"));
        assert!(
            alerts < panel && panel < round,
            "alerts {alerts}, Board panel {panel}, Round view {round}"
        );
        assert!(
            eval(
                &tab,
                "document.querySelector('#alerts .alert').getBoundingClientRect().bottom"
            )
            .as_f64()
            .is_some_and(|b| b <= 844.0),
            "the first alert whole on the first screen"
        );
        assert_eq!(
            eval(&tab, "document.documentElement.scrollWidth <= innerWidth"),
            json!(true),
            "no sideways scrolling: {} wide",
            eval(&tab, "document.documentElement.scrollWidth")
        );
        assert_eq!(
            eval(
                &tab,
                "[...document.querySelectorAll('#tables td.result')].every(td => { const r = td.getBoundingClientRect(); return r.left >= 0 && r.right <= innerWidth; })"
            ),
            json!(true),
            "every result within the screen"
        );
        assert_eq!(
            eval(
                &tab,
                "document.querySelector('#tables tr[data-table=\"2\"] td.result').textContent"
            ),
            json!("Black wins (in file)"),
            "a result of the file shown"
        );
        // The Board panel speaks the board's time system: Canadian stones.
        assert_eq!(
            eval(
                &tab,
                "document.getElementById('adjPeriodsLabel').textContent"
            ),
            json!("stones to play in this period")
        );
        screenshot(&tab, TMP, "console-phone.png");
        eval(&tab, "document.getElementById('board').scrollIntoView(); 1");
        screenshot(&tab, TMP, "console-phone-board.png");
        eval(
            &tab,
            "document.getElementById('roundNo').scrollIntoView(); 1",
        );
        screenshot(&tab, TMP, "console-phone-round.png");
        assert_eq!(
            eval(
                &tab,
                &format!(
                    "!!{}",
                    element_js("#alerts .alert button", "Confirm (warning)")
                )
            ),
            json!(true),
            "a card's buttons on the phone"
        );
    });
    checks.await.expect("browser checks");
    hall.stop();
}

/// Everything decisive can be undone, and the hall-wide steps (the board's `reopen`,
/// `withdraw_warning` and `set_result` `reason`; the hall's `pause-all`, `board_offline` and
/// `last_heard_ms`). Table 4 loses on two warnings, is reopened with a reason,
/// one warning is withdrawn and its clocks resumed; table 5's flag falls and the arbiter
/// records W+T, then corrects it to W+R; table 6's board dies, the hall's `board_offline`
/// card comes, and *Pause all* says it was not reached (table 5, over, is not in play); the Board panel shows each board's last sign of life.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_decisive_step_can_be_undone_and_a_dead_board_rings() {
    let Some(chromium) = browser::chromium() else {
        return;
    };
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let (hall, base) = start_hall(&mosq).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let time = "system = \"byoyomi\"\nmain = \"2h\"\nperiods = 3\nperiod = \"30s\"";
    let four = Seat {
        tournament: "open",
        board: "t01",
        game: "r1-t04",
        round: 1,
        table: 4,
        black: "Kim Minsu",
        white: "Lee Jiwon",
        size: 9,
        time,
        script: TWO_EARLY_PRESSES,
    };
    let five = Seat {
        board: "t02",
        game: "r1-t05",
        table: 5,
        black: "Cho Hyeyeon",
        white: "Park Junghwan",
        script: BLACK_THINKS,
        ..four
    };
    let six = Seat {
        board: "t03",
        game: "r1-t06",
        table: 6,
        black: "Shin Jinseo",
        white: "Byun Sangil",
        script: BLACK_THINKS,
        ..four
    };
    let _table4 = start_board(dir.path(), &four, mosq.port());
    let _table5 = start_board(dir.path(), &five, mosq.port());
    let mut table6 = start_board(dir.path(), &six, mosq.port());

    let checks = tokio::task::spawn_blocking(move || {
        let browser = launch(chromium);
        let tab = browser.new_tab().expect("tab");
        tab.navigate_to(&format!("{base}/console"))
            .expect("console");
        tab.wait_until_navigated().expect("login form");
        log_in(&tab, "chief", TOKEN);
        let early = "[...document.querySelectorAll('#alerts .alert:not(.closed)')]\
                     .filter(d => d.dataset.key.startsWith('open/t01/'))";
        wait_until(
            &tab,
            &format!("{early}.length"),
            2.into(),
            LONG,
            "table 4's two early presses",
        );
        for b in ["t02", "t03"] {
            wait_board(&tab, b, "the game under way", |j| j["number"] == 2);
        }

        // Two warnings: the game is lost (W+F).
        for left in [1, 0] {
            let confirm = format!(
                "[...{early}[0].querySelectorAll('button')].find(b => b.textContent === 'Confirm (warning)')"
            );
            ask_via(&tab, &confirm, "Confirm (warning)", true);
            wait_until(
                &tab,
                &format!("{early}.length"),
                left.into(),
                LONG,
                "a card confirmed",
            );
        }
        wait_board(&tab, "t01", "lost on warnings", |b| b["result"] == "W+F");

        // Reopen, with the reason: back to play, clocks stopped, no result.
        choose(&tab, "board", "open/t01");
        open_question(&tab, &element_js("#bReopen", "Reopen"), "Reopen");
        fill(&tab, "askReason", "the wrong card was confirmed");
        let asked = answer_console_dialog(&tab, true);
        assert!(
            asked.starts_with(
                "Table 4, Kim Minsu – Lee Jiwon: the result White wins by forfeit (W+F) is taken back."
            ),
            "{asked}"
        );
        wait_board(&tab, "t01", "reopened", |b| {
            b["phase"] == "playing" && b["result"].is_null() && b["clocks"]["paused"] == true
        });
        // The wrong warning withdrawn.
        wait_until(
            &tab,
            "!document.getElementById('bWithdrawB').hidden && !document.getElementById('bWithdrawB').closest('p').hidden",
            true.into(),
            LONG,
            "Withdraw Black's warning offered",
        );
        assert_eq!(
            ask_via(&tab, &element_js("#bWithdrawB", "Withdraw Black's warning"), "Withdraw Black's warning", true),
            "Table 4, Kim Minsu – Lee Jiwon: one of Black's warnings is taken back; Black has 1 left."
        );
        wait_board(&tab, "t01", "one warning left", |b| b["warnings"]["B"] == 1);
        ask_via(
            &tab,
            &element_js("#bResume", "Resume clocks"),
            "Resume clocks",
            true,
        );
        wait_board(&tab, "t01", "the clocks run again", |b| {
            b["clocks"]["paused"] == false
        });

        // Table 5's flag falls: the arbiter records W+T.
        choose(&tab, "board", "open/t02");
        choose(&tab, "adjColor", "B");
        fill(&tab, "adjMin", "0");
        fill(&tab, "adjSec", "2");
        fill(&tab, "adjPeriods", "0");
        ask_via(
            &tab,
            &element_js("#bAdjust", "Set the time"),
            "Set the time",
            true,
        );
        let flag = card("t02", "time_expired");
        wait_until(&tab, &format!("!!({flag})"), true.into(), LONG, "the flag");
        ask_via(&tab, &format!("[...({flag}).querySelectorAll('button')].find(b => b.textContent === 'Record W+T')"), "Record W+T", true);
        wait_board(&tab, "t02", "won on time", |b| {
            b["phase"] == "over" && b["result"] == "W+T"
        });
        // Corrected: the arbiter meant a resignation.
        wait_until(
            &tab,
            "!document.getElementById('bCorrect').closest('p').hidden",
            true.into(),
            LONG,
            "Correct the result offered",
        );
        open_question(
            &tab,
            &element_js("#bCorrect", "Correct the result"),
            "Correct the result",
        );
        fill(&tab, "askResult", "W+R");
        let asked = answer_console_dialog(&tab, true);
        assert!(
            asked.starts_with(
                "Table 5, Cho Hyeyeon – Park Junghwan: the result White wins on time (W+T) is replaced."
            ),
            "{asked}"
        );
        wait_board(&tab, "t02", "the corrected result", |b| {
            b["phase"] == "over" && b["result"] == "W+R"
        });

        // Table 6's board dies; Pause all says what it reached.
        table6.kill();
        wait_board(&tab, "t03", "table 6 offline", |b| b["status"] == "offline");
        // The hall's own card: the board in play dropped off.
        let offline = card("t03", "board_offline");
        wait_until(
            &tab,
            &format!("!!({offline})"),
            true.into(),
            LONG,
            "board_offline card",
        );
        wait_until(
            &tab,
            &format!("({offline}).textContent.includes('Table 6')"),
            true.into(),
            LONG,
            "the card names the table",
        );
        assert_eq!(
            ask_via(
                &tab,
                &element_js("#pauseAll", "Pause all"),
                "Pause all",
                true
            ),
            "Every board with a game in play: both clocks stop (Art. 14)."
        );
        wait_until(
            &tab,
            "(() => { const t = document.getElementById('said').textContent; \
             return t.startsWith('Paused 1 board; not reached: ') && t.includes('table 6 (offline)') \
             && !t.includes('table 5'); })()",
            true.into(),
            LONG,
            "what Pause all reached",
        );
        wait_board(&tab, "t01", "table 4 paused", |b| {
            b["clocks"]["paused"] == true
        });
        // The last sign of life of each board.
        choose(&tab, "board", "open/t01");
        wait_until(
            &tab,
            "/ · heard \\d+ s ago/.test(document.getElementById('boardInfo').textContent)",
            true.into(),
            LONG,
            "the board's last sign of life",
        );
        screenshot(&tab, TMP, "console-undone.png");
    });
    checks.await.expect("browser checks");
    hall.stop();
}

/// Black's stone at C3 is pushed to C4 after move 3 (Art. 17.5) and left there: a
/// `stone_moved` alert stays open.
const STONE_PUSHED: &str =
    "place B C3\npress B\nplace W G7\npress W\nplace B G3\npress B\nslide C3 C4\nwait 24h\n";

/// Issue 23: the `stone_moved` card opens *What the sensors saw*: the board as the sensors
/// read it 10 s either side of the alert, from the board's black box through the hall. At
/// the alert's moment it shows the stone on C4 and C3 empty, beside the expected position
/// (the stone on C3); the slider goes back to a scan with the stone still on C3, marking
/// the points that changed; Black's presses are on the time line. Screenshot:
/// `console-sensors-saw.png`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_alert_card_shows_what_the_sensors_saw() {
    let Some(chromium) = browser::chromium() else {
        return;
    };
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let (_hall, base) = start_hall(&mosq).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let seat = Seat {
        tournament: "open",
        board: "t07",
        game: "r1-t07",
        round: 1,
        table: 7,
        black: "Kim Minsu",
        white: "Lee Jiwon",
        size: 9,
        time: "system = \"byoyomi\"\nmain = \"2h\"\nperiods = 3\nperiod = \"30s\"",
        script: STONE_PUSHED,
    };
    let _board = start_board(dir.path(), &seat, mosq.port());

    let checks = tokio::task::spawn_blocking(move || {
        let browser = launch(chromium);
        let tab = browser.new_tab().expect("tab");
        tab.navigate_to(&format!("{base}/console"))
            .expect("console");
        tab.wait_until_navigated().expect("login form");
        log_in(&tab, "chief", TOKEN);
        let moved = card("t07", "stone_moved");
        wait_until(
            &tab,
            &format!("!!({moved})"),
            true.into(),
            LONG,
            "the stone_moved card",
        );
        // Its frames are on the board once their second is written.
        std::thread::sleep(Duration::from_secs(2));
        // The card's buttons are the next steps; the evidence is under its picture.
        assert_eq!(
            eval(&tab, &buttons_of(&moved)),
            json!("What the sensors saw|Dismiss|I'll go"),
        );
        click(
            &tab,
            &format!("({moved}).querySelector('.left button.seen')"),
            "What the sensors saw",
        );
        wait_until(
            &tab,
            "document.getElementById('seen').open && !document.getElementById('seenScrub').hidden",
            true.into(),
            LONG,
            "the sensors' view with its scans",
        );
        // What a picture shows at a point: "X", "O" or "" (each stone drawn names its point).
        let stone = |pic: &str, p: &str| -> Value {
            eval(
                &tab,
                &format!(
                    "(() => {{ const c = document.querySelector('#{pic} circle[data-p=\"{p}\"]'); \
                     return c ? (c.getAttribute('fill') === '#111' ? 'X' : 'O') : ''; }})()"
                ),
            )
        };
        assert_eq!(
            eval(&tab, "document.getElementById('seenTitle').textContent"),
            json!("What the sensors saw: Table 7, Kim Minsu – Lee Jiwon"),
        );
        // At the alert: the stone sits on C4, C3 is empty; the board expects it on C3.
        assert_eq!(stone("seenPhysical", "C4"), json!("X"), "C4 at the alert");
        assert_eq!(stone("seenPhysical", "C3"), json!(""), "C3 at the alert");
        assert_eq!(stone("seenExpected", "C3"), json!("X"), "expected: C3");
        assert_eq!(stone("seenExpected", "C4"), json!(""), "expected: C4 empty");
        let presses = eval(
            &tab,
            "[...document.querySelectorAll('#seenMarks .press')].length",
        );
        assert!(presses.as_u64().unwrap_or(0) >= 2, "presses: {presses}");
        screenshot(&tab, TMP, "console-sensors-saw.png");
        // Back through the scans to the push: the scan where C3 emptied is marked.
        let back = eval(
            &tab,
            "(() => { const r = document.getElementById('seenScrub'); \
             for (let i = Number(r.value); i >= 0; i--) { r.value = i; r.dispatchEvent(new Event('input')); \
               if (/C3/.test(document.getElementById('seenWhat').textContent)) return i; } return -1; })()",
        );
        assert!(back.as_i64().unwrap_or(-1) >= 0, "a scan where C3 changed");
        assert_eq!(
            eval(
                &tab,
                "document.querySelectorAll('#seenPhysical rect[stroke=\"#e53935\"]').length > 0"
            ),
            json!(true),
            "the changed points marked"
        );
        // Before it, the stone on C3.
        let before = eval(
            &tab,
            "(() => { const r = document.getElementById('seenScrub'); \
             for (let i = Number(r.value); i >= 0; i--) { r.value = i; r.dispatchEvent(new Event('input')); \
               if (document.querySelector('#seenPhysical circle[data-p=\"C3\"]')) return i; } return -1; })()",
        );
        assert!(before.as_i64().unwrap_or(-1) >= 0, "a scan with the stone on C3");
        assert_eq!(stone("seenPhysical", "C4"), json!(""), "C4 before the push");
        assert!(eval(&tab, "document.getElementById('seenAt').textContent")
            .as_str()
            .is_some_and(|t| t.contains(" s (") && t.contains("ms into the game")));
        screenshot(&tab, TMP, "console-sensors-saw-scrubbed.png");
        // On a phone (390 px): the two boards one above the other, nothing cut off sideways.
        phone(&tab, 390, 844);
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(
            eval(
                &tab,
                "document.getElementById('seen').scrollWidth <= document.getElementById('seen').clientWidth"
            ),
            json!(true),
            "the sensors' view fits a phone's width"
        );
        screenshot(&tab, TMP, "console-sensors-saw-phone.png");
    })
    .await;
    if let Err(e) = checks {
        std::panic::resume_unwind(e.into_panic());
    }
}
