//! Every page in four languages (issue 22), in headless Chromium against a real hall, a real
//! `tengen run` board and mosquitto:
//!
//! - each page (the hall's overview, a board's public page and its clock, the login form,
//!   the console, the arbiters' overview and live board view, the commentary overview and
//!   board page, the rounds archive; the board's own live page and `/clock`) in `zh`,
//!   `zh-Hant` and `ja` says so in `<html lang>` and leaves no English word in its own
//!   visible text, its tooltips and labels (player names, board ids, moves, results in
//!   Go notation and the switch's "English" aside);
//! - the board sits in an `uncaptured_stones` alert: the console's card and the arbiters'
//!   live view cite Art. 18.2 in the rules' own words (第18条第2款);
//! - `Accept-Language: zh-CN` with no `?lang=` gets Chinese, the `lang` cookie beats it,
//!   `?lang=` beats both; the board's `[board] lang = "ja"` is its pages' default;
//! - the language switch sets the cookie: the next page without `?lang=` keeps the choice;
//! - the board page lists moves as 黑/白, and its script says results, komi, ranks and an
//!   alert's sentence exactly as `tengen_l10n`'s Rust does (one sentence, two languages).
//!
//! Screenshots go to `CARGO_TARGET_TMPDIR/screenshots/lang-*.png`, a Chinese console at
//! 390x844 among them.

use crate::board::BoardProcess;
use crate::broker;
use crate::browser;
use crate::http;

use std::path::Path;
use std::time::{Duration, Instant};

use broker::Mosquitto;
use browser::{eval, launch, log_in, screenshot, wait_until};
use headless_chrome::Tab;
use serde_json::Value;
use tengen_hall::HallConfig;
use tengen_l10n::Lang;

const TOKEN: &str = "lang-token-0123";
const TMP: &str = env!("CARGO_TARGET_TMPDIR");

/// Seven moves on 9x9; Black's E6 captures White's E5 and Black presses the clock with E5
/// still on the board (Art. 18.2): the board stays in the alert.
const SCRIPT: &str = "size 9\n\
place B D5\npress B\nplace W E5\npress W\nplace B F5\npress B\nplace W A1\npress W\n\
place B E4\npress B\nplace W A2\npress W\nplace B E6\npress B\nwait 1s\n";

/// Words a page in another language may still show: the players' names, the tournament's
/// id, the product's name, the switch's "English", notation the arbiters type (`Void`),
/// the record's format (`SGF`) and the keys of the keyboard.
const ALLOWED: &[&str] = &[
    "Kitani", "Minoru", "Go", "Seigen", "open", "tengen", "English", "Void", "SGF",
    // The keys of the keyboard that the navigation buttons name.
    "Home", "End",
];

/// JavaScript: the words of two or more Latin letters in the page's visible text and in
/// its titles, labels, alt texts and placeholders, less [`ALLOWED`] and file names
/// (`round-1.zip`).
fn english_left_js() -> String {
    let allowed = serde_json::to_string(ALLOWED).expect("json");
    format!(
        "(() => {{ const allowed = new Set({allowed}); \
         const attrs = [...document.querySelectorAll('[title],[alt],[placeholder],[aria-label]')] \
           .filter(e => e.getClientRects().length || e.tagName === 'svg') \
           .map(e => [e.title, e.alt, e.placeholder, e.getAttribute('aria-label')].join(' ')); \
         const text = (document.body.innerText + ' ' + document.title + ' ' + attrs.join(' ')) \
           .replace(/[\\w.-]+\\.(zip|sgf)\\b/g, ' '); \
         return [...new Set(text.match(/[A-Za-z]{{2,}}/g) || [])].filter(w => !allowed.has(w)).join(' '); }})()"
    )
}

/// A `tengen run` board on the simulated script, publishing to the test's broker; killed
/// when dropped, even on a failed assertion.
fn run_board(dir: &Path, broker_port: u16, http_port: u16) -> BoardProcess {
    std::fs::write(dir.join("game.txt"), SCRIPT).expect("script");
    let config = dir.join("board.toml");
    std::fs::write(
        &config,
        format!(
            "[board]\nid = \"t07\"\ntournament = \"open\"\ngame = \"r1-t07\"\nsize = 9\nlang = \"ja\"\n\
             [hardware]\nbackend = \"sim\"\n\
             [hardware.sim]\nscript = \"{script}\"\nspeed = 20.0\n\
             [game]\nblack = \"Kitani Minoru\"\nwhite = \"Go Seigen\"\nround = \"1\"\ntable = \"7\"\n\
             [time]\nsystem = \"byoyomi\"\nmain = \"2h\"\nperiods = 3\nperiod = \"30s\"\n\
             [mqtt]\nurl = \"mqtt://127.0.0.1:{broker_port}\"\n\
             [http]\nlisten = \"127.0.0.1:{http_port}\"\n\
             [storage]\ndir = \"{data}\"\n",
            script = dir.join("game.txt").display(),
            data = dir.join("data").display(),
        ),
    )
    .expect("board config");
    BoardProcess::start(&config)
}

/// Opens `url` and waits until `ready` (JavaScript) is true on the new page: it has drawn
/// what the hall or the board sent it. (Not the load event: a board's own page, with the
/// players' faces streaming in, does not always report it to the DevTools client.)
fn open(tab: &Tab, url: &str, ready: &str) {
    eval(tab, "window.__left = true");
    tab.navigate_to(url).expect("navigate");
    wait_until(
        tab,
        &format!("!window.__left && document.readyState !== 'loading' && ({ready})"),
        true.into(),
        Duration::from_secs(30),
        url,
    );
}

/// The page in `tab` is in `lang` and shows no English word of its own.
fn assert_in(tab: &Tab, lang: &str, what: &str) {
    assert_eq!(
        eval(tab, "document.documentElement.lang"),
        Value::from(lang),
        "{what}: <html lang>"
    );
    assert_eq!(
        eval(tab, &english_left_js()),
        Value::from(""),
        "{what} in {lang}: English words left"
    );
    assert_eq!(
        eval(tab, "document.documentElement.outerHTML.includes('{{')"),
        Value::from(false),
        "{what}: a placeholder left unfilled"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_in_four_languages() {
    let Some(chromium) = browser::chromium() else {
        return;
    };
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let config = HallConfig::parse(
        &format!(
            "[hall]\nboard_silence_s = 3600\n\
             [[arbiter]]\nname = \"chief\"\ntoken = \"{TOKEN}\"\n"
        ),
        Path::new("hall.toml"),
    )
    .expect("hall config");
    let hall = tengen_hall::start(&mosq.url(), "127.0.0.1:0", &config)
        .await
        .expect("hall starts");
    let dir = tempfile::tempdir().expect("temp dir");
    let board_port = broker::free_port();
    let _board = run_board(dir.path(), mosq.port(), board_port);
    assert!(
        broker::wait_listening(board_port, Duration::from_secs(30)),
        "the board's web view listens"
    );
    let base = format!("http://{}", hall.addr);
    let board_base = format!("http://127.0.0.1:{board_port}");

    // Without `?lang=`: Accept-Language, then the cookie, then `?lang=`.
    let lang_of = |body: String| {
        body.split("<html lang=\"")
            .nth(1)
            .and_then(|r| r.split('"').next())
            .map(str::to_string)
    };
    let started = Instant::now();
    let page = http::get(
        hall.addr,
        "/",
        &[("Accept-Language", "zh-CN,zh;q=0.9,en;q=0.8")],
    )
    .await;
    assert_eq!(
        lang_of(page.text()).as_deref(),
        Some("zh"),
        "Accept-Language: zh-CN"
    );
    assert!(
        page.text().contains("tengen 赛场"),
        "the overview's title in Chinese"
    );
    let page = http::get(
        hall.addr,
        "/",
        &[("Accept-Language", "zh-CN"), ("Cookie", "lang=zh-Hant")],
    )
    .await;
    assert_eq!(
        lang_of(page.text()).as_deref(),
        Some("zh-Hant"),
        "the cookie first"
    );
    let page = http::get(
        hall.addr,
        "/?lang=ja",
        &[("Accept-Language", "zh-CN"), ("Cookie", "lang=zh-Hant")],
    )
    .await;
    assert_eq!(lang_of(page.text()).as_deref(), Some("ja"), "?lang= first");
    let page = http::get(hall.addr, "/rounds", &[("Accept-Language", "en-GB")]).await;
    assert_eq!(lang_of(page.text()).as_deref(), Some("en"));
    // The board's own pages speak `[board] lang` ("ja") where the browser asks for none.
    let board_addr = format!("127.0.0.1:{board_port}").parse().expect("address");
    for path in ["/", "/clock"] {
        let page = http::get(board_addr, path, &[]).await;
        assert_eq!(
            lang_of(page.text()).as_deref(),
            Some("ja"),
            "the board's {path}"
        );
        let page = http::get(board_addr, path, &[("Accept-Language", "zh-TW")]).await;
        assert_eq!(
            lang_of(page.text()).as_deref(),
            Some("zh-Hant"),
            "the board's {path}"
        );
    }
    eprintln!("negotiation over HTTP: {:?}", started.elapsed());

    let checks = tokio::task::spawn_blocking(move || {
        let browser = launch(chromium);
        let tab = browser.new_tab().expect("tab");
        let card = "document.querySelector('.card[data-board=\"t07\"] .players') !== null";
        let board_ready = "document.querySelectorAll('#moves div').length >= 7";
        // The public pages, before any login.
        let public = [
            ("overview", format!("{base}/"), card),
            ("board", format!("{base}/board/open/t07/"), board_ready),
            (
                "clock",
                format!("{base}/board/open/t07/clock"),
                "document.getElementById('imgB').complete",
            ),
            (
                "rounds",
                format!("{base}/rounds"),
                "document.querySelector('h1') !== null",
            ),
            (
                "login",
                format!("{base}/console"),
                "document.querySelector('input[name=name]') !== null",
            ),
            ("board-own", format!("{board_base}/"), board_ready),
            (
                "clock-own",
                format!("{board_base}/clock"),
                "document.getElementById('imgB').complete",
            ),
        ];
        for lang in ["zh", "zh-Hant", "ja"] {
            for (name, url, ready) in &public {
                let t = Instant::now();
                open(&tab, &format!("{url}?lang={lang}"), ready);
                assert_in(&tab, lang, name);
                // The clock (two pictures on black), the login form and the rounds list
                // are too plain for a screenshot (the helper wants a drawn page).
                if (lang == "zh" || *name == "board")
                    && ["overview", "board", "board-own"].contains(name)
                {
                    screenshot(&tab, TMP, &format!("lang-{name}-{lang}.png"));
                }
                eprintln!("{name} in {lang}: {:?}", t.elapsed());
            }
        }
        // English is still English, with `lang="en"`.
        open(&tab, &format!("{base}/?lang=en"), card);
        assert_eq!(eval(&tab, "document.title"), Value::from("tengen hall"));

        // The language switch: a click sets the cookie, and the next page without `?lang=`
        // keeps the choice.
        open(&tab, &format!("{base}/?lang=en"), card);
        browser::click_text(&tab, ".lang-switch a", "繁體中文");
        wait_until(
            &tab,
            "document.documentElement.lang",
            "zh-Hant".into(),
            Duration::from_secs(15),
            "the page after the switch",
        );
        assert_eq!(
            eval(&tab, "location.search"),
            Value::from(""),
            "the switch drops ?lang="
        );
        open(
            &tab,
            &format!("{base}/rounds"),
            "document.querySelector('h1') !== null",
        );
        assert_in(&tab, "zh-Hant", "the rounds page, by the cookie");

        // The arbiters' pages.
        tab.navigate_to(&format!("{base}/console?lang=zh"))
            .expect("console");
        tab.wait_until_navigated().expect("login form");
        log_in(&tab, "chief", TOKEN);
        // The board's alert may take a while on a loaded machine: the first wait is long.
        wait_until(
            &tab,
            "[...document.querySelectorAll('#alerts .alert')].some(d => d.dataset.key.includes('t07'))",
            true.into(),
            Duration::from_secs(90),
            "the board's alert in the console",
        );
        let alert = "[...document.querySelectorAll('#alerts .alert')].some(d => d.dataset.key.includes('t07'))";
        let arbiters = [
            ("console", format!("{base}/console"), alert),
            ("console-overview", format!("{base}/console/overview"), card),
            (
                "console-board",
                format!("{base}/console/board/open/t07/"),
                board_ready,
            ),
            ("commentary", format!("{base}/commentary"), card),
            (
                "commentary-board",
                format!("{base}/commentary/board/open/t07/"),
                board_ready,
            ),
        ];
        for lang in ["zh", "zh-Hant", "ja"] {
            for (name, url, ready) in &arbiters {
                let t = Instant::now();
                open(&tab, &format!("{url}?lang={lang}"), ready);
                assert_in(&tab, lang, name);
                if lang == "zh" {
                    screenshot(&tab, TMP, &format!("lang-{name}-{lang}.png"));
                }
                eprintln!("{name} in {lang}: {:?}", t.elapsed());
            }
        }

        // The alert card in Chinese cites its article in the rules' words.
        open(&tab, &format!("{base}/console?lang=zh"), alert);
        let card_text = eval(
            &tab,
            "(() => { const d = [...document.querySelectorAll('#alerts .alert')].find(d => d.dataset.key.includes('t07')); \
             return d.querySelector('h3').textContent + ' | ' + d.querySelector('.msg').textContent; })()",
        );
        let card_text = card_text.as_str().unwrap_or_default().to_string();
        assert!(
            card_text.starts_with("未提或漏提无气之子（第18条第2款） | "),
            "{card_text}"
        );
        assert!(
            card_text.contains("第18条第2款、第22条第6款：下子后，未提或漏提对方无气之子"),
            "{card_text}"
        );
        open(
            &tab,
            &format!("{base}/console/board/open/t07/?lang=zh-Hant"),
            "document.querySelector('#alerts .alert') !== null",
        );
        let live_card = eval(&tab, "document.querySelector('#alerts .alert').textContent");
        assert!(
            live_card
                .as_str()
                .unwrap_or_default()
                .starts_with("第18條第2款 未提或漏提無氣之子"),
            "{live_card}"
        );
        // The board page in Chinese: moves as 黑/白, not B/W; and the pages' script says
        // results, komi, ranks and an alert's sentence as the Rust of tengen-l10n does.
        open(
            &tab,
            &format!("{base}/board/open/t07/?lang=zh"),
            board_ready,
        );
        assert_eq!(
            eval(&tab, "document.querySelector('#moves div').textContent"),
            Value::from("1. 黑 D5")
        );
        for lang in [Lang::Zh, Lang::ZhHant, Lang::Ja, Lang::En] {
            open(
                &tab,
                &format!("{base}/board/open/t07/?lang={}", lang.tag()),
                board_ready,
            );
            for result in [
                "B+17.5", "W+0.5", "W+1", "B+4", "W+F", "B+R", "W+T", "0", "Void", "B+3.3",
            ] {
                assert_eq!(
                    eval(&tab, &format!("resultWords({result:?})")),
                    Value::from(tengen_l10n::result_words(lang, result)),
                    "{lang} {result}"
                );
            }
            for rank in ["9p", "3D", "12k", "pro"] {
                assert_eq!(
                    eval(&tab, &format!("rankWords({rank:?})")),
                    Value::from(tengen_l10n::rank_words(lang, rank)),
                    "{lang} {rank}"
                );
            }
            for komi in [7.5, 6.5, 0.5, 0.0] {
                assert_eq!(
                    eval(&tab, &format!("komiWords({komi})")),
                    Value::from(tengen_l10n::komi_words(lang, komi)),
                    "{lang} komi {komi}"
                );
            }
            let id = tengen_l10n::alert_check_id(lang, "time_expired", "12.4");
            assert_eq!(
                eval(&tab, "alertCheck({code: 'time_expired', article: '12.4'})"),
                Value::from(tengen_l10n::text(lang, &id, &[])),
                "{lang} sudden death"
            );
        }
        // A Chinese console on a phone.
        crate::browser_console::phone(&tab, 390, 844);
        open(&tab, &format!("{base}/console?lang=zh"), alert);
        assert_in(&tab, "zh", "the console on a phone");
        screenshot(&tab, TMP, "lang-console-zh-phone.png");
    });
    checks.await.expect("browser checks");
    hall.stop();
}
