//! The players' arrival (Art. 22) in the arbiter's console, in a real browser (headless
//! Chromium) on a phone (390x844), against a real mosquitto, a real hall and three real
//! boards (`tengen run`, sim backend, rehearsal players, `[game] late_limit_s = 12`) for
//! round 1 of `tournoi-chinois.xml`:
//!
//! - table 1's White never comes, table 2's Black sits down 3 s after play begins, table
//!   3's players are on time; the arbiter starts the round and begins play;
//! - the Round view's seats column says it at a glance: "○ not checked in" before play,
//!   "○ missing 0:05" after, "● 0:03 late, 0:06 taken", "both seated";
//! - `[hall] late_reminder_s = 8`: 8 s before the limit the reminder lists table 1 with
//!   White missing (screenshot `arrival-round-phone.png`, the page no wider than the phone);
//! - at the limit the board's `absent` card offers "Record a win by default for Black",
//!   asks first, and the Round view shows the win by default pending; *Reopen* undoes it.
//!
//! Needs chromium and mosquitto (a failure under `TENGEN_REQUIRE_ORACLES=1`).

use crate::broker;
use crate::browser;
use crate::browser_console::phone;

use std::path::Path;
use std::process::{Child, Command};
use std::time::Duration;

use broker::Mosquitto;
use browser::{
    answer_console_dialog, click, eval, launch, log_in, open_question, screenshot, wait_until,
};

const TOKEN: &str = "arrival-token-0123";
const TMP: &str = env!("CARGO_TARGET_TMPDIR");

/// A `tengen run` board process; killed when dropped.
struct Board(Child);

impl Drop for Board {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Board `hall1-0{n}` of tournament `cup`: rehearsal players who wait for the table's game,
/// check in unless `arrive` (`[hardware.sim]` keys) says otherwise, and play the demo game.
fn run_board(dir: &Path, n: u32, broker_port: u16, arrive: &str) -> Board {
    let dir = dir.join(format!("board{n}"));
    std::fs::create_dir_all(&dir).unwrap();
    let game = Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/games/demo.sgf");
    let config = dir.join("board.toml");
    std::fs::write(
        &config,
        format!(
            "[board]\nid = \"hall1-0{n}\"\ntournament = \"cup\"\nsize = 19\n\
             [hardware]\nbackend = \"sim\"\n[hardware.sim]\nsgf = {game:?}\nrehearse = true\n{arrive}\n\
             [game]\nlate_limit_s = 12\n\
             [mqtt]\nurl = \"mqtt://127.0.0.1:{broker_port}\"\n\
             [http]\nlisten = \"127.0.0.1:0\"\n[display]\ndriver = \"none\"\n[voice]\nstyle = \"off\"\n\
             [storage]\ndir = \"data\"\n"
        ),
    )
    .unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["run", "--config"])
        .arg(&config)
        .env("RUST_LOG", "warn")
        .spawn()
        .expect("spawn tengen run");
    Board(child)
}

/// JavaScript: the text of row `table`'s cell of class `class` in the Round view, its lines
/// (a player each in the seats) joined by " | ".
fn cell(table: u32, class: &str) -> String {
    format!(
        "[...(document.querySelector('#tables tr[data-table=\"{table}\"] td.{class}')?.children ?? [])]\
         .map(e => e.textContent).join(' | ') || (document.querySelector('#tables tr[data-table=\"{table}\"] td.{class}')?.textContent ?? '')"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_no_show_is_defaulted_and_undone_and_the_seats_fit_a_phone() {
    let Some(chromium) = browser::chromium() else {
        return;
    };
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tournament/tests/data/opengotha/tournoi-chinois.xml"),
        dir.path().join("cup.xml"),
    )
    .unwrap();
    let config_path = dir.path().join("hall.toml");
    std::fs::write(
        &config_path,
        format!(
            "[tournament]\nfile = \"cup.xml\"\nboards = \"hall1-{{table:02}}\"\nid = \"cup\"\n\
             [hall]\nlate_reminder_s = 8\n\
             [[arbiter]]\nname = \"chief\"\ntoken = \"{TOKEN}\"\n"
        ),
    )
    .unwrap();
    let config = tengen_hall::HallConfig::load(&config_path).expect("hall config");
    let hall = tengen_hall::start(&mosq.url(), "127.0.0.1:0", &config)
        .await
        .expect("hall starts");
    let base = format!("http://{}", hall.addr);
    let _boards = [
        run_board(dir.path(), 1, mosq.port(), "white_late_s = \"never\""),
        run_board(dir.path(), 2, mosq.port(), "black_late_s = 3"),
        run_board(dir.path(), 3, mosq.port(), ""),
    ];

    let checks = tokio::task::spawn_blocking(move || {
        let browser = launch(chromium);
        let tab = browser.new_tab().expect("tab");
        let long = Duration::from_secs(60);
        phone(&tab, 390, 844);
        tab.navigate_to(&format!("{base}/console"))
            .expect("console");
        tab.wait_until_navigated().expect("login form");
        log_in(&tab, "chief", TOKEN);
        wait_until(
            &tab,
            "!document.getElementById('roundBox').hidden",
            true.into(),
            long,
            "the Round view",
        );
        eval(
            &tab,
            "(() => { const s = document.getElementById('roundNo'); s.value = '1'; s.dispatchEvent(new Event('change')); return 1; })()",
        );
        for t in 1..=3 {
            wait_until(
                &tab,
                &format!("({}).startsWith('idle')", cell(t, "state")),
                true.into(),
                long,
                "the three boards, idle",
            );
        }
        // Start round (asked, and asked again: the sample file has round 1's results).
        click(&tab, "document.getElementById('startRound')", "Start round");
        wait_until(
            &tab,
            "document.getElementById('ask').open",
            true.into(),
            long,
            "the question",
        );
        click(&tab, "document.getElementById('askOk')", "OK");
        wait_until(
            &tab,
            "document.getElementById('ask').open && document.getElementById('askTitle').textContent",
            "Results already in the file".into(),
            long,
            "asked again",
        );
        answer_console_dialog(&tab, true);
        // The players check in; table 1's White and table 2's Black do not.
        wait_until(
            &tab,
            &cell(3, "seats"),
            "both seated".into(),
            long,
            "table 3 seated",
        );
        wait_until(
            &tab,
            &cell(1, "seats"),
            "○ not checked in".into(),
            long,
            "table 1's White",
        );
        wait_until(
            &tab,
            &cell(2, "seats"),
            "● not checked in".into(),
            long,
            "table 2's Black",
        );
        // Begin play: table 2's Black comes 3 s later, twice the lateness taken in all.
        click(&tab, "document.getElementById('beginPlay')", "Begin play");
        answer_console_dialog(&tab, true);
        wait_until(
            &tab,
            &cell(2, "seats"),
            "● 0:03 late, 0:06 taken".into(),
            long,
            "table 2's Black arrived late",
        );
        wait_until(
            &tab,
            &format!("({}).startsWith('○ missing 0:0')", cell(1, "seats")),
            true.into(),
            long,
            "table 1's White missing",
        );
        // 8 s before the limit: the tables still waiting, once.
        wait_until(
            &tab,
            "!document.getElementById('lateReminder').hidden && document.getElementById('lateReminderList').textContent",
            "table 1 (hall1-01): ○ missing 0:04".into(),
            long,
            "the reminder names table 1 and White",
        );
        assert_eq!(
            eval(&tab, "document.documentElement.scrollWidth <= 390"),
            serde_json::Value::Bool(true),
            "nothing wider than the phone"
        );
        assert_eq!(
            eval(
                &tab,
                "document.getElementById('lateReminderText').textContent"
            ),
            serde_json::Value::from(
                "Tables still waiting for a player: 1. Their late limit is 0:08 away or less \
                 (Art. 22). Go and look:"
            )
        );
        eval(
            &tab,
            "document.getElementById('lateReminder').scrollIntoView(); 1",
        );
        screenshot(&tab, TMP, "arrival-round-phone.png");
        click(
            &tab,
            "document.getElementById('lateReminderOk')",
            "Going to look",
        );
        wait_until(
            &tab,
            "document.getElementById('lateReminder').hidden",
            true.into(),
            long,
            "the reminder put away",
        );
        // At the limit: the absent card, asked first, the win by default recorded.
        let default_button = "[...document.querySelectorAll('#alerts .alert button')].find(b => b.textContent === 'Record a win by default for Black')";
        open_question(&tab, default_button, "the absent card's default");
        let asked = answer_console_dialog(&tab, true);
        assert!(
            asked.starts_with("Table 1, ")
                && asked.contains("White is still not seated")
                && asked.contains("Black wins by default (B+F)"),
            "{asked}"
        );
        wait_until(
            &tab,
            &format!(
                "({}).startsWith('Black wins by default (pending)')",
                cell(1, "result")
            ),
            true.into(),
            long,
            "table 1: Black wins by default, pending",
        );
        // Away 12 s and more: until the arbiter recorded the default.
        let seats = eval(&tab, &cell(1, "seats"));
        assert!(
            seats
                .as_str()
                .is_some_and(|s| s.starts_with("○ not seated at the limit (0:1")),
            "{seats}"
        );
        eval(
            &tab,
            "document.querySelector('#tables tr[data-table=\"1\"]').scrollIntoView(); 1",
        );
        screenshot(&tab, TMP, "arrival-defaulted-phone.png");
        // Undone: Reopen (the row opened first, as a tap on the phone does).
        click(
            &tab,
            "document.querySelector('#tables tr[data-table=\"1\"] td.tbl')",
            "table 1's row",
        );
        open_question(
            &tab,
            "[...document.querySelectorAll('#tables tr[data-table=\"1\"] button')].find(b => b.textContent === 'Reopen')",
            "table 1's Reopen",
        );
        answer_console_dialog(&tab, true);
        wait_until(
            &tab,
            &format!(
                "!({}).includes('by default') && !({}).startsWith('over')",
                cell(1, "result"),
                cell(1, "state")
            ),
            true.into(),
            long,
            "table 1 reopened: the default taken back (the file's own result shows again)",
        );
    });
    checks.await.expect("browser checks");
    hall.stop();
}
