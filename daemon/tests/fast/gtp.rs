//! `tengen gtp` as a real child process driven over its standard input and output as a
//! GTP controller would, against a real hall fed by a real mosquitto with a real game's
//! events, published as a board publishes them: the handshake Sabaki and gogui-twogtp send,
//! `genmove` giving the public moves in order and waiting for one not yet public, `play`
//! accepted, refused and waiting, the end of the game and `final_score`, the broadcast
//! delay that holds the last moves back (genmove must not reveal them), `quit` while
//! waiting, an unknown board and an unreachable hall. GNU Go is the independent oracle:
//! what `tengen gtp` answered, replayed into `gnugo --mode gtp`, gives the position the
//! hall shows.

use crate::broker;
use crate::hall_analysis::gnugo;
use crate::http;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader as StdBufReader, Write};
use std::path::Path;
use std::process::{Command as StdCommand, Stdio};
use std::time::Duration;

use broker::{board_envelope, Mosquitto, Subscriber};
use http::{get, wait_for};
use rumqttc::QoS;
use serde_json::json;
use tengen_hall::HallConfig;
use tengen_protocol::event::{EndReason, Envelope, Event, GameEnd, GameSetup};
use tengen_protocol::GameView;
use tengen_rules::sgf::GameRecord;
use tengen_rules::{Color, Move, Point};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// How long an answer may take (the stream's backlog, a move published on MQTT).
const ANSWER: Duration = Duration::from_secs(10);
/// How long `tengen gtp` must stay silent to count as waiting.
const SILENT: Duration = Duration::from_millis(400);

/// `tengen gtp` as a child process, with its standard input and output.
struct Gtp {
    child: Child,
    stdin: ChildStdin,
    out: BufReader<ChildStdout>,
}

impl Gtp {
    fn start(hall: &str, board: &str) -> Gtp {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tengen"))
            .args(["gtp", "--hall", hall, "--board", board])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("start tengen gtp");
        let stdin = child.stdin.take().expect("stdin");
        let out = BufReader::new(child.stdout.take().expect("stdout"));
        Gtp { child, stdin, out }
    }

    async fn send(&mut self, line: &str) {
        self.stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .expect("write to tengen gtp");
        self.stdin.flush().await.expect("flush");
    }

    /// The next answer, whole (`= ...` or `? ...`, up to the empty line), without the
    /// final empty line.
    async fn answer(&mut self) -> String {
        let mut text = String::new();
        loop {
            let mut line = String::new();
            let n = tokio::time::timeout(ANSWER, self.out.read_line(&mut line))
                .await
                .unwrap_or_else(|_| panic!("no answer within 10 s (so far {text:?})"))
                .expect("read tengen gtp");
            assert!(n > 0, "tengen gtp closed its output after {text:?}");
            if line == "\n" {
                return text.trim_end_matches('\n').to_string();
            }
            text.push_str(&line);
        }
    }

    async fn ask(&mut self, line: &str) -> String {
        self.send(line).await;
        self.answer().await
    }

    /// True when nothing comes out for [`SILENT`]: the last command waits.
    async fn silent(&mut self) -> bool {
        tokio::time::timeout(SILENT, self.out.fill_buf())
            .await
            .is_err()
    }

    /// Its exit status, within 5 s.
    async fn exits(mut self) -> std::process::ExitStatus {
        tokio::time::timeout(Duration::from_secs(5), self.child.wait())
            .await
            .expect("tengen gtp exits within 5 s")
            .expect("wait")
    }
}

/// The 9x9 game GNU Go played against itself (captures, passes, counted: W+22.5).
fn fixture_game() -> GameRecord {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../rules/tests/fixtures/gnugo/games/9/game_0000.sgf");
    let text = std::fs::read_to_string(path).expect("the fixture game");
    tengen_rules::sgf::parse(&text).expect("a game")
}

fn ev(seq: u64, event: Event) -> Envelope {
    board_envelope("b1", seq, event)
}

/// Move `number` (from 1) of `game` as the board's event `seq`.
fn move_event(game: &GameRecord, seq: u64, number: usize) -> Envelope {
    let m = &game.moves[number - 1];
    let number = number as u32;
    ev(
        seq,
        match m.mv {
            Move::Pass => Event::Pass {
                number,
                color: m.color,
            },
            Move::Play(point) => Event::Move {
                number,
                color: m.color,
                point,
                captured: vec![],
                clock: None,
            },
        },
    )
}

fn word(c: Color) -> &'static str {
    match c {
        Color::Black => "b",
        Color::White => "w",
    }
}

/// A board on the broker: its retained status, then each event with the retained `state`
/// snapshot after it (the board's own fold, as `tengen run` publishes it).
struct FakeBoard {
    client: Subscriber,
    seq: u64,
    view: GameView,
}

impl FakeBoard {
    async fn online(mosq: &Mosquitto, halls: &[std::net::SocketAddr]) -> FakeBoard {
        let client = Subscriber::connect(&mosq.url(), "fake-b1", &["tengen/+/+/cmd"]).await;
        let status = json!({"state": "online", "version": "0.1.0", "board": "b1"}).to_string();
        client
            .client
            .publish("tengen/t/b1/status", QoS::AtLeastOnce, true, status)
            .await
            .expect("publish");
        for &addr in halls {
            wait_for("the board in the hall", || async {
                let v = get(addr, "/api/boards", &[]).await.json();
                (v[0]["status"] == "online").then_some(())
            })
            .await;
        }
        FakeBoard {
            client,
            seq: 0,
            view: GameView::new(),
        }
    }

    async fn publish(&mut self, event: Event) {
        self.seq += 1;
        self.publish_envelope(ev(self.seq, event)).await;
    }

    async fn publish_envelope(&mut self, e: Envelope) {
        self.seq = e.seq;
        let text = serde_json::to_string(&e).expect("an event");
        self.client
            .client
            .publish("tengen/t/b1/events", QoS::AtLeastOnce, false, text)
            .await
            .expect("publish");
        self.view.apply_envelope(&e).expect("the event folds");
        let state = self.view.snapshot(e.time).expect("a game").to_value();
        self.client
            .client
            .publish(
                "tengen/t/b1/state",
                QoS::AtLeastOnce,
                true,
                state.to_string(),
            )
            .await
            .expect("publish");
    }

    async fn play(&mut self, game: &GameRecord, numbers: std::ops::RangeInclusive<usize>) {
        for n in numbers {
            let e = move_event(game, self.seq + 1, n);
            self.publish_envelope(e).await;
        }
    }
}

async fn hall_with(mosq: &Mosquitto, toml: &str) -> tengen_hall::RunningHall {
    let config = HallConfig::parse(toml, Path::new("hall.toml")).expect("hall config");
    tengen_hall::start(&mosq.url(), "127.0.0.1:0", &config)
        .await
        .expect("hall starts")
}

/// The stones of a position as GTP vertices, black and white.
type Stones = (BTreeSet<String>, BTreeSet<String>);

/// The hall's public position: the wire contract's `state.board` (rows from the top).
async fn hall_stones(addr: std::net::SocketAddr, size: u8) -> Stones {
    let state = get(addr, "/board/t/b1/api/state", &[]).await.json();
    let rows = state["board"].as_str().expect("state.board").to_string();
    let mut stones: Stones = Default::default();
    for (k, c) in rows.chars().enumerate() {
        let p = Point::from_index(k, size).to_gtp();
        match c {
            'X' => stones.0.insert(p),
            'O' => stones.1.insert(p),
            _ => false,
        };
    }
    stones
}

/// `tengen gtp`'s own `showboard`, read back as stones.
fn showboard_stones(board: &str, size: u8) -> Stones {
    let mut stones: Stones = Default::default();
    let columns: Vec<String> = (0..size)
        .map(|c| Point::new(c, 0).to_gtp()[..1].to_string())
        .collect();
    for line in board.lines() {
        let mut words = line.split_whitespace();
        let Some(row) = words.next().and_then(|w| w.parse::<u8>().ok()) else {
            continue;
        };
        for (col, cell) in words.take(size as usize).enumerate() {
            let p = format!("{}{row}", columns[col]);
            match cell {
                "X" => stones.0.insert(p),
                "O" => stones.1.insert(p),
                _ => false,
            };
        }
    }
    stones
}

/// GNU Go over GTP, blocking (it answers at once).
struct GnuGo {
    child: std::process::Child,
    out: StdBufReader<std::process::ChildStdout>,
}

impl GnuGo {
    fn start(engine: &Path) -> GnuGo {
        let mut child = StdCommand::new(engine)
            .args(["--mode", "gtp"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start gnugo");
        let out = StdBufReader::new(child.stdout.take().expect("stdout"));
        GnuGo { child, out }
    }

    fn ask(&mut self, line: &str) -> String {
        let stdin = self.child.stdin.as_mut().expect("stdin");
        writeln!(stdin, "{line}").expect("write to gnugo");
        stdin.flush().expect("flush");
        let mut text = String::new();
        loop {
            let mut l = String::new();
            assert!(
                self.out.read_line(&mut l).expect("read gnugo") > 0,
                "gnugo quit"
            );
            if l.trim().is_empty() && !text.is_empty() {
                break;
            }
            text.push_str(&l);
        }
        assert!(text.starts_with('='), "gnugo refused {line}: {text}");
        text.trim_start_matches('=').trim().to_string()
    }

    fn stones(&mut self) -> Stones {
        let mut list = |c: &str| {
            self.ask(&format!("list_stones {c}"))
                .split_whitespace()
                .map(str::to_string)
                .collect::<BTreeSet<_>>()
        };
        (list("black"), list("white"))
    }
}

impl Drop for GnuGo {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn a_controller_follows_the_public_game_and_gnugo_agrees() {
    let Some(engine) = gnugo() else {
        return;
    };
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let game = fixture_game();
    let total = game.moves.len();
    assert!(total > 30, "a long enough game");
    let hall = hall_with(&mosq, "").await;
    let mut board = FakeBoard::online(&mosq, &[hall.addr]).await;
    board
        .publish(Event::GameStarted(GameSetup {
            size: 9,
            komi: 7.5,
            black: "GNU Go".into(),
            white: "GNU Go".into(),
            ..GameSetup::default()
        }))
        .await;
    board.play(&game, 1..=20).await;
    wait_for("20 public moves", || async {
        let s = get(hall.addr, "/board/t/b1/api/state", &[]).await;
        (s.status == 200 && s.json()["number"] == 20).then_some(())
    })
    .await;

    let url = format!("http://{}", hall.addr);
    let mut gtp = Gtp::start(&url, "t/b1");
    // What Sabaki and gogui-twogtp send first.
    assert_eq!(gtp.ask("1 protocol_version").await, "=1 2");
    assert_eq!(gtp.ask("name").await, "= tengen");
    assert!(gtp.ask("version").await.starts_with("= "));
    let commands = gtp.ask("list_commands").await;
    for c in ["genmove", "play", "undo", "final_score", "showboard"] {
        assert!(
            commands.lines().any(|l| l.trim_start_matches("= ") == c),
            "{c} in {commands}"
        );
    }
    assert_eq!(gtp.ask("known_command genmove").await, "= true");
    assert_eq!(gtp.ask("boardsize 19").await, "? unacceptable size");
    assert_eq!(gtp.ask("boardsize 9").await, "= ");
    assert_eq!(gtp.ask("clear_board").await, "= ");
    assert_eq!(gtp.ask("# Sabaki sends komi next\n\n komi 7.5").await, "= ");
    assert_eq!(gtp.ask("time_settings 0 1 0").await, "= ");

    // The public moves, in order, as genmove answers.
    let mut answered: Vec<(Color, String)> = Vec::new();
    for n in 1..=20 {
        let m = &game.moves[n - 1];
        let a = gtp.ask(&format!("{n} genmove {}", word(m.color))).await;
        assert_eq!(a, format!("={n} {}", m.mv.to_gtp()), "move {n}");
        answered.push((m.color, m.mv.to_gtp()));
    }
    // Move 21 is not public yet: genmove waits for it.
    let m21 = &game.moves[20];
    let wrong = m21.color.opponent();
    assert!(
        gtp.ask(&format!("genmove {}", word(wrong)))
            .await
            .starts_with("? it is "),
        "the other side's genmove says whose turn it is"
    );
    gtp.send(&format!("genmove {}", word(m21.color))).await;
    assert!(
        gtp.silent().await,
        "genmove answered before move 21 was public"
    );
    board.play(&game, 21..=22).await;
    assert_eq!(gtp.answer().await, format!("= {}", m21.mv.to_gtp()));
    answered.push((m21.color, m21.mv.to_gtp()));

    // play, checked against the board's move 22.
    let m22 = &game.moves[21];
    let said = format!(
        "? the board played {} {} at move 22",
        m22.color,
        m22.mv.to_gtp()
    );
    assert_eq!(gtp.ask(&format!("play {} A1", word(m22.color))).await, said);
    assert_eq!(
        gtp.ask(&format!(
            "play {} {}",
            word(m22.color.opponent()),
            m22.mv.to_gtp()
        ))
        .await,
        said
    );
    assert_eq!(
        gtp.ask(&format!("play {} {}", word(m22.color), m22.mv.to_gtp()))
            .await,
        "= "
    );
    answered.push((m22.color, m22.mv.to_gtp()));
    // undo and play again: the controller's position steps back and forth.
    assert_eq!(gtp.ask("undo").await, "= ");
    assert_eq!(
        gtp.ask(&format!("play {} {}", word(m22.color), m22.mv.to_gtp()))
            .await,
        "= "
    );
    // A play ahead of the public game waits until the board has it, then is checked.
    let m23 = &game.moves[22];
    gtp.send(&format!("play {} {}", word(m23.color), m23.mv.to_gtp()))
        .await;
    assert!(
        gtp.silent().await,
        "play answered before move 23 was public"
    );
    board.play(&game, 23..=total).await;
    assert_eq!(gtp.answer().await, "= ");
    answered.push((m23.color, m23.mv.to_gtp()));
    for n in 24..=total {
        let m = &game.moves[n - 1];
        let a = gtp.ask(&format!("genmove {}", word(m.color))).await;
        assert_eq!(a, format!("= {}", m.mv.to_gtp()), "move {n}");
        answered.push((m.color, m.mv.to_gtp()));
    }
    assert_eq!(gtp.ask("final_score").await, "? the game is not over");
    // The game ends while genmove waits for a move that never comes.
    let next = game.moves[total - 1].color.opponent();
    gtp.send(&format!("genmove {}", word(next))).await;
    assert!(gtp.silent().await);
    let result = game.result.clone().expect("the fixture's result");
    board
        .publish(Event::GameOver(GameEnd::uncounted(
            &result,
            EndReason::Count,
        )))
        .await;
    assert_eq!(gtp.answer().await, format!("? the game ended: {result}"));
    assert_eq!(gtp.ask("final_score").await, format!("= {result}"));

    // GNU Go, given the moves tengen gtp answered, has the hall's position.
    let mut oracle = GnuGo::start(&engine);
    oracle.ask("boardsize 9");
    oracle.ask("clear_board");
    for (color, mv) in &answered {
        oracle.ask(&format!("play {} {mv}", word(*color)));
    }
    let hall_position = hall_stones(hall.addr, 9).await;
    assert!(
        hall_position.0.len() > 5 && hall_position.1.len() > 5,
        "{hall_position:?}"
    );
    assert_eq!(oracle.stones(), hall_position, "GNU Go against the hall");
    let shown = gtp.ask("showboard").await;
    assert_eq!(
        showboard_stones(&shown, 9),
        hall_position,
        "tengen gtp's showboard against the hall:\n{shown}"
    );

    assert_eq!(gtp.ask("quit").await, "= ");
    assert!(gtp.exits().await.success());
    hall.stop();
    board.client.stop();
}

#[tokio::test]
async fn the_broadcast_delay_holds_the_last_moves_back_from_genmove() {
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let game = fixture_game();
    let hall = hall_with(&mosq, "[broadcast]\ndelay_moves = 2\n").await;
    let mut board = FakeBoard::online(&mosq, &[hall.addr]).await;
    board
        .publish(Event::GameStarted(GameSetup {
            size: 9,
            ..GameSetup::default()
        }))
        .await;
    board.play(&game, 1..=6).await;
    wait_for("4 public moves", || async {
        let s = get(hall.addr, "/board/t/b1/api/state", &[]).await;
        (s.status == 200 && s.json()["number"] == 4).then_some(())
    })
    .await;

    let url = format!("http://{}", hall.addr);
    // An unknown board is the hall's 404, said as GTP.
    // Commands read before the end of the input are answered, then it ends.
    let mut other = Gtp::start(&url, "t/nope");
    assert_eq!(other.ask("name").await, "= tengen");
    other.send("genmove b").await;
    drop(other.stdin);
    let mut rest = String::new();
    tokio::time::timeout(ANSWER, other.out.read_to_string(&mut rest))
        .await
        .expect("tengen gtp ends")
        .expect("read");
    assert_eq!(rest, "? no board t/nope on the hall\n\n");
    let status = tokio::time::timeout(Duration::from_secs(5), other.child.wait())
        .await
        .expect("exits at the end of input")
        .expect("wait");
    assert!(status.success());

    let mut gtp = Gtp::start(&url, "t/b1");
    assert_eq!(gtp.ask("boardsize 9").await, "= ");
    assert_eq!(gtp.ask("clear_board").await, "= ");
    for n in 1..=4 {
        let m = &game.moves[n - 1];
        let a = gtp.ask(&format!("genmove {}", word(m.color))).await;
        assert_eq!(a, format!("= {}", m.mv.to_gtp()), "move {n}");
    }
    // Moves 5 and 6 are on the board but held back: genmove must not reveal them.
    let m5 = &game.moves[4];
    gtp.send(&format!("genmove {}", word(m5.color))).await;
    assert!(gtp.silent().await, "genmove revealed a delayed move");
    // The board's move 7 releases move 5.
    board.play(&game, 7..=7).await;
    assert_eq!(gtp.answer().await, format!("= {}", m5.mv.to_gtp()));
    // Move 6 is held back; quit ends the wait at once.
    let m6 = &game.moves[5];
    gtp.send(&format!("genmove {}", word(m6.color))).await;
    assert!(gtp.silent().await, "genmove revealed a delayed move");
    gtp.send("quit").await;
    assert_eq!(gtp.answer().await, "? interrupted by quit");
    assert_eq!(gtp.answer().await, "= ");
    assert!(gtp.exits().await.success());
    hall.stop();
    board.client.stop();
}

#[tokio::test]
async fn bad_arguments_and_an_unreachable_hall_are_one_line() {
    let port = broker::free_port();
    let url = format!("http://127.0.0.1:{port}");
    let mut gtp = Gtp::start(&url, "t/b1");
    assert_eq!(gtp.ask("protocol_version").await, "= 2");
    let a = gtp.ask("boardsize 19").await;
    assert!(
        a.starts_with(&format!("? cannot reach the hall at {url}: ")) && !a.contains('\n'),
        "{a}"
    );
    // The end of the controller's input ends the process.
    drop(gtp.stdin);
    let status = tokio::time::timeout(Duration::from_secs(5), gtp.child.wait())
        .await
        .expect("exits at the end of input")
        .expect("wait");
    assert!(status.success());

    for (hall, board, says) in [
        ("https://127.0.0.1:1", "t/b1", "--hall https://127.0.0.1:1"),
        ("127.0.0.1:8090", "t/b1", "--hall 127.0.0.1:8090"),
        (url.as_str(), "b1", "--board b1"),
        (url.as_str(), "t/b 1", "--board t/b 1"),
    ] {
        let out = crate::cli::tengen(&["gtp", "--hall", hall, "--board", board]);
        assert_eq!(out.status.code(), Some(2), "{hall} {board}");
        let err = crate::cli::stderr(&out);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(says), "{err}");
    }
}

/// A `tengen hall` process on `port` with `config`; killed on drop.
struct HallProcess(std::process::Child);

impl HallProcess {
    fn start(mosq: &Mosquitto, port: u16, config: &Path) -> HallProcess {
        let child = StdCommand::new(env!("CARGO_BIN_EXE_tengen"))
            .args(["hall", "--broker", &mosq.url(), "--http"])
            .arg(format!("127.0.0.1:{port}"))
            .arg("--config")
            .arg(config)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start tengen hall");
        assert!(
            broker::wait_listening(port, Duration::from_secs(10)),
            "tengen hall listens"
        );
        HallProcess(child)
    }
}

impl Drop for HallProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The hall goes away under a waiting `genmove` and comes back (its archive gives it the
/// game again): `tengen gtp` opens the stream again with `Last-Event-ID` and answers with
/// the move published after the restart.
#[tokio::test]
async fn genmove_waits_across_a_hall_restart() {
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let game = fixture_game();
    let tmp = tempfile::tempdir().expect("temp dir");
    let config = tmp.path().join("hall.toml");
    std::fs::write(&config, "[hall]\narchive_dir = \"archive\"\n").expect("hall.toml");
    let port = broker::free_port();
    let addr: std::net::SocketAddr = ([127, 0, 0, 1], port).into();
    let hall = HallProcess::start(&mosq, port, &config);
    let mut board = FakeBoard::online(&mosq, &[addr]).await;
    board
        .publish(Event::GameStarted(GameSetup {
            size: 9,
            ..GameSetup::default()
        }))
        .await;
    board.play(&game, 1..=3).await;
    wait_for("3 public moves", || async {
        let s = get(addr, "/board/t/b1/api/state", &[]).await;
        (s.status == 200 && s.json()["number"] == 3).then_some(())
    })
    .await;

    let mut gtp = Gtp::start(&format!("http://{addr}"), "t/b1");
    for n in 1..=3 {
        let m = &game.moves[n - 1];
        let a = gtp.ask(&format!("genmove {}", word(m.color))).await;
        assert_eq!(a, format!("= {}", m.mv.to_gtp()), "move {n}");
    }
    let m4 = &game.moves[3];
    gtp.send(&format!("genmove {}", word(m4.color))).await;
    assert!(gtp.silent().await);
    drop(hall);
    assert!(gtp.silent().await, "no answer while the hall is away");
    let _hall = HallProcess::start(&mosq, port, &config);
    wait_for("the board in the restarted hall", || async {
        let v = get(addr, "/api/boards", &[]).await.json();
        (v[0]["status"] == "online").then_some(())
    })
    .await;
    board.play(&game, 4..=4).await;
    assert_eq!(gtp.answer().await, format!("= {}", m4.mv.to_gtp()));
    assert_eq!(gtp.ask("quit").await, "= ");
    assert!(gtp.exits().await.success());
    board.client.stop();
}
