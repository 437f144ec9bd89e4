//! The arbiter's record (issue 31) on a phone (390 px), in English and in Chinese, in
//! headless Chromium against a real hall, a real mosquitto and real `tengen run` boards
//! (sim backend):
//!
//! - `a_violation_put_right_waits_for_the_arbiter`: White presses the clock with a captured
//!   stone still on the board (Art. 18.2, 22.6) and lifts it a moment later. The card stays,
//!   as *restored, warning pending*, offering *Warn (Art. 18.2)* and *No warning* (and the
//!   black box), in both languages; the warning given minutes later counts. A command the
//!   board refuses (a card already closed elsewhere) says *refused* with the board's reason
//!   in the reader's words, never "sent". The arbiter's own warning (*Give a warning*,
//!   Art. 17.3, with a reason) is the second: the game is lost. The Board panel's incident
//!   log and its printable page hold every step with who and when, in both languages; the
//!   language switch covers no button on the phone.
//! - `match_morning_the_right_round_and_a_correction_that_counts`: a seven-round file whose
//!   first six rounds have their results. The Round view opens on round 7; *Start round* on
//!   round 1 says its results are in the file and asks again. Table 1's result set by the
//!   arbiter and confirmed shows its margin; *Correct the result* rewrites the
//!   confirmation (results file, round zip, feed) and says from what; a reopen flags the
//!   row; *Void the game* takes it out of the feed and the overview. The filters (boards
//!   only, compact rows) shorten the view.
//!
//! Screenshots (`CARGO_TARGET_TMPDIR/screenshots/record-*.png`): the pending-warning card,
//! the incident log printed (print media), the match-morning Round view.

use crate::broker::Mosquitto;
use crate::browser::{
    self, answer_console_dialog, ask_via, click, element_js, eval, launch, log_in, open_question,
    screenshot, wait_until,
};
use crate::browser_console::{phone, start_board, Seat};

use std::path::Path;
use std::time::Duration;

use headless_chrome::Tab;
use serde_json::{json, Value};

const TOKEN: &str = "record-token-0123";
const TMP: &str = env!("CARGO_TARGET_TMPDIR");
const LONG: Duration = Duration::from_secs(40);

/// White captures A1 with B1 and presses the clock with A1 still on the board (Art. 18.2,
/// 22.6), then lifts it: the board is right again before any arbiter could be there.
const PUT_RIGHT: &str = "place B A1\npress B\nplace W A2\npress W\nplace B E5\npress B\n\
place W B1\npress W\nwait 4s\nlift A1\nplace B E6\npress B\nwait 24h\n";

/// A hall with arbiter `chief` on `mosq`, with `extra` in its config; its base URL.
async fn start_hall(
    mosq: &Mosquitto,
    dir: &Path,
    extra: &str,
) -> (tengen_hall::RunningHall, String) {
    let path = dir.join("hall.toml");
    std::fs::write(
        &path,
        format!("{extra}[[arbiter]]\nname = \"chief\"\ntoken = \"{TOKEN}\"\n"),
    )
    .expect("hall.toml");
    let config = tengen_hall::HallConfig::load(&path).expect("hall config");
    let hall = tengen_hall::start(&mosq.url(), "127.0.0.1:0", &config)
        .await
        .expect("hall starts");
    let base = format!("http://{}", hall.addr);
    (hall, base)
}

/// JavaScript: the open card of board `board` with code `code`.
fn card(board: &str, code: &str) -> String {
    format!(
        "[...document.querySelectorAll('#alerts .alert')].find(d => d.dataset.key.split('/')[1] === '{board}' \
         && d.dataset.code === '{code}' && !d.classList.contains('closed'))"
    )
}

/// JavaScript: the texts of card `card`'s buttons, joined by `|`.
fn buttons_of(card: &str) -> String {
    format!("[...({card})?.querySelectorAll('button') ?? []].map(b => b.textContent).join('|')")
}

/// The JSON the page fetches from `url` (same origin, the arbiter's cookie).
fn fetch_json(tab: &Tab, url: &str) -> Value {
    let js = format!("fetch('{url}').then(r => r.text())");
    let text = tab
        .evaluate(&js, true)
        .expect("evaluate")
        .value
        .unwrap_or(Value::Null);
    serde_json::from_str(text.as_str().unwrap_or("null")).unwrap_or(Value::Null)
}

/// Polls `url`'s JSON until `ok` holds.
fn wait_json(tab: &Tab, url: &str, what: &str, ok: impl Fn(&Value) -> bool) -> Value {
    let start = std::time::Instant::now();
    loop {
        let v = fetch_json(tab, url);
        if ok(&v) {
            return v;
        }
        assert!(start.elapsed() < LONG, "{what}: {url} gives {v}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Board `board` of `/api/console/boards` once `ok` holds.
fn wait_board(tab: &Tab, board: &str, what: &str, ok: impl Fn(&Value) -> bool) -> Value {
    let list = wait_json(tab, "/api/console/boards", what, |l| {
        l.as_array()
            .and_then(|l| l.iter().find(|b| b["board"] == board))
            .is_some_and(&ok)
    });
    list.as_array()
        .and_then(|l| l.iter().find(|b| b["board"] == board).cloned())
        .unwrap_or(Value::Null)
}

/// Chooses `value` in the `<select>` with id `id`, as a person's choice does.
fn choose(tab: &Tab, id: &str, value: &str) {
    eval(
        tab,
        &format!(
            "(() => {{ const s = document.getElementById('{id}'); s.value = '{value}'; \
             s.dispatchEvent(new Event('change')); return s.value; }})()"
        ),
    );
}

/// Types `value` into the input with id `id`.
fn fill(tab: &Tab, id: &str, value: &str) {
    eval(
        tab,
        &format!("(() => {{ const i = document.getElementById('{id}'); i.value = '{value}'; return 1; }})()"),
    );
}

/// Opens `path` of the hall in `tab` (logged in already), in `lang`.
fn open(tab: &Tab, base: &str, path: &str, lang: &str) {
    let sep = if path.contains('?') { '&' } else { '?' };
    tab.navigate_to(&format!("{base}{path}{sep}lang={lang}"))
        .expect("navigate");
    tab.wait_until_navigated().expect("page");
}

/// True when the language switch covers no button, link or field of the page (it sits
/// after the page's end on a phone).
fn switch_covers_nothing(tab: &Tab) -> bool {
    eval(
        tab,
        "(() => { const s = document.querySelector('.lang-switch'); if (!s) return true; \
         const r = s.getBoundingClientRect(); \
         return getComputedStyle(s).position !== 'fixed' && [...document.querySelectorAll('button, a, input, select')] \
           .filter(e => !s.contains(e) && e.getClientRects().length) \
           .every(e => { const q = e.getBoundingClientRect(); \
             return q.right <= r.left || q.left >= r.right || q.bottom <= r.top || q.top >= r.bottom; }); })()",
    ) == json!(true)
}

/// Emulates print media (the incident log as it prints).
fn print_media(tab: &Tab, on: bool) {
    use headless_chrome::protocol::cdp::Emulation::SetEmulatedMedia;
    tab.call_method(SetEmulatedMedia {
        media: Some(if on { "print" } else { "" }.to_string()),
        features: None,
    })
    .expect("emulated media");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_violation_put_right_waits_for_the_arbiter() {
    let Some(chromium) = browser::chromium() else {
        return;
    };
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let (hall, base) = start_hall(&mosq, dir.path(), "").await;
    let seat = Seat {
        tournament: "open",
        board: "t01",
        game: "r1-t04",
        round: 1,
        table: 4,
        black: "Kim Minsu",
        white: "Lee Jiwon",
        size: 9,
        time: "system = \"byoyomi\"\nmain = \"2h\"\nperiods = 3\nperiod = \"30s\"",
        script: PUT_RIGHT,
    };
    let _board = start_board(dir.path(), &seat, mosq.port());

    let checks = tokio::task::spawn_blocking(move || {
        let browser = launch(chromium);
        let tab = browser.new_tab().expect("tab");
        phone(&tab, 390, 844);
        tab.navigate_to(&format!("{base}/console?lang=en"))
            .expect("console");
        tab.wait_until_navigated().expect("login form");
        log_in(&tab, "chief", TOKEN);
        // The board was put right (B then plays E6): the card stays, its warning pending.
        wait_board(
            &tab,
            "t01",
            "Black's E6 after the board was put right",
            |b| b["number"] == 5,
        );
        let pending = card("t01", "uncaptured_stones");
        wait_until(
            &tab,
            &format!("!!({pending}) && ({pending}).classList.contains('awaiting')"),
            true.into(),
            LONG,
            "the card put right, its warning pending",
        );
        assert_eq!(
            eval(&tab, &buttons_of(&pending)),
            json!("What the sensors saw|Warn (Art. 18.2)|No warning|I'll go"),
        );
        let text = eval(&tab, &format!("({pending}).textContent"));
        let text = text.as_str().unwrap_or_default();
        assert!(text.contains("the warning is pending"), "{text}");
        assert!(
            text.contains("the rules give the warning all the same (Art. 17.2, 18.2, 22.6)"),
            "{text}"
        );
        assert!(
            switch_covers_nothing(&tab),
            "the language switch on the phone"
        );
        screenshot(&tab, TMP, "record-pending-warning.png");

        // In Chinese, the same card.
        open(&tab, &base, "/console", "zh");
        wait_until(
            &tab,
            &format!("!!({pending}) && ({pending}).classList.contains('awaiting')"),
            true.into(),
            LONG,
            "the pending card in Chinese",
        );
        assert_eq!(
            eval(&tab, &buttons_of(&pending)),
            json!("传感器所见|判警告（第18条第2款）|不判警告|我去处理"),
        );
        assert!(eval(&tab, &format!("({pending}).textContent"))
            .as_str()
            .is_some_and(|t| t.contains("警告待定")));
        screenshot(&tab, TMP, "record-pending-warning-zh.png");
        open(&tab, &base, "/console", "en");
        wait_until(
            &tab,
            &format!("!!({pending})"),
            true.into(),
            LONG,
            "the card again",
        );

        // The warning, given after the fact: it counts.
        let asked = ask_via(
            &tab,
            &format!("[...({pending}).querySelectorAll('button')].find(b => b.textContent === 'Warn (Art. 18.2)')"),
            "Warn (Art. 18.2)",
            true,
        );
        assert_eq!(
            asked,
            "Table 4, Kim Minsu – Lee Jiwon: White's first warning (captured stones left on the board). \
             One stone comes off White's count at the end (Art. 24.1)."
        );
        wait_board(&tab, "t01", "White's warning", |b| b["warnings"]["W"] == 1);
        wait_until(
            &tab,
            &format!("!({pending})"),
            true.into(),
            LONG,
            "the card closed",
        );
        wait_until(
            &tab,
            "document.getElementById('said').textContent",
            "Done: Confirm alert: captured stones left on the board · table 4".into(),
            LONG,
            "the notice says it was done",
        );

        // A command the board refuses says so, with its reason, in the reader's words.
        let refuse = "command({tournament: 'open', board: 't01', table: '4'}, {type: 'confirm', alert: 'a99'}); 1";
        eval(&tab, refuse);
        wait_until(
            &tab,
            "(() => { const s = document.getElementById('said'); return s.classList.contains('error') && s.textContent; })()",
            "Refused by the board: Confirm alert · table 4: alert a99 is no longer open".into(),
            LONG,
            "refused, not sent",
        );
        open(&tab, &base, "/console", "zh");
        wait_until(
            &tab,
            "document.querySelector('#commands li.refused')?.textContent.endsWith('被拒绝: 提示 a99 已不在待处理中')",
            true.into(),
            LONG,
            "the refusal in the history, in Chinese",
        );
        eval(&tab, refuse);
        wait_until(
            &tab,
            "document.getElementById('said').textContent.startsWith('棋盘拒绝：')",
            true.into(),
            LONG,
            "refused, in Chinese",
        );
        open(&tab, &base, "/console", "en");

        // The arbiter's own finding: White's second warning (Art. 17.3), with a reason.
        wait_until(
            &tab,
            "!document.getElementById('bGiveWarning').closest('p').hidden",
            true.into(),
            LONG,
            "Give a warning on the Board panel",
        );
        open_question(
            &tab,
            &element_js("#bGiveWarning", "Give a warning"),
            "Give a warning",
        );
        choose(&tab, "askSide", "W");
        choose(&tab, "askArticle", "17.3");
        fill(&tab, "askReason", "took a stone back after letting go");
        let asked = answer_console_dialog(&tab, true);
        assert_eq!(
            asked,
            "Table 4, Kim Minsu – Lee Jiwon: White gets a second warning (Art. 17.3): White loses the game (B+F, Art. 24.2)."
        );
        wait_board(&tab, "t01", "lost on two warnings", |b| {
            b["phase"] == "over" && b["result"] == "B+F" && b["warnings"]["W"] == 2
        });

        // The incident log: on the Board panel, and as a page to print.
        let log = "[...document.querySelectorAll('#boardLogList li')].map(l => l.textContent).join('\\n')";
        wait_until(
            &tab,
            &format!("{log}.includes('Warning to White (Art. 17.3) on the arbiter')"),
            true.into(),
            LONG,
            "the Board panel's incident log",
        );
        let lines = fetch_json(&tab, "/api/console/incidents/open/t01?game=r1-t04");
        let kinds: Vec<&str> = lines["lines"]
            .as_array()
            .expect("lines")
            .iter()
            .filter_map(|l| l["kind"].as_str())
            .filter(|k| *k != "clock")
            .collect();
        assert_eq!(
            kinds,
            ["alert", "cleared", "warning", "cleared", "warning", "result"],
            "{lines}"
        );
        let texts: Vec<String> = lines["lines"]
            .as_array()
            .expect("lines")
            .iter()
            .map(|l| format!("{} / {}", l["text"].as_str().unwrap_or(""), l["by"]))
            .collect();
        let all = texts.join("\n");
        for want in [
            "Alert: Captured stones left on the board · Art. 18.2 · White · A1 / null",
            "put right on the board; the warning is pending, for an arbiter to decide / null",
            "Warning to White (Art. 18.2), 1 in this game / \"chief\"",
            "Captured stones left on the board: confirmed / \"chief\"",
            "Warning to White (Art. 17.3) on the arbiter's own finding, 2 in this game / \"chief\"",
            "Game over: Black wins by forfeit (B+F), by warnings / \"chief\"",
        ] {
            assert!(all.contains(want), "{want} in\n{all}");
        }
        open(&tab, &base, "/console/incidents/open/t01?game=r1-t04", "en");
        let page = eval(&tab, "document.body.innerText");
        let page = page.as_str().unwrap_or_default();
        assert!(
            page.contains("Why: took a stone back after letting go"),
            "{page}"
        );
        assert!(
            page.contains("Table 4 · round 1 · board t01 · game r1-t04"),
            "{page}"
        );
        print_media(&tab, true);
        assert_eq!(
            eval(
                &tab,
                "getComputedStyle(document.querySelector('.print')).display"
            ),
            json!("none"),
            "the print button does not print"
        );
        screenshot(&tab, TMP, "record-incident-log-printed.png");
        print_media(&tab, false);
        open(&tab, &base, "/console/incidents/open/t01?game=r1-t04", "zh");
        let page = eval(&tab, "document.body.innerText");
        let page = page.as_str().unwrap_or_default();
        assert!(page.contains("事件记录"), "{page}");
        assert!(
            page.contains("裁判自行判白方警告（第17条第3款），本局第2次"),
            "{page}"
        );
        assert!(switch_covers_nothing(&tab), "the switch on the log's page");
        print_media(&tab, true);
        screenshot(&tab, TMP, "record-incident-log-printed-zh.png");
    });
    checks.await.expect("browser checks");
    hall.stop();
}

/// Two moves, then both think (Black's clock runs).
const TWO_MOVES: &str = "place B C3\npress B\nplace W G7\npress W\nwait 24h\n";

/// The results file's `result` of round `round`, table `table`.
fn result_in_file(path: &Path, round: u32, table: u32) -> String {
    let text = std::fs::read_to_string(path).expect("results file");
    let needle = format!("roundNumber=\"{round}\" tableNumber=\"{table}\"");
    let line = text
        .lines()
        .find(|l| l.contains(&needle))
        .unwrap_or_else(|| panic!("no game {round}/{table} in the results file"));
    let start = line.find("result=\"").expect("a result") + 8;
    line[start..]
        .split('"')
        .next()
        .unwrap_or_default()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn match_morning_the_right_round_and_a_correction_that_counts() {
    let Some(chromium) = browser::chromium() else {
        return;
    };
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    // Seven rounds; the first six have their results in the file (yesterday's play).
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tournament/tests/data/opengotha/cdfo2020.xml"),
        dir.path().join("cup.xml"),
    )
    .expect("tournament file");
    let (hall, base) = start_hall(
        &mosq,
        dir.path(),
        "[tournament]\nfile = \"cup.xml\"\nboards = \"hall1-{table:02}\"\nid = \"cup\"\n",
    )
    .await;
    let results = dir.path().join("cup-results.xml");
    let seat = Seat {
        tournament: "cup",
        board: "hall1-01",
        game: "r7-t1",
        round: 7,
        table: 1,
        black: "Le Calvé Tanguy",
        white: "Labouret Florent",
        size: 9,
        time: "system = \"byoyomi\"\nmain = \"2h\"\nperiods = 3\nperiod = \"30s\"",
        script: TWO_MOVES,
    };
    let _board = start_board(dir.path(), &seat, mosq.port());

    let checks = tokio::task::spawn_blocking(move || {
        let browser = launch(chromium);
        let tab = browser.new_tab().expect("tab");
        phone(&tab, 390, 844);
        tab.navigate_to(&format!("{base}/console?lang=en"))
            .expect("console");
        tab.wait_until_navigated().expect("login form");
        log_in(&tab, "chief", TOKEN);
        wait_board(&tab, "hall1-01", "table 1 under way", |b| b["number"] == 2);
        let row = |t: u32| format!("document.querySelector('#tables tr[data-table=\"{t}\"]')");
        wait_until(
            &tab,
            "document.querySelectorAll('#tables tr').length",
            11.into(),
            LONG,
            "the Round view",
        );
        assert_eq!(
            eval(&tab, "document.getElementById('roundNo').value"),
            json!("7"),
            "match morning: the first round whose games lack a result, not round 1"
        );
        eval(
            &tab,
            "document.getElementById('roundNo').scrollIntoView(); 1",
        );
        assert!(
            switch_covers_nothing(&tab),
            "the language switch on the phone"
        );
        screenshot(&tab, TMP, "record-match-morning.png");
        // The filters: only the tables with a board; compact rows.
        let height = || {
            eval(
                &tab,
                "document.getElementById('roundTable').getBoundingClientRect().height",
            )
            .as_f64()
            .expect("a height")
        };
        let full = height();
        eval(&tab, "document.getElementById('fCompact').click(); 1");
        std::thread::sleep(Duration::from_millis(200));
        let compact = height();
        assert!(
            compact < full * 0.8,
            "compact rows: {compact} px against {full} px"
        );
        eprintln!("Round view, 11 tables at 390 px: {full:.0} px, compact {compact:.0} px");
        eval(&tab, "document.getElementById('fBoards').click(); 1");
        wait_until(
            &tab,
            "document.querySelectorAll('#tables tr').length",
            1.into(),
            LONG,
            "boards only",
        );
        eval(&tab, "document.getElementById('fBoards').click(); document.getElementById('fCompact').click(); 1");

        // Round 1's results are in the file: Start round says so and asks again.
        choose(&tab, "roundNo", "1");
        wait_until(
            &tab,
            &format!("{}?.textContent.includes('in file')", row(2)),
            true.into(),
            LONG,
            "round 1 shown",
        );
        open_question(
            &tab,
            &element_js("#startRound", "Start round"),
            "Start round",
        );
        // OK; the hall's answer opens the second question at once.
        click(&tab, "document.getElementById('askOk')", "OK");
        wait_until(
            &tab,
            "document.getElementById('ask').open && document.getElementById('askTitle').textContent",
            "Results already in the file".into(),
            LONG,
            "asked again",
        );
        assert_eq!(
            eval(&tab, "document.getElementById('askText').textContent"),
            json!("Round 1: 11 of its 11 games already have a result in the results file. Is this the round to start?")
        );
        screenshot(&tab, TMP, "record-has-results.png");
        answer_console_dialog(&tab, false);
        assert_eq!(
            fetch_json(&tab, "/api/console/commands"),
            json!([]),
            "nothing sent to any board"
        );
        choose(&tab, "roundNo", "7");
        wait_until(
            &tab,
            &format!(
                "{}?.querySelector('td.state').textContent.startsWith('playing')",
                row(1)
            ),
            true.into(),
            LONG,
            "round 7 again",
        );

        // The arbiter records White's resignation and confirms it: the margin shows.
        fill(&tab, "result", "W+R");
        ask_via(
            &tab,
            &element_js("#bSetResult", "Set result"),
            "Set result",
            true,
        );
        wait_board(&tab, "hall1-01", "W+R", |b| b["result"] == "W+R");
        let confirm = format!("{}.querySelector('button.confirm')", row(1));
        wait_until(
            &tab,
            &format!("!({confirm}).hidden"),
            true.into(),
            LONG,
            "the result pending",
        );
        ask_via(&tab, &confirm, "Confirm", true);
        wait_until(
            &tab,
            &format!("{}.querySelector('td.result').textContent", row(1)),
            "White wins (confirmed by chief)White wins by resignation (W+R)".into(),
            LONG,
            "confirmed, with the margin and the reason",
        );
        assert_eq!(result_in_file(&results, 7, 1), "RESULT_WHITEWINS");

        // *Correct the result*: the confirmation is rewritten everywhere. On a phone a
        // table's actions show once it is tapped.
        click(
            &tab,
            &format!("{}.querySelector('td.tbl')", row(1)),
            "table 1",
        );
        open_question(
            &tab,
            &format!("[...{}.querySelectorAll('button')].find(b => b.textContent === 'Correct the result')", row(1)),
            "Correct the result",
        );
        fill(&tab, "askResult", "B+2.5");
        fill(&tab, "askReason", "the count slip was misread");
        answer_console_dialog(&tab, true);
        wait_until(
            &tab,
            &format!("{}.querySelector('td.result').textContent", row(1)),
            "Black wins (confirmed by chief)Black wins by 2.5 points (B+2.5) · corrected from White wins by resignation (W+R)".into(),
            LONG,
            "the correction on the row",
        );
        assert_eq!(
            result_in_file(&results, 7, 1),
            "RESULT_BLACKWINS",
            "the results file"
        );
        let feed = wait_json(&tab, "/feed/round/7/index.json", "the feed's result", |v| {
            v["games"][0]["result"] == "B+2.5"
        });
        assert_eq!(feed["games"][0]["table"], 1);
        wait_until(
            &tab,
            "[...document.querySelectorAll('#commands li')].some(l => l.textContent.startsWith('Confirmed result corrected: White wins by resignation (W+R) → Black wins (Black wins by 2.5 points (B+2.5))'))",
            true.into(),
            LONG,
            "the correction in the history",
        );
        screenshot(&tab, TMP, "record-correction.png");

        // A reopen sets the confirmation aside, flagged on the row.
        open_question(
            &tab,
            &format!(
                "[...{}.querySelectorAll('button')].find(b => b.textContent === 'Reopen')",
                row(1)
            ),
            "Reopen",
        );
        answer_console_dialog(&tab, true);
        wait_until(
            &tab,
            &format!("{}.querySelector('.flag').textContent", row(1)),
            "reopened: the confirmed result is set aside until the game ends again".into(),
            LONG,
            "the reopened row flagged",
        );

        // Voided: out of the feed and the public overview; the table can be set up again.
        let asked = ask_via(
            &tab,
            &format!(
                "[...{}.querySelectorAll('button')].find(b => b.textContent === 'Void the game')",
                row(1)
            ),
            "Void the game",
            true,
        );
        assert!(
            asked.starts_with("Table 1, le_Calvé Tanguy – Labouret Florent: the game is void"),
            "{asked}"
        );
        wait_until(
            &tab,
            &format!(
                "{}.querySelector('td.state').textContent.startsWith('void')",
                row(1)
            ),
            true.into(),
            LONG,
            "the table void",
        );
        // The round's only game gone, the round has no index any more (a 404).
        wait_json(
            &tab,
            "/feed/round/7/index.json",
            "the void game leaves the feed",
            |v| v.is_null() || v["games"].as_array().is_some_and(|g| g.is_empty()),
        );
        let public = fetch_json(&tab, "/api/boards");
        assert_eq!(
            public[0]["black"],
            Value::Null,
            "the public overview: {public}"
        );
        assert_eq!(fetch_json(&tab, "/api/rounds"), json!([]), "/rounds");

        // In Chinese, the Round view of the morning.
        open(&tab, &base, "/console", "zh");
        wait_until(
            &tab,
            &format!(
                "{}?.querySelector('td.state').textContent.startsWith('无效')",
                row(1)
            ),
            true.into(),
            LONG,
            "the Round view in Chinese",
        );
        eval(
            &tab,
            "document.getElementById('roundNo').scrollIntoView(); 1",
        );
        screenshot(&tab, TMP, "record-match-morning-zh.png");
    });
    checks.await.expect("browser checks");
    hall.stop();
}
