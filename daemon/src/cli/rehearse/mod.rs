//! `tengen rehearse FILE.xml --round N [--boards K] [--http ADDR] [--mqtt ADDR] [--speed X]
//! [--violations P] [--start] [--broadcast-delay MOVES]` (docs/mqtt-http.md, "Additions"):
//! tomorrow's round played tonight, with nothing to install. One process runs the embedded
//! broker, a hall on a copy of the tournament file (the `tengen-hall` crate's `start`) and K
//! simulated boards (`tengen run` services on the `sim` backend with `rehearse = true`) for
//! the round's first K tables, each with a made-up game of its pairing's handicap. It
//! prints the console's address, a one-time arbiter login and where the results go;
//! `--start` also starts the round and begins play through the console's own API, as an
//! arbiter's clicks do. Ctrl-C ends it.
//!
//! The real tournament file is only read: the hall reads a copy in the rehearsal's folder
//! and writes the confirmed results beside that copy.
//!
//! Added flags (docs/operating.md): `--dir DIR` (the rehearsal's folder, new or empty;
//! default a new folder in the temporary folder, kept) and `--seed N` (the games, their
//! timing and their violations; default 1). `--broadcast-delay MOVES` rehearses the
//! broadcast too: the hall's `[broadcast]` holds the public MOVES moves behind each board
//! (the whole game released at its end) and keeps the public site as static files in the
//! rehearsal's `export/`; the rehearsal prints where the public round feed is.
//!
//! The players' arrival (Art. 22): `--late P` and `--absent P` make that fraction of the
//! players (drawn from the seed) arrive late, at a random time within the limit after play
//! begins, or never; `--late-limit SECONDS` sets the boards' `[game] late_limit_s`.

mod console_client;
mod rehearsal_dir;

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tengen_protocol::describe::sentence;
use tengen_protocol::Event;
use tengen_sim::GameOptions;

use super::args::RehearseArgs;
use super::CliError;
use crate::config::{Config, SimArrival};
use crate::mqtt::broker::EmbeddedBroker;
use crate::service::launch::start_with;
use crate::service::links::{start_links, LinkOptions, Links, ServiceEnds};
use crate::service::Service;
use console_client::Console;
use rehearsal_dir::{BoardPlan, Plan, Prepared, ARBITER};

/// How long `--start` waits for the hall to hear every board, and for every board to be
/// set up.
const READY_WITHIN: Duration = Duration::from_secs(60);

/// One running board of the rehearsal.
struct RunningBoard {
    plan: BoardPlan,
    service: Service,
    links: Links,
}

/// Runs `tengen rehearse`.
pub(super) fn run(args: RehearseArgs) -> Result<(), CliError> {
    if !(args.speed > 0.0 && args.speed <= 10_000.0) {
        return Err(CliError::input(format!(
            "--speed: {} is not in 0 < speed <= 10000",
            args.speed
        )));
    }
    for (flag, p) in [("--late", args.late), ("--absent", args.absent)] {
        if !(0.0..=1.0).contains(&p) {
            return Err(CliError::input(format!(
                "{flag}: {p} is not a fraction of the players (0 <= p <= 1)"
            )));
        }
    }
    if args.late + args.absent > 1.0 {
        return Err(CliError::input(format!(
            "--late {} and --absent {}: more than all the players (their sum is at most 1)",
            args.late, args.absent
        )));
    }
    if let Some(s) = args.late_limit.filter(|s| !(1..=86_400).contains(s)) {
        return Err(CliError::input(format!(
            "--late-limit: {s} is not in 1..=86400 seconds"
        )));
    }
    if !(0.0..=1.0).contains(&args.violations) {
        return Err(CliError::input(format!(
            "--violations: {} is not a probability (0 <= p <= 1)",
            args.violations
        )));
    }
    let mut broker: SocketAddr = args
        .mqtt
        .parse()
        .map_err(|_| CliError::input(format!("--mqtt: {:?} is not an address:port", args.mqtt)))?;
    let tournament = super::pairings::load_round(&args.file, args.round)?;
    let pairings = tournament.round(args.round);
    let kill = match args.kill_board.as_deref() {
        None => None,
        Some(&[table, at]) if pairings.iter().any(|p| u64::from(p.table) == table) => {
            Some((table, Duration::from_secs(at)))
        }
        Some(&[table, _]) => {
            return Err(CliError::input(format!(
                "--kill-board: round {} has no table {table}",
                args.round
            )))
        }
        Some(_) => return Err(CliError::input("--kill-board: give TABLE AT_SECONDS")),
    };
    let k = match args.boards {
        None => pairings.len(),
        Some(k) if k >= 1 && k as usize <= pairings.len() => k as usize,
        Some(k) => {
            return Err(CliError::input(format!(
                "--boards: {k}: round {} has {} tables",
                args.round,
                pairings.len()
            )))
        }
    };
    // The boards' MQTT links reach a broker in this same process: their notes (a fresh
    // board's command ids, a link closed at the end) are not for the director.
    super::logging("warn,rumqttd=off,tengen_daemon::mqtt=error,tengen_net::link=error");
    if broker.port() == 0 {
        // Any free port: the boards are told the one taken.
        broker = std::net::TcpListener::bind(broker)
            .and_then(|l| l.local_addr())
            .map_err(|e| CliError::work(format!("--mqtt {broker}: {e}")))?;
    }
    // Before the folder is made: a broker already on the port stops here.
    let embedded = EmbeddedBroker::start(broker, 1 << 20)
        .map_err(|e| CliError::work(format!("--mqtt {broker}: {e}")))?;
    let prepared = rehearsal_dir::prepare(&Plan {
        file: &args.file,
        tournament: &tournament,
        tables: &pairings[..k],
        dir: args.dir.as_deref(),
        broker,
        speed: args.speed,
        violations: args.violations,
        seed: args.seed,
        broadcast_delay: args.broadcast_delay,
        alert_hold: args.alert_hold,
        late: args.late,
        absent: args.absent,
        late_limit_s: args.late_limit,
    })?;
    let runtime = tokio::runtime::Runtime::new()
        .map_err(|e| CliError::work(format!("tokio runtime: {e}")))?;
    runtime.block_on(async {
        let broker = embedded;
        let hall_config = tengen_hall::HallConfig::load(&prepared.hall_config)
            .map_err(|e| CliError::work(e.to_string()))?;
        let hall = tengen_hall::start(&broker.url(), &args.http, &hall_config)
            .await
            .map_err(|e| CliError::work(e.to_string()))?;
        let mut boards = Vec::new();
        for plan in &prepared.boards {
            match start_board(plan).await {
                Ok(b) => boards.push(b),
                Err(e) => {
                    stop(boards, hall).await;
                    return Err(e);
                }
            }
        }
        say_where(&args, &tournament, &prepared, hall.addr, &broker, k);
        let (following, mut printers) = follow(&boards, args.round, &prepared);
        let boards = Arc::new(tokio::sync::Mutex::new(boards));
        if let Some((table, at)) = kill {
            if let Some(killer) = kill_board(&boards, table, at, &following).await {
                printers.push(killer);
            }
        }
        let result = if args.start {
            begin(hall.addr, &prepared, args.round).await
        } else {
            println!(
                "Start round {} from the console's Round view (Start round, then Begin play).",
                args.round
            );
            Ok(())
        };
        if result.is_ok() {
            wait_for_stop().await;
            println!("Ending the rehearsal...");
        }
        for p in printers {
            p.abort();
        }
        let boards = std::mem::take(&mut *boards.lock().await);
        stop(boards, hall).await;
        println!(
            "Rehearsal over. Confirmed results: {} (the real {} is unchanged).",
            prepared.results.display(),
            args.file.display()
        );
        result
    })
}

/// Starts one table's board: its service and its links to the broker.
async fn start_board(plan: &BoardPlan) -> Result<RunningBoard, CliError> {
    let config = Config::load(&plan.config).map_err(|e| CliError::work(e.to_string()))?;
    let service = start_with(&config, false, &GameOptions::default())
        .map_err(|e| CliError::work(format!("{}: {e}", plan.board)))?;
    let links = match start_links(&config, ServiceEnds::of(&service), &LinkOptions::default()).await
    {
        Ok(l) => l,
        Err(e) => {
            service.request_stop();
            let _ = tokio::task::spawn_blocking(move || service.join()).await;
            return Err(CliError::work(format!("{}: {e}", plan.board)));
        }
    };
    Ok(RunningBoard {
        plan: plan.clone(),
        service,
        links,
    })
}

/// How long a board killed by `--kill-board` stays down.
const KILLED_FOR: Duration = Duration::from_secs(20);

/// `--kill-board TABLE AT`: table `table`'s board stops `at` after now (its `offline` to the
/// hall: `board_offline` rings if its game is on), and starts again [`KILLED_FOR`] later
/// on its journal, as a board back from a power cut (`board_restarted`, its clocks stopped
/// as they stood, the time off as it really was at the rehearsal's pace). The task that
/// does it, or `None` when no board has that table.
async fn kill_board(
    boards: &Arc<tokio::sync::Mutex<Vec<RunningBoard>>>,
    table: u64,
    at: Duration,
    following: &Following,
) -> Option<tokio::task::JoinHandle<()>> {
    let plan = boards
        .lock()
        .await
        .iter()
        .find(|b| u64::from(b.plan.table) == table)?
        .plan
        .clone();
    let boards = boards.clone();
    let following = following.clone();
    Some(tokio::spawn(async move {
        tokio::time::sleep(at).await;
        let taken = {
            let mut list = boards.lock().await;
            let i = list.iter().position(|b| b.plan.table == plan.table);
            i.map(|i| list.remove(i))
        };
        let Some(board) = taken else {
            return;
        };
        println!(
            "table {table:<3} the board dies (--kill-board); it comes back in {} s",
            KILLED_FOR.as_secs()
        );
        stop_board(board).await;
        tokio::time::sleep(KILLED_FOR).await;
        match start_board(&plan).await {
            Ok(b) => {
                println!("table {table:<3} the board is back: resume its clocks from the console");
                // Its events are followed again, as the others' are (the printer ends when
                // the board stops).
                drop(follow_board(&following, &b));
                boards.lock().await.push(b);
            }
            Err(e) => println!("table {table:<3} the board does not come back: {e}"),
        }
    }))
}

/// The lines a director needs: where the console is, the login, where the results go.
fn say_where(
    args: &RehearseArgs,
    tournament: &tengen_tournament::Tournament,
    prepared: &Prepared,
    hall: SocketAddr,
    broker: &EmbeddedBroker,
    k: usize,
) {
    let tables = tournament.round(args.round).len();
    println!(
        "tengen rehearse: {}, round {}: {k} of {tables} tables on simulated boards, x{} pace, \
         violations {}",
        tournament.name(),
        args.round,
        args.speed,
        args.violations
    );
    println!("  console   http://{hall}/console");
    println!(
        "  login     {ARBITER} / {}   (shown once, kept in no file)",
        prepared.password
    );
    let first = prepared
        .boards
        .first()
        .map(|b| b.board.as_str())
        .unwrap_or("");
    let last = prepared
        .boards
        .last()
        .map(|b| b.board.as_str())
        .unwrap_or("");
    println!("  boards    {first} .. {last} on {}", broker.url());
    println!(
        "  results   {} (a copy: {} is never written)",
        prepared.results.display(),
        args.file.display()
    );
    if let (Some(moves), Some(export)) = (args.broadcast_delay, &prepared.export) {
        println!("  feed      http://{hall}/feed/tournament.json   (public, {moves} moves behind)");
        println!(
            "  export    {}   (the public site as static files)",
            export.display()
        );
    }
    if !prepared.arrivals.is_empty() {
        println!(
            "  arrivals  {}   (limit {} s after play begins)",
            prepared.arrivals.join(", "),
            prepared.late_limit_s
        );
    }
    println!("  folder    {}", prepared.dir.display());
    println!("  Ctrl-C ends the rehearsal.");
}

/// What the terminal follows of the round: how many tables, which games are over.
#[derive(Clone)]
struct Following {
    round: u32,
    total: usize,
    over: Arc<Mutex<BTreeSet<u32>>>,
    results: std::path::PathBuf,
}

/// Prints what a director follows on each board (games set up, alerts, results), and
/// once every table's game of the round is over, that the results wait to be confirmed.
fn follow(
    boards: &[RunningBoard],
    round: u32,
    prepared: &Prepared,
) -> (Following, Vec<tokio::task::JoinHandle<()>>) {
    let following = Following {
        round,
        total: boards.len(),
        over: Arc::default(),
        results: prepared.results.clone(),
    };
    let printers = boards.iter().map(|b| follow_board(&following, b)).collect();
    (following, printers)
}

/// Prints what a director follows on board `b` (see [`follow`]).
fn follow_board(f: &Following, b: &RunningBoard) -> tokio::task::JoinHandle<()> {
    let mut events = b.service.outputs().subscribe_events();
    let (table, game) = (b.plan.table, b.plan.game.clone());
    let f = f.clone();
    tokio::spawn(async move {
        loop {
            let env = match events.recv().await {
                Ok(env) => env,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(_) => return,
            };
            let told = matches!(
                env.event,
                Event::GameStarted(_)
                    | Event::LateArrival { .. }
                    | Event::Alert(_)
                    | Event::AlertCleared { .. }
                    | Event::Warning { .. }
                    | Event::WarningGiven { .. }
                    | Event::GameVoided { .. }
                    | Event::GameOver(_)
            );
            if told {
                println!("table {table:<3} {}", sentence(&env.event));
            }
            if matches!(env.event, Event::GameOver(_)) && env.game == game {
                let mut done = f.over.lock().unwrap_or_else(|p| p.into_inner());
                done.insert(table);
                if done.len() == f.total {
                    println!(
                        "Round {}: all {} games are over. Confirm the results in the console's \
                         Round view; they are written to {}.",
                        f.round,
                        f.total,
                        f.results.display()
                    );
                }
            }
        }
    })
}

/// `--start`: logs in to the console as the rehearsal's arbiter, waits until the hall has
/// heard every board, starts the round on them, waits until each is set up, and begins
/// play: the console's own API, as an arbiter's clicks.
async fn begin(hall: SocketAddr, prepared: &Prepared, round: u32) -> Result<(), CliError> {
    let work = |e: console_client::ConsoleError| CliError::work(format!("--start: {e}"));
    let console = Console::login(hall, ARBITER, &prepared.password)
        .await
        .map_err(work)?;
    let tables: Vec<u32> = prepared.boards.iter().map(|b| b.table).collect();
    let view = format!("/api/console/round/{round}");
    wait_tables(
        &console,
        &view,
        &tables,
        "idle",
        "the hall to hear every board",
    )
    .await?;
    let started = console
        .post(&format!("{view}/start"), &json!({ "tables": tables }))
        .await
        .map_err(work)?;
    all_sent(&started, tables.len(), "start round")?;
    wait_tables(
        &console,
        &view,
        &tables,
        "set up",
        "every board to be set up",
    )
    .await?;
    wait_seated(&console, &view, &prepared.boards).await?;
    let begun = console
        .post(&format!("{view}/begin"), &json!({ "tables": tables }))
        .await
        .map_err(work)?;
    all_sent(&begun, tables.len(), "begin play")?;
    println!(
        "Round {round} started on {} boards and play begun, through the console as its \
         arbiter would.",
        tables.len()
    );
    Ok(())
}

/// Waits until every table in `tables` of the Round view is in `state`.
async fn wait_tables(
    console: &Console,
    view: &str,
    tables: &[u32],
    state: &str,
    what: &str,
) -> Result<(), CliError> {
    let deadline = Instant::now() + READY_WITHIN;
    loop {
        let round = console
            .get(view)
            .await
            .map_err(|e| CliError::work(format!("--start: {e}")))?;
        let lagging: Vec<String> = tables
            .iter()
            .filter_map(|t| {
                let row = round["tables"]
                    .as_array()?
                    .iter()
                    .find(|r| r["table"] == json!(t))?;
                let now = row["state"].as_str().unwrap_or("?");
                (now != state).then(|| format!("table {t} {now}"))
            })
            .collect();
        if lagging.is_empty() {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(CliError::work(format!(
                "--start: waited {} s for {what}: {}",
                READY_WITHIN.as_secs(),
                lagging.join(", ")
            )));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Waits until the players due on time have checked in at every board (the Round view's
/// seats), as players sit down before the round begins: those set to be late or absent are
/// then away when play begins.
async fn wait_seated(console: &Console, view: &str, boards: &[BoardPlan]) -> Result<(), CliError> {
    let deadline = Instant::now() + READY_WITHIN;
    loop {
        let round = console
            .get(view)
            .await
            .map_err(|e| CliError::work(format!("--start: {e}")))?;
        let rows = round["tables"].as_array().cloned().unwrap_or_default();
        let lagging: Vec<String> = boards
            .iter()
            .flat_map(|b| {
                let row = rows.iter().find(|r| r["table"] == json!(b.table));
                [("B", b.arrive.0), ("W", b.arrive.1)]
                    .into_iter()
                    .filter(|(_, a)| *a == SimArrival::OnTime)
                    .filter_map(move |(c, _)| {
                        let seats = &row?["seats"];
                        // A game whose players do not check in: nobody to wait for.
                        (!seats.is_null() && seats[c]["state"] != "seated")
                            .then(|| format!("table {} {c}", b.table))
                    })
            })
            .collect();
        if lagging.is_empty() {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(CliError::work(format!(
                "--start: waited {} s for the players to check in: {}",
                READY_WITHIN.as_secs(),
                lagging.join(", ")
            )));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Checks a start or begin answer: every table sent, else which were left out and why.
fn all_sent(answer: &Value, expected: usize, what: &str) -> Result<(), CliError> {
    let sent = answer["sent"].as_array().map_or(0, Vec::len);
    if sent == expected {
        return Ok(());
    }
    let skipped: Vec<String> = answer["skipped"]
        .as_array()
        .map(|s| {
            s.iter()
                .map(|x| format!("table {}: {}", x["table"], x["why"].as_str().unwrap_or("?")))
                .collect()
        })
        .unwrap_or_default();
    Err(CliError::work(format!(
        "--start: {what} reached {sent} of {expected} boards ({})",
        skipped.join("; ")
    )))
}

/// Returns on Ctrl-C or SIGTERM.
async fn wait_for_stop() {
    use tokio::signal::unix::{signal, SignalKind};
    let term = signal(SignalKind::terminate());
    let int = signal(SignalKind::interrupt());
    match (term, int) {
        (Ok(mut term), Ok(mut int)) => {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
        }
        _ => {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

/// Stops every board (each writes `offline` and sends what is left), then the hall.
async fn stop(boards: Vec<RunningBoard>, hall: tengen_hall::RunningHall) {
    for b in &boards {
        b.service.request_stop();
    }
    for b in boards {
        stop_board(b).await;
    }
    hall.stop();
}

/// Stops one board: its scan loop (it writes `offline`), then its links (sent).
async fn stop_board(b: RunningBoard) {
    let RunningBoard { service, links, .. } = b;
    service.request_stop();
    let _ = tokio::task::spawn_blocking(move || service.join()).await;
    if let Err(e) = links.shutdown(Duration::from_secs(2)).await {
        tracing::warn!("{e}");
    }
}
