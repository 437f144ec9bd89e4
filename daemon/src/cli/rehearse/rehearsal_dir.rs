//! A rehearsal's folder, made ready before anything starts: a copy of the tournament file
//! (the hall writes the results into a copy of that copy, never into the real file), the
//! command key the hall and the boards share, the hall's config with a one-time arbiter
//! login (and with `--broadcast-delay`, its `[broadcast]`: the delay and the static export),
//! and for each table a board: its config (`tengen run` could run it by hand) and a made-up
//! game with the pairing's handicap.
//!
//! ```text
//! DIR/
//!   juvisy.xml               the tournament file's copy
//!   juvisy-results.xml       the confirmed results (written by the hall)
//!   command.key              shared by the hall and the boards (mode 0600)
//!   hall.toml                the hall: [tournament], [hall] (with an identity, so the
//!                            archive fetches the boards' black boxes), [broadcast], one
//!                            [[arbiter]]
//!   archive/                 every game the hall saw (round zips)
//!   export/                  with --broadcast-delay: the public site as static files,
//!                            the round feed in export/feed/ (written by the hall)
//!   boards/table-1/          board.toml, game.sgf, data/ (journal, SGF)
//! ```

use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use rand::distr::{Alphanumeric, SampleString};
use rand::Rng;
use tengen_sim::{GameInput, GeneratedSetup};
use tengen_tournament::{BoardPattern, Pairing, Tournament};

use crate::config::SimArrival;

use super::super::CliError;

/// The tournament id the rehearsal's boards publish under.
pub(crate) const TOURNAMENT_ID: &str = "rehearsal";
/// The name of the rehearsal's arbiter login.
pub(crate) const ARBITER: &str = "arbiter";
/// The folder (in the rehearsal's) of the public site as static files, with
/// `--broadcast-delay`.
const EXPORT: &str = "export";
/// How long the one-time password is.
const PASSWORD_CHARS: usize = 20;

/// One table's board.
#[derive(Debug, Clone)]
pub(crate) struct BoardPlan {
    /// The table, from 1.
    pub(crate) table: u32,
    /// The board id (`table-{table}`).
    pub(crate) board: String,
    /// The table's game id (`r{round}-t{table}`).
    pub(crate) game: String,
    /// Its `board.toml`.
    pub(crate) config: PathBuf,
    /// When its players arrive (Black, White), in a game whose players check in.
    pub(crate) arrive: (SimArrival, SimArrival),
}

/// What [`prepare`] made.
#[derive(Debug)]
pub(crate) struct Prepared {
    /// The rehearsal's folder.
    pub(crate) dir: PathBuf,
    /// Where the hall writes the confirmed results.
    pub(crate) results: PathBuf,
    /// The hall's config.
    pub(crate) hall_config: PathBuf,
    /// The arbiter's one-time password (in no file: only its hash is).
    pub(crate) password: String,
    /// The boards, by table.
    pub(crate) boards: Vec<BoardPlan>,
    /// `--broadcast-delay`: the folder the hall keeps the public site in (`export/`).
    pub(crate) export: Option<PathBuf>,
    /// The players set to be late or absent, in words (`table 3 White 7:12 late`,
    /// `table 5 Black absent`), by table.
    pub(crate) arrivals: Vec<String>,
    /// The boards' late limit, in seconds.
    pub(crate) late_limit_s: u32,
}

/// What the rehearsal is asked for.
pub(crate) struct Plan<'a> {
    /// The real tournament file (only read).
    pub(crate) file: &'a Path,
    /// Its tournament.
    pub(crate) tournament: &'a Tournament,
    /// The tables rehearsed.
    pub(crate) tables: &'a [Pairing<'a>],
    /// The folder asked for (`--dir`), or a new one in the temporary folder.
    pub(crate) dir: Option<&'a Path>,
    /// The broker the boards and the hall use.
    pub(crate) broker: SocketAddr,
    /// `--speed`.
    pub(crate) speed: f64,
    /// `--violations`.
    pub(crate) violations: f64,
    /// `--seed`.
    pub(crate) seed: u64,
    /// `--broadcast-delay`: the moves the public is held behind (none: no `[broadcast]`).
    pub(crate) broadcast_delay: Option<u32>,
    /// `--alert-hold`: the players wait for the arbiter after a violation.
    pub(crate) alert_hold: bool,
    /// `--late`: the fraction of the players who arrive late.
    pub(crate) late: f64,
    /// `--absent`: the fraction of the players who never come.
    pub(crate) absent: f64,
    /// `--late-limit`: the boards' `[game] late_limit_s`.
    pub(crate) late_limit_s: Option<u32>,
}

/// Makes the rehearsal's folder ready (see the module documentation).
pub(crate) fn prepare(plan: &Plan<'_>) -> Result<Prepared, CliError> {
    let dir = folder(plan.dir)?;
    let name = plan
        .file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "tournament.xml".to_string());
    let tournament = dir.join(&name);
    std::fs::copy(plan.file, &tournament).map_err(|e| {
        CliError::work(format!(
            "copying {} to {}: {e}",
            plan.file.display(),
            tournament.display()
        ))
    })?;
    let stem = Path::new(&name)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "tournament".to_string());
    let results = dir.join(format!("{stem}-results.xml"));
    let key: [u8; 32] = rand::rng().random();
    let key: String = key.iter().map(|b| format!("{b:02x}")).collect();
    write_private(&dir.join("command.key"), &format!("{key}\n"))?;
    let password = Alphanumeric.sample_string(&mut rand::rng(), PASSWORD_CHARS);
    let arbiter = tengen_hall::arbiter_entry(ARBITER, &password, "arbiter")
        .map_err(|e| CliError::work(format!("the arbiter's login: {e}")))?;
    let pattern = BoardPattern::default();
    // The hall believes these boards of this tournament only (issue 21): the rehearsal's.
    let listed: Vec<String> = plan
        .tables
        .iter()
        .map(|p| quoted(&pattern.board(p.table)))
        .collect();
    let believed = if listed.is_empty() {
        String::new()
    } else {
        format!(
            "tournaments = [\"{TOURNAMENT_ID}\"]\nboards = [{}]\n",
            listed.join(", ")
        )
    };
    // `--broadcast-delay`: the public held back, and kept as static files in `export/`
    // (relative to hall.toml, as the hall reads it).
    let broadcast = match plan.broadcast_delay {
        Some(moves) => format!(
            "[broadcast]\ndelay_moves = {moves}\nrelease_at_end = true\n\
             export_dir = \"{EXPORT}\"\n\n"
        ),
        None => String::new(),
    };
    let hall_config = dir.join("hall.toml");
    write(
        &hall_config,
        &format!(
            "# The hall of a rehearsal (`tengen rehearse`): its tournament is a copy, its\n\
             # results go beside it, its arbiter's password was shown once.\n\
             [tournament]\nfile = {}\nresults_file = {}\nboards = {}\nid = \"{TOURNAMENT_ID}\"\n\n\
             [hall]\ncommand_key_file = \"command.key\"\narchive_dir = \"archive\"\n\
             identity = \"rehearsal-hall\"\n{believed}\n\
             {broadcast}{arbiter}",
            quoted(&name),
            quoted(&format!("{stem}-results.xml")),
            quoted(pattern.as_str()),
        ),
    )?;
    let size = u8::try_from(plan.tournament.size())
        .ok()
        .filter(|s| (2..=25).contains(s))
        .ok_or_else(|| {
            CliError::input(format!(
                "{}: a {0}x{0} board cannot be simulated",
                plan.tournament.size()
            ))
        })?;
    let late_limit_s = plan
        .late_limit_s
        .unwrap_or((tengen_rules::clock::LatePolicy::VENUE_APART_MS / 1_000) as u32);
    let arriving = arrivals(plan, late_limit_s);
    let mut said = Vec::new();
    let mut boards = Vec::new();
    for (p, &(black, white)) in plan.tables.iter().zip(&arriving) {
        let board = pattern.board(p.table);
        let board_dir = dir.join("boards").join(&board);
        std::fs::create_dir_all(&board_dir)
            .map_err(|e| CliError::work(format!("{}: {e}", board_dir.display())))?;
        // OpenGotha's handicap 1 is taking Black: no stones.
        let stones = if p.handicap >= 2 {
            u8::try_from(p.handicap).unwrap_or(9).min(9)
        } else {
            0
        };
        let seed = plan
            .seed
            .wrapping_mul(1000)
            .wrapping_add(u64::from(p.table));
        let game = GameInput::generated(&GeneratedSetup {
            size,
            handicap: stones,
            komi: plan.tournament.komi_for(p.handicap),
            seed,
        })
        .map_err(|e| CliError::work(format!("table {}: a made-up game: {e}", p.table)))?;
        write(
            &board_dir.join("game.sgf"),
            &tengen_rules::sgf::write(&game.to_record()),
        )?;
        let config = board_dir.join("board.toml");
        write(
            &config,
            &format!(
                "# Table {table} of a rehearsal (`tengen rehearse`): a simulated board whose\n\
                 # players wait for the table's new_game and for play to begin.\n\
                 [board]\nid = \"{board}\"\ntournament = \"{TOURNAMENT_ID}\"\nsize = {size}\n\
                 game = \"power-on\"\n\n\
                 [hardware]\nbackend = \"sim\"\n\n\
                 [hardware.sim]\nsgf = \"game.sgf\"\nrehearse = true\nseed = {seed}\n\
                 speed = {speed:?}\nviolations = {violations:?}\nalert_hold = {alert_hold}\n{arrive}\n\
                 [mqtt]\nurl = \"mqtt://{broker}\"\ncommand_key_file = \"../../command.key\"\n\n\
                 [http]\nlisten = \"127.0.0.1:0\"\n\n[storage]\ndir = \"data\"\n\n\
                 [display]\ndriver = \"none\"\n\n[voice]\nstyle = \"off\"\n{late}",
                table = p.table,
                arrive = arrive_keys(black, white),
                late = plan
                    .late_limit_s
                    .map(|s| format!("\n[game]\nlate_limit_s = {s}\n"))
                    .unwrap_or_default(),
                speed = plan.speed,
                violations = plan.violations,
                alert_hold = plan.alert_hold,
                broker = plan.broker,
            ),
        )?;
        for (side, arrive) in [("Black", black), ("White", white)] {
            match arrive {
                SimArrival::OnTime => {}
                SimArrival::Late(ms) => said.push(format!(
                    "table {} {side} {} late",
                    p.table,
                    tengen_protocol::time::clock_text(ms)
                )),
                SimArrival::Never => said.push(format!("table {} {side} absent", p.table)),
            }
        }
        boards.push(BoardPlan {
            table: p.table,
            board,
            game: p.game.clone(),
            config,
            arrive: (black, white),
        });
    }
    let export = plan.broadcast_delay.map(|_| dir.join(EXPORT));
    Ok(Prepared {
        dir,
        results,
        hall_config,
        password,
        boards,
        export,
        arrivals: said,
        late_limit_s,
    })
}

/// When each table's players arrive (Black, White): `--late` and `--absent` of all the
/// players, chosen from the seed, the late ones at a random time from a tenth to nine
/// tenths of the limit after play begins (whole seconds).
fn arrivals(plan: &Plan<'_>, late_limit_s: u32) -> Vec<(SimArrival, SimArrival)> {
    use rand::seq::SliceRandom;
    use rand::SeedableRng;
    let seats = plan.tables.len() * 2;
    let count = |p: f64| ((p * seats as f64).round() as usize).min(seats);
    let late = count(plan.late);
    let absent = count(plan.absent).min(seats - late);
    let mut rng = rand::rngs::StdRng::seed_from_u64(plan.seed ^ 0x4c41_5445);
    let mut order: Vec<usize> = (0..seats).collect();
    order.shuffle(&mut rng);
    let mut arrive = vec![SimArrival::OnTime; seats];
    let limit = u64::from(late_limit_s);
    let (earliest, latest) = (limit.div_ceil(10), (limit * 9 / 10).max(limit.div_ceil(10)));
    for (n, &seat) in order.iter().enumerate() {
        arrive[seat] = if n < late {
            SimArrival::Late(rng.random_range(earliest..=latest) * 1000)
        } else if n < late + absent {
            SimArrival::Never
        } else {
            SimArrival::OnTime
        };
    }
    arrive.chunks(2).map(|c| (c[0], c[1])).collect()
}

/// `[hardware.sim]`'s `black_late_s` and `white_late_s` for a board whose players are not
/// both on time.
fn arrive_keys(black: SimArrival, white: SimArrival) -> String {
    let key = |a: SimArrival| match a {
        SimArrival::OnTime => None,
        SimArrival::Late(ms) => Some(format!("{}", ms / 1000)),
        SimArrival::Never => Some("\"never\"".to_string()),
    };
    [("black_late_s", key(black)), ("white_late_s", key(white))]
        .into_iter()
        .filter_map(|(k, v)| v.map(|v| format!("{k} = {v}\n")))
        .collect()
}

/// The folder asked for (created; it must hold nothing yet, so no earlier rehearsal's
/// journal is taken up), or a new one in the temporary folder, kept when the rehearsal
/// ends (its results are there).
fn folder(asked: Option<&Path>) -> Result<PathBuf, CliError> {
    let Some(dir) = asked else {
        return tempfile::Builder::new()
            .prefix("tengen-rehearsal-")
            .tempdir()
            .map(tempfile::TempDir::keep)
            .map_err(|e| CliError::work(format!("a rehearsal folder: {e}")));
    };
    let has_files = std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some());
    if has_files {
        return Err(CliError::input(format!(
            "--dir {}: not empty; give a new folder (a rehearsal starts afresh)",
            dir.display()
        )));
    }
    std::fs::create_dir_all(dir).map_err(|e| CliError::work(format!("{}: {e}", dir.display())))?;
    std::path::absolute(dir).map_err(|e| CliError::work(format!("{}: {e}", dir.display())))
}

fn quoted(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

fn write(path: &Path, text: &str) -> Result<(), CliError> {
    std::fs::write(path, text).map_err(|e| CliError::work(format!("{}: {e}", path.display())))
}

/// Writes a secret readable by its owner only.
fn write_private(path: &Path, text: &str) -> Result<(), CliError> {
    use std::os::unix::fs::OpenOptionsExt;
    let fail = |e: std::io::Error| CliError::work(format!("{}: {e}", path.display()));
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(fail)?;
    f.write_all(text.as_bytes()).map_err(fail)
}
