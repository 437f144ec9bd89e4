//! A round of a real OpenGotha tournament started from the hall's console and its results
//! written back, in a real browser (headless Chromium) against a real mosquitto and three
//! real boards (`tengen run`, sim backend, empty boards):
//!
//! - the hall reads `tournoi-chinois.xml` (`[tournament]`, boards `hall1-{table:02}`); the
//!   console's Round view lists round 1's twelve tables, three of them with a board;
//! - the arbiter clicks *Start round*: each of the three boards takes its table's
//!   `new_game` (game id `r1-t{table}`, the players and ranks from the file), the other nine
//!   are named once as paper tables (no board);
//! - the games wait with their clocks stopped until the arbiter clicks *Begin play*;
//! - the games end: table 1 by resignation, table 2 by the arbiter's count result, table 3
//!   on time (the arbiter leaves Black one second; the flag falls at the board, whose
//!   `time_expired` alert shows as a card naming table 3, and the arbiter rules W+T); all
//!   three show as pending; the arbiter clicks *Confirm all pending results*, then gives
//!   table 4 (played without a board) a win by default from the console;
//! - the results file beside the tournament file, read with Python's `xml.etree`, has
//!   exactly those four results and every other element and attribute unchanged.
//!
//! Needs chromium, mosquitto and python3 (a failure under `TENGEN_REQUIRE_ORACLES=1`).

use crate::broker;
use crate::browser;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use broker::Mosquitto;
use browser::{answer_console_dialog, click, eval, launch, log_in, screenshot, wait_until};
use serde_json::Value;

const TOKEN: &str = "round-token-0123";
const TMP: &str = env!("CARGO_TARGET_TMPDIR");

/// A `tengen run` board process; killed when dropped.
struct Board(Child);

impl Drop for Board {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Board `hall1-0{n}` of tournament `cup`: an empty sim board that waits.
fn run_board(dir: &Path, n: u32, broker_port: u16) -> Board {
    let dir = dir.join(format!("board{n}"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("idle.txt"), "size 19\nwait 24h\n").unwrap();
    let config = dir.join("board.toml");
    std::fs::write(
        &config,
        format!(
            "[board]\nid = \"hall1-0{n}\"\ntournament = \"cup\"\nsize = 19\n\
             [hardware]\nbackend = \"sim\"\n[hardware.sim]\nscript = \"idle.txt\"\n\
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

/// Every element with its attributes (round 1's results apart), and round 1's results.
fn snapshot(path: &Path) -> Value {
    let script = r#"
import json, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
elements, results = [], {}
for e in root.iter():
    a = dict(e.attrib)
    if e.tag == 'Game' and a.get('roundNumber') == '1':
        results[a['tableNumber']] = a.pop('result', None)
    elements.append([e.tag, a])
print(json.dumps({'elements': elements, 'results': results}, ensure_ascii=False))
"#;
    let mut child = Command::new("python3")
        .arg("-")
        .arg(path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    serde_json::from_slice(&out.stdout).expect("json")
}

fn python() -> bool {
    let ok = Command::new("python3").arg("--version").output().is_ok();
    assert!(
        ok || !broker::oracles_required(),
        "python3 is missing and TENGEN_REQUIRE_ORACLES=1"
    );
    ok
}

/// JavaScript: the text of row `table`'s cell of class `class` (`players`, `state`,
/// `result`) in the Round view.
fn cell(table: u32, class: &str) -> String {
    format!("document.querySelector('#tables tr[data-table=\"{table}\"] td.{class}')?.textContent ?? ''")
}

/// JavaScript: table `table`'s state in the Round view, without the board's last sign of
/// life ("idle · heard 2 s ago" is "idle").
fn state_cell(table: u32) -> String {
    format!("({}).replace(/ · heard [^·]*$/, '')", cell(table, "state"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_is_started_from_the_console_and_its_results_written_back() {
    let Some(chromium) = browser::chromium() else {
        return;
    };
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let xml: PathBuf = dir.path().join("cup.xml");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tournament/tests/data/opengotha/tournoi-chinois.xml"),
        &xml,
    )
    .unwrap();
    let config_path = dir.path().join("hall.toml");
    let config_text = format!(
        "[tournament]\nfile = \"cup.xml\"\nboards = \"hall1-{{table:02}}\"\nid = \"cup\"\n\
         [[arbiter]]\nname = \"chief\"\ntoken = \"{TOKEN}\"\n"
    );
    std::fs::write(&config_path, config_text).unwrap();
    let config = tengen_hall::HallConfig::load(&config_path).expect("hall config");
    let hall = tengen_hall::start(&mosq.url(), "127.0.0.1:0", &config)
        .await
        .expect("hall starts");
    let base = format!("http://{}", hall.addr);
    let _boards: Vec<Board> = (1..=3)
        .map(|n| run_board(dir.path(), n, mosq.port()))
        .collect();
    let before = snapshot(&xml);

    let results_file = dir.path().join("cup-results.xml");
    let checks = tokio::task::spawn_blocking(move || {
        let browser = launch(chromium);
        let tab = browser.new_tab().expect("tab");
        let long = Duration::from_secs(60);
        tab.navigate_to(&format!("{base}/console"))
            .expect("console");
        tab.wait_until_navigated().expect("login form");
        log_in(&tab, "chief", TOKEN);

        // The Round view (the file has one round); round 1 chosen as a person would.
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
        wait_until(
            &tab,
            "document.querySelectorAll('#tables tr').length",
            12.into(),
            long,
            "12 tables",
        );
        for t in 1..=3 {
            wait_until(
                &tab,
                &state_cell(t),
                "idle".into(),
                long,
                "the three boards, idle",
            );
        }
        assert_eq!(eval(&tab, &state_cell(4)), "no board");
        assert_eq!(
            eval(&tab, &cell(1, "players")),
            "● 马 超 1d○ Vannier Remi 2dhall1-01"
        );
        screenshot(&tab, TMP, "round-1-before.png");

        // Start round: the three boards take their games (after the question).
        click(&tab, "document.getElementById('startRound')", "Start round");
        wait_until(
            &tab,
            "document.getElementById('ask').open && document.getElementById('askText').textContent",
            "Round 1: each table's board gets its game (players, handicap, time). \
             Boards with a game in progress are left out."
                .into(),
            long,
            "the question",
        );
        click(&tab, "document.getElementById('askOk')", "OK");
        // The sample file has round 1's results already (issue 31): the console says so
        // and asks again.
        wait_until(
            &tab,
            "document.getElementById('ask').open && document.getElementById('askTitle').textContent",
            "Results already in the file".into(),
            long,
            "asked again",
        );
        assert_eq!(
            answer_console_dialog(&tab, true),
            "Round 1: 11 of its 12 games already have a result in the results file. \
             Is this the round to start?"
        );
        wait_until(
            &tab,
            "document.getElementById('roundSaid').textContent === '3 sent; paper tables (no board): 4, 5, 6, 7, 8, 9, 10, 11, 12'",
            true.into(),
            long,
            "three sent, nine listed",
        );
        for t in 1..=3 {
            wait_until(
                &tab,
                &state_cell(t),
                "set up · clocks stopped".into(),
                long,
                "each board set up with its game, waiting for play to begin",
            );
        }
        // Begin play: every board's clock starts.
        click(&tab, "document.getElementById('beginPlay')", "Begin play");
        answer_console_dialog(&tab, true);
        for t in 1..=3 {
            wait_until(
                &tab,
                &state_cell(t),
                "set up".into(),
                long,
                "the clocks running",
            );
        }

        // Table 1: Black resigns at the board; table 2: the arbiter enters the count;
        // table 3: the arbiter leaves Black one second, and Black's flag falls.
        let command = |board: &str, body: &str| {
            eval(
                &tab,
                &format!(
                    "fetch('/api/console/command', {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, \
                     body: JSON.stringify(Object.assign({{tournament: 'cup', board: '{board}'}}, {body}))}}).then(r => r.status)"
                ),
            )
        };
        command("hall1-01", r#"{type: "resign", color: "B"}"#);
        command("hall1-02", r#"{type: "set_result", result: "B+3.5"}"#);
        command(
            "hall1-03",
            r#"{type: "adjust_time", color: "B", ms: 1000, periods: 0}"#,
        );
        wait_until(
            &tab,
            "[...document.querySelectorAll('#alerts .alert')].some(d => d.textContent.includes('hall1-03') && d.textContent.includes('Time ran out') && d.textContent.includes('Table 3'))",
            true.into(),
            long,
            "table 3's flag falls: its time_expired card",
        );
        command("hall1-03", r#"{type: "set_result", result: "W+T"}"#);
        wait_until(
            &tab,
            &cell(1, "result"),
            "White wins (pending)White wins by resignation (W+R)".into(),
            long,
            "table 1 pending, with the margin and reason",
        );
        wait_until(
            &tab,
            &cell(2, "result"),
            "Black wins (pending)Black wins by 3.5 points (B+3.5)".into(),
            long,
            "table 2 pending",
        );
        wait_until(
            &tab,
            &cell(3, "result"),
            "White wins (pending)White wins on time (W+T)".into(),
            long,
            "table 3 pending (on time)",
        );
        screenshot(&tab, TMP, "round-2-pending.png");
        click(&tab, "document.getElementById('confirmAll')", "Confirm all");
        let asked = answer_console_dialog(&tab, true);
        assert!(
            asked.starts_with("These results are confirmed and written to the results file: Table 1, 马 超 – Vannier Remi: White wins;"),
            "{asked}"
        );
        wait_until(
            &tab,
            &cell(1, "result"),
            "White wins (confirmed by chief)White wins by resignation (W+R)".into(),
            long,
            "table 1 confirmed",
        );
        wait_until(
            &tab,
            &cell(2, "result"),
            "Black wins (confirmed by chief)Black wins by 3.5 points (B+3.5)".into(),
            long,
            "table 2 confirmed",
        );
        wait_until(
            &tab,
            &cell(3, "result"),
            "White wins (confirmed by chief)White wins on time (W+T)".into(),
            long,
            "table 3 confirmed",
        );
        // Table 4, played without a board: White wins by default (Black did not come).
        eval(
            &tab,
            "(() => { const r = document.querySelector('#tables tr[data-table=\"4\"]'); \
             r.querySelector('select.override').value = 'RESULT_WHITEWINS_BYDEF'; return 1; })()",
        );
        click(
            &tab,
            "[...document.querySelectorAll('#tables tr[data-table=\"4\"] button')].find(b => b.textContent === 'Set')",
            "table 4's Set",
        );
        let asked = answer_console_dialog(&tab, true);
        assert!(
            asked.starts_with("Table 4, ") && asked.ends_with(": the result becomes \"White wins by default\" and is written to the results file."),
            "{asked}"
        );
        wait_until(
            &tab,
            &cell(4, "result"),
            "White wins by default (confirmed by chief)".into(),
            long,
            "table 4 by default",
        );
        screenshot(&tab, TMP, "round-3-confirmed.png");
    });
    checks.await.expect("browser checks");

    let after = snapshot(&results_file);
    assert_eq!(after["elements"], before["elements"], "all else unchanged");
    let mut want = before["results"].clone();
    want["1"] = "RESULT_WHITEWINS".into();
    want["2"] = "RESULT_BLACKWINS".into();
    want["3"] = "RESULT_WHITEWINS".into();
    want["4"] = "RESULT_WHITEWINS_BYDEF".into();
    assert_eq!(after["results"], want);
    assert_eq!(
        snapshot(&xml),
        before,
        "the tournament file itself untouched"
    );
    hall.stop();
}
