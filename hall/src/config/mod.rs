//! The hall's configuration file (`tengen hall --config FILE`, example `config/hall.toml`):
//! how to reach the broker beyond `--broker`, the identity the hall signs its own commands
//! with, the broadcast delay, and the arbiters who may log in to the console.
//!
//! Read the way the board's config is read ([`tengen_net::config_reader`]): every problem
//! of a file is reported, each with its key path (`hall.toml: broadcast.delay: unknown
//! key`, `hall.toml: arbiter[1].token: use at least 12 characters`), not just the first.

pub(crate) mod arbiter_secret;
pub(crate) mod venues;

use std::path::{Path, PathBuf};

use tengen_net::broker::TlsFiles;
use tengen_net::config_reader::{join, load_with, parse_with, ConfigError, Problem, Reader};
use tengen_protocol::command::MAX_BY;
use tengen_protocol::topics::is_valid_id;
use toml::{Table, Value};

use tengen_tournament::{BoardPattern, Tournament, TournamentError};

use crate::config::arbiter_secret::{hash_problem, token_problem};

/// The whole hall configuration. Every key has a default: an empty file (and
/// `HallConfig::default()`) is a public hall without a console login.
#[derive(Debug, Clone, Default)]
pub struct HallConfig {
    /// `[mqtt]`: topic prefix, client id, credentials, TLS.
    pub(crate) mqtt: HallMqtt,
    /// `[hall]`: the hall's own identity, sessions, command key.
    pub(crate) hall: HallSection,
    /// `[[arbiter]]`: who may log in to the console.
    pub(crate) arbiters: Vec<Arbiter>,
    /// `[broadcast]`: a delay for the public pages and the public topic tree. Without the
    /// section the public pages show every board live (alert counts included) and the
    /// hall publishes nothing of its own.
    pub(crate) broadcast: Option<Broadcast>,
    /// `[tournament]`: the OpenGotha file whose rounds the console starts and whose results
    /// it writes back. Without it the console has no Round view.
    pub(crate) tournament: Option<TournamentSection>,
    /// `[analysis]`: a GTP engine's estimates of the public games. Without it, none.
    pub(crate) analysis: Option<AnalysisSection>,
    /// `[venue]`: this hall is a venue's, pushing to a hub (docs/venues.md).
    pub(crate) venue: Option<venues::VenueSection>,
}

/// `[analysis]`: the engine that analyses every public position, and how hard.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AnalysisSection {
    /// The engine's command line: a program and its arguments, split on white space.
    pub(crate) command: String,
    /// The time one position may take; an engine that takes more than twice this is
    /// killed and started again.
    pub(crate) budget_ms: u64,
    /// How many boards are analysed at once (one engine process each).
    pub(crate) boards: u32,
    /// `level N` sent to the engine when it starts (GNU Go's strength and speed).
    pub(crate) level: Option<u32>,
    /// KataGo: a position's analysis stops once its best move has this many visits (or
    /// at `budget_ms`, whichever comes first). Refused with GNU Go, which counts none.
    pub(crate) visits: Option<u64>,
}

/// `[tournament]`: the tournament file and how its tables map to boards.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TournamentSection {
    /// The OpenGotha tournament file (read when the hall starts; never written).
    pub(crate) file: PathBuf,
    /// Table -> board id (`hall1-{table:02}`; default `table-{table}`).
    pub(crate) boards: BoardPattern,
    /// The tournament id the boards publish under (`{prefix}/{id}/{board}`); without it, a
    /// table's board is the board of that id under any tournament id.
    pub(crate) id: Option<String>,
    /// Where the confirmed results are written: the tournament file with each confirmed
    /// game's `result` set (default: beside `file`, `NAME-results.xml`). A file there is
    /// kept as `.bak` before each write, and read back when the hall starts again.
    pub(crate) results_file: PathBuf,
    /// How penalties are given in the games *Start round* sets up (`arbiter` or `auto`;
    /// the Round view can choose otherwise per round); absent: each board's own
    /// `[game] penalties`.
    pub(crate) penalties: Option<tengen_protocol::event::Penalties>,
}

/// `[broadcast]`: what the public (the hall's public pages and `{topic_prefix}/...`) sees,
/// and how late. The console and the arbiters' board view stay live.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Broadcast {
    /// Hold back the last this many moves of each game (0: none).
    pub(crate) delay_moves: u32,
    /// Hold back what happened in the last this many minutes (0: none; fractions allowed;
    /// checked to be within 0..=1440).
    pub(crate) delay_minutes: f64,
    /// When a game ends the whole game becomes public at once (default true).
    pub(crate) release_at_end: bool,
    /// The public topic tree: `{topic_prefix}/{tournament}/{board}/{events,state,sgf,status}`
    /// (default `public`).
    pub(crate) topic_prefix: String,
    /// Whether this hall publishes the public tree (default true). With several halls side
    /// by side, exactly one should.
    pub(crate) republish: bool,
    /// Where the hall keeps the public site as static files (`export_dir`; none: no export).
    pub(crate) export_dir: Option<PathBuf>,
}

impl Default for Broadcast {
    fn default() -> Broadcast {
        Broadcast {
            delay_moves: 0,
            delay_minutes: 0.0,
            release_at_end: true,
            topic_prefix: "public".to_string(),
            republish: true,
            export_dir: None,
        }
    }
}

impl Broadcast {
    /// The delay as the sans-IO policy.
    pub(crate) fn policy(&self) -> DelayPolicy {
        DelayPolicy {
            moves: self.delay_moves,
            // Checked when read: finite, 0..=1440.
            window_ms: (self.delay_minutes * 60_000.0).round() as u64,
            release_at_end: self.release_at_end,
        }
    }
}

/// How long the public view lags behind the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct DelayPolicy {
    /// Hold back the last this many moves (0: no move delay).
    pub(crate) moves: u32,
    /// Hold back what happened in the last this many milliseconds (0: no time delay).
    pub(crate) window_ms: u64,
    /// Release the whole game when it ends.
    pub(crate) release_at_end: bool,
}

/// `[mqtt]` of the hall.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct HallMqtt {
    /// Topic prefix (default `tengen`): the hall subscribes to `{prefix}/+/+/#`.
    pub(crate) prefix: String,
    /// Client id; default `tengen-hall-` and random hex, so several halls never clash.
    pub(crate) client_id: Option<String>,
    /// Broker user name.
    pub(crate) username: Option<String>,
    /// File holding the broker password (one line).
    pub(crate) password_file: Option<PathBuf>,
    /// CA certificates for `mqtts://`.
    pub(crate) ca_file: Option<PathBuf>,
    /// Client certificate for brokers that authenticate by certificate.
    pub(crate) cert_file: Option<PathBuf>,
    /// The client certificate's key.
    pub(crate) key_file: Option<PathBuf>,
}

impl Default for HallMqtt {
    fn default() -> Self {
        HallMqtt {
            prefix: "tengen".to_string(),
            client_id: None,
            username: None,
            password_file: None,
            ca_file: None,
            cert_file: None,
            key_file: None,
        }
    }
}

impl HallMqtt {
    /// The TLS files as the MQTT client wants them.
    pub(crate) fn tls(&self) -> TlsFiles {
        TlsFiles {
            ca_file: self.ca_file.clone(),
            cert_file: self.cert_file.clone(),
            key_file: self.key_file.clone(),
        }
    }
}

/// `[hall]`.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct HallSection {
    /// The name the hall signs its own commands with (`republish`, to fill the history of a
    /// board it did not see from the start). Without it the hall sends no command of its own
    /// and shows a board from its retained `state` and the events it sees live.
    pub(crate) identity: Option<String>,
    /// How long a console login lasts, in hours (default 12; 1..=8760).
    pub(crate) session_hours: Option<u64>,
    /// The command key shared with the boards (their `mqtt.command_key_file`): every
    /// command the hall sends is signed with it.
    pub(crate) command_key_file: Option<PathBuf>,
    /// Where the hall keeps every game it follows (`{dir}/{tournament}/{board}/{game}.jsonl`),
    /// read back when it starts: past rounds stay in `/round/{n}.zip` and `/rounds`.
    /// Without it the hall keeps nothing on disk.
    pub(crate) archive_dir: Option<PathBuf>,
    /// The console's certificate chain (PEM): with `tls_key`, the hall serves HTTPS only.
    pub(crate) tls_cert: Option<PathBuf>,
    /// The certificate's private key (PEM).
    pub(crate) tls_key: Option<PathBuf>,
    /// What commentators see (`commentary`): the boards live (a closed commentary room) or
    /// as the public does, behind the broadcast delay (the default).
    pub(crate) commentary_live: bool,
    /// Public event streams open at once, in total (`max_streams`; default from the
    /// open-files limit).
    pub(crate) max_streams: Option<usize>,
    /// Public event streams open at once from one address (`streams_per_address`).
    pub(crate) streams_per_address: Option<usize>,
    /// Connections from one address that are not being answered (TLS handshake, waiting
    /// for a request) at once (`idle_per_address`).
    pub(crate) idle_per_address: Option<usize>,
    /// The public's requests being answered at once for one address (`busy_per_address`).
    pub(crate) busy_per_address: Option<usize>,
    /// How long a board with a game in play may stay silent before the hall raises
    /// `board_offline` (`board_silence_s`, default [`BOARD_SILENCE_S`]; 3..=3600).
    pub(crate) board_silence_s: Option<u64>,
    /// How long before a board's late limit (Art. 22) the console's Round view lists the
    /// tables whose players are still missing (`late_reminder_s`, default
    /// [`LATE_REMINDER_S`]; 0: no reminder; at most a day).
    pub(crate) late_reminder_s: Option<u64>,
    /// The tournaments whose boards the hall believes (`tournaments`; none: `[tournament]
    /// id`, or every tournament).
    pub(crate) tournaments: Option<Vec<String>>,
    /// The boards the hall believes (`boards`; none: the `[tournament] boards` pattern, or
    /// every board).
    pub(crate) boards: Option<Vec<String>>,
    /// The pages' language where a reader's browser asks for none (`lang`: `en`, `zh`,
    /// `zh-Hant`, `ja`; default `en`), and the static export's.
    pub(crate) lang: tengen_l10n::Lang,
    /// `venues`: this hall is a hub, following the boards its venues push to it, each from
    /// the one venue that may carry it (docs/venues.md).
    pub(crate) venues: Option<Vec<venues::Venue>>,
}

impl HallSection {
    /// How long a board in play may stay silent before the hall raises `board_offline`.
    pub(crate) fn board_silence(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.board_silence_s.unwrap_or(BOARD_SILENCE_S))
    }
}

impl HallSection {
    /// `late_reminder_s` as said, or the default; 0: no reminder.
    pub(crate) fn late_reminder_s(&self) -> u64 {
        self.late_reminder_s.unwrap_or(LATE_REMINDER_S)
    }
}

/// The default `[hall] late_reminder_s`: ten minutes before the limit.
pub(crate) const LATE_REMINDER_S: u64 = 600;

/// The default `[hall] board_silence_s`: three of the boards' 5-second status heartbeats.
pub(crate) const BOARD_SILENCE_S: u64 = 15;

/// The largest `[hall] max_streams` and `streams_per_address`.
const MAX_STREAMS: i64 = 1_000_000;

/// The largest `[hall] idle_per_address` and `busy_per_address`.
const MAX_IDLE_PER_ADDRESS: i64 = 65_536;

/// What a login may do (`role` of an `[[arbiter]]` entry).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Role {
    /// The console: alerts, commands, rounds (the default).
    #[default]
    Arbiter,
    /// Read only: the boards for commentary (`/commentary`), live or delayed as
    /// `[hall] commentary` says; no command, no alert, no console.
    Commentator,
}

/// One `[[arbiter]]`: a name and either an Argon2 password hash or a token.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Arbiter {
    /// Shown in the console and sent as `by` in every command.
    pub(crate) name: String,
    /// An Argon2 PHC string (`$argon2id$v=19$m=...`), e.g. from `argon2 SALT -id -e`.
    pub(crate) password_hash: Option<String>,
    /// A shared secret typed instead of a password (for a tablet at the arbiters' desk).
    pub(crate) token: Option<String>,
    /// What the login may do.
    pub(crate) role: Role,
}

/// The longest console session, in hours (a year).
const MAX_SESSION_HOURS: i64 = 8760;

/// `[analysis] budget` when not given.
const DEFAULT_ANALYSIS_BUDGET_MS: u64 = 2000;

/// The largest `[analysis] visits`.
const MAX_ANALYSIS_VISITS: i64 = 100_000_000;

const PREFIX_RULE: &str = "use lower-case letters, digits and '-' (levels joined by '/')";

impl HallConfig {
    /// Reads and checks the file at `path`; relative paths inside it are taken relative to
    /// the file's directory, as in the board's config.
    pub fn load(path: &Path) -> Result<HallConfig, ConfigError> {
        let mut config = load_with(path, read)?;
        if let Some(dir) = path.parent() {
            config.resolve_paths(dir);
        }
        Ok(config)
    }

    /// Makes every relative file name in the config relative to `dir`.
    fn resolve_paths(&mut self, dir: &Path) {
        let m = &mut self.mqtt;
        for p in [
            &mut m.password_file,
            &mut m.ca_file,
            &mut m.cert_file,
            &mut m.key_file,
            &mut self.hall.command_key_file,
            &mut self.hall.archive_dir,
            &mut self.hall.tls_cert,
            &mut self.hall.tls_key,
        ]
        .into_iter()
        .flatten()
        .chain(self.broadcast.as_mut().and_then(|b| b.export_dir.as_mut()))
        {
            if p.is_relative() {
                *p = dir.join(&*p);
            }
        }
        if let Some(t) = &mut self.tournament {
            for p in [&mut t.file, &mut t.results_file] {
                if p.is_relative() {
                    *p = dir.join(&*p);
                }
            }
        }
    }

    /// Parses and checks the text of a hall configuration; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<HallConfig, ConfigError> {
        parse_with(text, &path.display().to_string(), read)
    }

    /// Reads and checks the file at `path` as `tengen check-config` does: every key (as
    /// [`HallConfig::load`]), and the tournament file `[tournament] file` names, when it is
    /// there, must be an OpenGotha tournament this hall can use (a problem at
    /// `tournament.file`). A file that is missing here is a warning
    /// ([`HallConfig::missing_files`]), not an error: a config is often checked on another
    /// machine than the hall's.
    pub fn check(path: &Path) -> Result<HallConfig, ConfigError> {
        let config = HallConfig::load(path)?;
        if let Some(t) = &config.tournament {
            match Tournament::read(&t.file) {
                Ok(_) | Err(TournamentError::Io { .. }) => {}
                Err(e) => {
                    return Err(ConfigError::Invalid {
                        origin: path.display().to_string(),
                        problems: vec![Problem {
                            path: "tournament.file".to_string(),
                            message: format!("{}: {e}", t.file.display()),
                        }],
                    })
                }
            }
        }
        Ok(config)
    }

    /// The files the config names that cannot be opened here, each as `key: file: why`.
    pub fn missing_files(&self) -> Vec<String> {
        let m = &self.mqtt;
        let h = &self.hall;
        let files = [
            ("mqtt.password_file", &m.password_file),
            ("mqtt.ca_file", &m.ca_file),
            ("mqtt.cert_file", &m.cert_file),
            ("mqtt.key_file", &m.key_file),
            ("hall.command_key_file", &h.command_key_file),
            ("hall.tls_cert", &h.tls_cert),
            ("hall.tls_key", &h.tls_key),
        ];
        let tournament = self
            .tournament
            .as_ref()
            .map(|t| ("tournament.file", &t.file));
        files
            .into_iter()
            .filter_map(|(key, file)| file.as_ref().map(|f| (key, f)))
            .chain(tournament)
            .filter_map(|(key, file)| {
                std::fs::File::open(file)
                    .err()
                    .map(|e| format!("{key}: {}: {e}", file.display()))
            })
            .collect()
    }

    /// What this config leaves open, one sentence each, for the log at start and
    /// `tengen check-config`: arbiters who may send commands while the hall has no command
    /// key (the boards then take any `by` written on the network).
    pub fn warnings(&self) -> Vec<String> {
        let arbiters = self
            .arbiters
            .iter()
            .filter(|a| a.role == Role::Arbiter)
            .count();
        let mut out = Vec::new();
        if arbiters > 0 && self.hall.command_key_file.is_none() {
            out.push(format!(
                "arbiter: {arbiters} arbiter login(s) but no hall.command_key_file: the \
                 console's commands go unsigned, and a board without the key takes any \
                 \"by\" written on the network, so anyone on the broker can send a command \
                 in an arbiter's name. Give the boards' command key (docs/operating.md, \
                 \"Who may command a board\")"
            ));
        }
        out
    }

    /// The warning of a hall that believes every board it hears, or every tournament's
    /// (issue 21), for the log at start and `tengen check-config`: it names the keys to
    /// set. `None` when the hall follows only its own boards of its own tournaments.
    pub fn trust_warning(&self) -> Option<String> {
        if self.hall.venues.is_some() {
            // A hub believes each venue for the boards its entry names, and no one else.
            return None;
        }
        let tournaments = self.hall.tournaments.is_some()
            || self.tournament.as_ref().is_some_and(|t| t.id.is_some());
        let boards = self.hall.boards.is_some() || self.tournament.is_some();
        let (what, keys) = match (tournaments, boards) {
            (true, true) => return None,
            (false, false) => (
                "board of every tournament",
                "[hall] tournaments = [\"open-2026\"] and boards = [\"hall1-01\", ...] \
                 (or [tournament] id and boards)",
            ),
            (false, true) => (
                "tournament",
                "[hall] tournaments = [\"open-2026\"] (or [tournament] id)",
            ),
            (true, false) => (
                "board",
                "[hall] boards = [\"hall1-01\", ...] (or [tournament] boards)",
            ),
        };
        Some(format!(
            "!!! the hall believes every {what} it hears on the broker: any broker account \
             may pose as a board there, put a made-up game on the pages and ring alerts in \
             the console. Set {keys} (docs/operating.md) !!!"
        ))
    }

    /// One line saying what the config sets up, for `tengen check-config`.
    pub fn summary(&self) -> String {
        let (arbiters, commentators): (Vec<&Arbiter>, Vec<&Arbiter>) =
            self.arbiters.iter().partition(|a| a.role == Role::Arbiter);
        let mut parts = vec![
            format!("prefix {}", self.mqtt.prefix),
            format!(
                "{} arbiter(s), {} commentator(s)",
                arbiters.len(),
                commentators.len()
            ),
        ];
        if let Some(t) = &self.tournament {
            parts.push(format!(
                "tournament {} (boards {}{})",
                t.file.display(),
                t.boards,
                t.id.as_ref()
                    .map(|id| format!(", id {id}"))
                    .unwrap_or_default()
            ));
        }
        if let Some(dir) = &self.hall.archive_dir {
            parts.push(format!("archive {}", dir.display()));
        }
        if let Some(b) = &self.broadcast {
            parts.push(format!(
                "broadcast delay {} moves, {} min",
                b.delay_moves, b.delay_minutes
            ));
        }
        if let Some(a) = &self.analysis {
            parts.push(format!("analysis {}", a.command));
        }
        if self.hall.tls_cert.is_some() {
            parts.push("https".to_string());
        }
        format!("hall: {}", parts.join(", "))
    }
}

/// Reads the whole file. The config returned holds defaults wherever a value was bad, so
/// it is only meaningful when the reader recorded no problem.
fn read(root: &Table, r: &mut Reader) -> HallConfig {
    r.unknown_keys(
        root,
        "",
        &[
            "mqtt",
            "hall",
            "arbiter",
            "broadcast",
            "tournament",
            "analysis",
            "venue",
        ],
    );
    let empty = Table::new();
    let mqtt = read_mqtt(r.table(root, "", "mqtt").unwrap_or(&empty), r);
    let hall = read_hall(r.table(root, "", "hall").unwrap_or(&empty), r);
    let arbiters = read_arbiters(root.get("arbiter"), r);
    let broadcast = r
        .table(root, "", "broadcast")
        .map(|t| read_broadcast(t, &mqtt.prefix, r));
    let tournament = r
        .table(root, "", "tournament")
        .and_then(|t| read_tournament(t, r));
    let analysis = r
        .table(root, "", "analysis")
        .and_then(|t| read_analysis(t, r));
    let venue = r
        .table(root, "", "venue")
        .and_then(|t| venues::read_venue(t, r));
    if hall.venues.is_some() && root.contains_key("venue") {
        r.problem(
            "venue",
            "a hub ([hall] venues) is not a venue itself: give one or the other",
        );
    }
    HallConfig {
        mqtt,
        hall,
        arbiters,
        broadcast,
        tournament,
        analysis,
        venue,
    }
}

fn read_analysis(t: &Table, r: &mut Reader) -> Option<AnalysisSection> {
    const P: &str = "analysis";
    r.unknown_keys(t, P, &["command", "budget", "boards", "level", "visits"]);
    let command = match r.string(t, P, "command") {
        Some(c) if c.trim().is_empty() => {
            r.problem(join(P, "command"), "must not be empty");
            None
        }
        Some(c) => Some(c),
        None => {
            if !t.contains_key("command") {
                r.problem(
                    join(P, "command"),
                    "required: a GTP engine's command line (\"/usr/games/gnugo --mode gtp\")",
                );
            }
            None
        }
    };
    let budget_ms = r.duration_ms(t, P, "budget").and_then(|ms| {
        if (100..=600_000).contains(&ms) {
            Some(ms)
        } else {
            r.problem(join(P, "budget"), "give from 100ms to 10m");
            None
        }
    });
    let boards = r
        .integer_in(t, P, "boards", 1, 64)
        .and_then(|v| u32::try_from(v).ok());
    let level = r
        .integer_in(t, P, "level", 0, 100)
        .and_then(|v| u32::try_from(v).ok());
    let visits = r
        .integer_in(t, P, "visits", 1, MAX_ANALYSIS_VISITS)
        .and_then(|v| u64::try_from(v).ok());
    Some(AnalysisSection {
        command: command?,
        budget_ms: budget_ms.unwrap_or(DEFAULT_ANALYSIS_BUDGET_MS),
        boards: boards.unwrap_or(1),
        level,
        visits,
    })
}

fn read_tournament(t: &Table, r: &mut Reader) -> Option<TournamentSection> {
    const P: &str = "tournament";
    r.unknown_keys(t, P, &["file", "boards", "id", "results_file", "penalties"]);
    let file = path(t, P, "file", r);
    if file.is_none() && !t.contains_key("file") {
        r.problem(join(P, "file"), "required: the OpenGotha tournament file");
    }
    let boards = match r.string(t, P, "boards") {
        Some(text) => match BoardPattern::parse(&text) {
            Ok(b) => Some(b),
            Err(e) => {
                r.problem(join(P, "boards"), e.to_string());
                None
            }
        },
        None => Some(BoardPattern::default()),
    };
    let id = r.string(t, P, "id").and_then(|id| {
        if is_valid_id(&id) {
            Some(id)
        } else {
            r.problem(join(P, "id"), "use lower-case letters, digits and '-'");
            None
        }
    });
    let results_file = path(t, P, "results_file", r);
    let penalties = r.string(t, P, "penalties").and_then(|text| {
        let p = tengen_protocol::event::Penalties::parse(&text);
        if p.is_none() {
            r.problem(join(P, "penalties"), "use \"arbiter\" or \"auto\"");
        }
        p
    });
    let file = file?;
    let results_file = results_file.unwrap_or_else(|| default_results_file(&file));
    Some(TournamentSection {
        file,
        boards: boards?,
        id,
        results_file,
        penalties,
    })
}

/// `NAME-results.xml` beside `NAME.xml`.
fn default_results_file(file: &Path) -> PathBuf {
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "tournament".to_string());
    file.with_file_name(format!("{stem}-results.xml"))
}

fn read_mqtt(t: &Table, r: &mut Reader) -> HallMqtt {
    const P: &str = "mqtt";
    r.unknown_keys(
        t,
        P,
        &[
            "prefix",
            "client_id",
            "username",
            "password_file",
            "ca_file",
            "cert_file",
            "key_file",
        ],
    );
    let d = HallMqtt::default();
    let prefix = topic_prefix(t, P, "prefix", r).unwrap_or(d.prefix);
    let cert_file = path(t, P, "cert_file", r);
    let key_file = path(t, P, "key_file", r);
    if t.contains_key("cert_file") != t.contains_key("key_file") {
        r.problem(
            join(P, "cert_file"),
            "cert_file and key_file must be given together",
        );
    }
    HallMqtt {
        prefix,
        client_id: r.string(t, P, "client_id"),
        username: r.string(t, P, "username"),
        password_file: path(t, P, "password_file", r),
        ca_file: path(t, P, "ca_file", r),
        cert_file,
        key_file,
    }
}

fn read_hall(t: &Table, r: &mut Reader) -> HallSection {
    const P: &str = "hall";
    r.unknown_keys(
        t,
        P,
        &[
            "identity",
            "session_hours",
            "command_key_file",
            "archive_dir",
            "tls_cert",
            "tls_key",
            "commentary",
            "max_streams",
            "streams_per_address",
            "idle_per_address",
            "busy_per_address",
            "board_silence_s",
            "late_reminder_s",
            "tournaments",
            "boards",
            "lang",
            "venues",
        ],
    );
    let commentary_live = match r.string(t, P, "commentary").as_deref() {
        None | Some("delayed") => false,
        Some("live") => true,
        Some(_) => {
            r.problem(join(P, "commentary"), "give \"live\" or \"delayed\"");
            false
        }
    };
    let identity = r.string(t, P, "identity").and_then(|id| {
        if id.trim().is_empty() {
            r.problem(join(P, "identity"), "must not be empty");
            None
        } else {
            Some(id)
        }
    });
    let session_hours = r.integer(t, P, "session_hours").and_then(|h| {
        if h < 1 {
            r.problem(join(P, "session_hours"), "must be at least 1");
            None
        } else if h > MAX_SESSION_HOURS {
            r.problem(
                join(P, "session_hours"),
                format!("must be at most {MAX_SESSION_HOURS} (a year)"),
            );
            None
        } else {
            u64::try_from(h).ok()
        }
    });
    let archive_dir = path(t, P, "archive_dir", r).and_then(|dir| {
        if dir.as_os_str().is_empty() {
            r.problem(join(P, "archive_dir"), "must not be empty");
            None
        } else {
            Some(dir)
        }
    });
    let tls_cert = path(t, P, "tls_cert", r);
    let tls_key = path(t, P, "tls_key", r);
    if t.contains_key("tls_cert") != t.contains_key("tls_key") {
        r.problem(
            join(P, "tls_cert"),
            "tls_cert and tls_key must be given together",
        );
    }
    let mut count = |key, max| {
        r.integer_in(t, P, key, 1, max)
            .and_then(|v| usize::try_from(v).ok())
    };
    let max_streams = count("max_streams", MAX_STREAMS);
    let streams_per_address = count("streams_per_address", MAX_STREAMS);
    let idle_per_address = count("idle_per_address", MAX_IDLE_PER_ADDRESS);
    let busy_per_address = count("busy_per_address", MAX_IDLE_PER_ADDRESS);
    let board_silence_s = r
        .integer_in(t, P, "board_silence_s", 3, 3600)
        .and_then(|v| u64::try_from(v).ok());
    let late_reminder_s = r
        .integer_in(t, P, "late_reminder_s", 0, 86_400)
        .and_then(|v| u64::try_from(v).ok());
    let tournaments = id_list(t, P, "tournaments", r);
    let boards = id_list(t, P, "boards", r);
    let venues = venues::read_venues(t, P, r);
    if t.contains_key("venues") && (t.contains_key("tournaments") || t.contains_key("boards")) {
        r.problem(
            join(P, "venues"),
            "a hub believes the boards its venues may carry: give their tournaments and \
             boards in each venue, not in [hall] tournaments or boards",
        );
    }
    let lang = r
        .word(t, P, "lang", "en|zh|zh-Hant|ja", |w| {
            tengen_l10n::Lang::parse(w).ok()
        })
        .unwrap_or_default();
    HallSection {
        identity,
        session_hours,
        command_key_file: path(t, P, "command_key_file", r),
        archive_dir,
        tls_cert,
        tls_key,
        commentary_live,
        max_streams,
        streams_per_address,
        idle_per_address,
        busy_per_address,
        board_silence_s,
        late_reminder_s,
        tournaments,
        boards,
        lang,
        venues,
    }
}

/// The most ids `[hall] tournaments` or `boards` may list.
const MAX_LISTED_IDS: usize = 10_000;

/// `[hall] tournaments` / `boards`: a non-empty array of ids (the wire contract's `a-z`, `0-9`, `-`),
/// each once. `None` when absent or wrong (recorded).
fn id_list(t: &Table, p: &str, key: &str, r: &mut Reader) -> Option<Vec<String>> {
    let at = join(p, key);
    let items = match t.get(key)? {
        Value::Array(items) => items,
        other => {
            r.problem(
                at,
                format!(
                    "expected an array of ids ([\"hall1-01\", ...]), found {}",
                    article(other.type_str())
                ),
            );
            return None;
        }
    };
    if items.is_empty() {
        r.problem(
            at,
            "give at least one id, or leave the key out to follow every one",
        );
        return None;
    }
    if items.len() > MAX_LISTED_IDS {
        r.problem(at, format!("at most {MAX_LISTED_IDS} ids"));
        return None;
    }
    let mut ids: Vec<String> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match item {
            Value::String(id) if !is_valid_id(id) => {
                r.problem(
                    format!("{at}[{i}]"),
                    "not an id: use lower-case letters, digits and '-'",
                );
                return None;
            }
            Value::String(id) if ids.contains(id) => {
                r.problem(format!("{at}[{i}]"), "the same id is given twice");
                return None;
            }
            Value::String(id) => ids.push(id.clone()),
            other => {
                r.problem(
                    format!("{at}[{i}]"),
                    format!("expected a string, found {}", article(other.type_str())),
                );
                return None;
            }
        }
    }
    Some(ids)
}

/// `[[arbiter]]`: an array of tables, each at the key path `arbiter[i]`.
fn read_arbiters(value: Option<&Value>, r: &mut Reader) -> Vec<Arbiter> {
    let items = match value {
        None => return Vec::new(),
        Some(Value::Array(items)) => items,
        Some(other) => {
            r.problem(
                "arbiter",
                format!(
                    "expected an array of tables ([[arbiter]]), found {}",
                    article(other.type_str())
                ),
            );
            return Vec::new();
        }
    };
    let mut arbiters: Vec<Arbiter> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let p = format!("arbiter[{i}]");
        let Value::Table(t) = item else {
            r.problem(
                &p,
                format!("expected a table, found {}", article(item.type_str())),
            );
            continue;
        };
        if let Some(a) = read_arbiter(t, &p, &arbiters, r) {
            arbiters.push(a);
        }
    }
    arbiters
}

/// One arbiter at key path `p`; `before` are the arbiters read so far (names are unique).
fn read_arbiter(t: &Table, p: &str, before: &[Arbiter], r: &mut Reader) -> Option<Arbiter> {
    r.unknown_keys(t, p, &["name", "password_hash", "token", "role"]);
    let role = match r.string(t, p, "role").as_deref() {
        None | Some("arbiter") => Role::Arbiter,
        Some("commentator") => Role::Commentator,
        Some(_) => {
            r.problem(join(p, "role"), "give \"arbiter\" or \"commentator\"");
            Role::Arbiter
        }
    };
    let name = if t.contains_key("name") {
        r.string(t, p, "name")
    } else {
        r.problem(join(p, "name"), "required");
        None
    };
    let name = name.and_then(|name| {
        if name.trim().is_empty() {
            r.problem(join(p, "name"), "must not be empty");
            None
        } else if name.len() > MAX_BY || name.chars().any(char::is_control) {
            // Boards refuse a command whose `by` is longer or holds one.
            r.problem(
                join(p, "name"),
                format!("use at most {MAX_BY} bytes and no control character (it is every command's \"by\")"),
            );
            None
        } else if before.iter().any(|b| b.name == name) {
            r.problem(join(p, "name"), "the same name is given twice");
            None
        } else {
            Some(name)
        }
    });
    let password_hash = r.string(t, p, "password_hash");
    let token = r.string(t, p, "token");
    let secret_ok = match (&password_hash, &token) {
        (None, None) => {
            // Unless one was given with the wrong type (already reported).
            if !t.contains_key("password_hash") && !t.contains_key("token") {
                r.problem(join(p, "password_hash"), "give password_hash or token");
            }
            false
        }
        (Some(_), Some(_)) => {
            r.problem(join(p, "token"), "give password_hash or token, not both");
            false
        }
        (Some(h), None) => match hash_problem(h) {
            Some(problem) => {
                r.problem(join(p, "password_hash"), problem);
                false
            }
            None => true,
        },
        (None, Some(token)) => match token_problem(token) {
            Some(problem) => {
                r.problem(join(p, "token"), problem);
                false
            }
            None => true,
        },
    };
    match name {
        Some(name) if secret_ok => Some(Arbiter {
            name,
            password_hash,
            token,
            role,
        }),
        _ => None,
    }
}

fn read_broadcast(t: &Table, mqtt_prefix: &str, r: &mut Reader) -> Broadcast {
    const P: &str = "broadcast";
    r.unknown_keys(
        t,
        P,
        &[
            "delay_moves",
            "delay_minutes",
            "release_at_end",
            "topic_prefix",
            "republish",
            "export_dir",
        ],
    );
    let d = Broadcast::default();
    let delay_minutes = r.number(t, P, "delay_minutes").and_then(|m| {
        if (0.0..=1440.0).contains(&m) {
            Some(m)
        } else {
            r.problem(join(P, "delay_minutes"), "give minutes from 0 to 1440");
            None
        }
    });
    let topic_prefix = topic_prefix(t, P, "topic_prefix", r).and_then(|tp| {
        let (a, c) = (format!("{mqtt_prefix}/"), format!("{tp}/"));
        if a.starts_with(&c) || c.starts_with(&a) {
            r.problem(
                join(P, "topic_prefix"),
                "must be a tree of its own, neither inside nor around mqtt.prefix",
            );
            None
        } else {
            Some(tp)
        }
    });
    Broadcast {
        delay_moves: r
            .integer_in(t, P, "delay_moves", 0, i64::from(u32::MAX))
            .and_then(|v| u32::try_from(v).ok())
            .unwrap_or(d.delay_moves),
        delay_minutes: delay_minutes.unwrap_or(d.delay_minutes),
        release_at_end: r
            .boolean(t, P, "release_at_end")
            .unwrap_or(d.release_at_end),
        topic_prefix: topic_prefix.unwrap_or(d.topic_prefix),
        republish: r.boolean(t, P, "republish").unwrap_or(d.republish),
        export_dir: path(t, P, "export_dir", r).and_then(|dir| {
            if dir.as_os_str().is_empty() {
                r.problem(join(P, "export_dir"), "must not be empty");
                None
            } else {
                Some(dir)
            }
        }),
    }
}

/// A topic prefix: one or more ids joined by `/` (`tengen`, `club/tengen`).
fn topic_prefix(t: &Table, prefix: &str, key: &str, r: &mut Reader) -> Option<String> {
    let text = r.string(t, prefix, key)?;
    if text.split('/').all(is_valid_id) {
        Some(text)
    } else {
        r.problem(join(prefix, key), PREFIX_RULE);
        None
    }
}

/// A file name, taken as written.
fn path(t: &Table, prefix: &str, key: &str, r: &mut Reader) -> Option<PathBuf> {
    r.string(t, prefix, key).map(PathBuf::from)
}

/// "a string", "an integer", ...
fn article(type_name: &str) -> String {
    match type_name.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => format!("an {type_name}"),
        _ => format!("a {type_name}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<HallConfig, ConfigError> {
        HallConfig::parse(text, Path::new("hall.toml"))
    }

    fn lines(text: &str) -> Vec<String> {
        parse(text).expect_err("a bad file").lines()
    }

    /// `[hall] lang`: one of the four languages (read leniently), else one line naming it.
    #[test]
    fn the_pages_language_is_one_of_four() {
        use tengen_l10n::Lang;
        assert_eq!(parse("").unwrap().hall.lang, Lang::En);
        assert_eq!(
            parse("[hall]\nlang = \"zh-TW\"\n").unwrap().hall.lang,
            Lang::ZhHant
        );
        assert_eq!(
            parse("[hall]\nlang = \"ja\"\n").unwrap().hall.lang,
            Lang::Ja
        );
        assert_eq!(
            lines("[hall]\nlang = \"fr\"\n"),
            ["hall.toml: hall.lang: \"fr\" is not one of en|zh|zh-Hant|ja"]
        );
    }

    /// `[hall] late_reminder_s`: 600 by default, 0 turns it off, nonsense is one line.
    #[test]
    fn the_late_reminder_is_checked() {
        assert_eq!(parse("").unwrap().hall.late_reminder_s(), 600);
        let off = parse("[hall]\nlate_reminder_s = 0\n").unwrap();
        assert_eq!(off.hall.late_reminder_s(), 0);
        assert_eq!(
            lines("[hall]\nlate_reminder_s = -5\n"),
            ["hall.toml: hall.late_reminder_s: -5 is not in 0..=86400"]
        );
        assert_eq!(lines("[hall]\nlate_reminder_s = \"10m\"\n").len(), 1);
    }

    #[test]
    fn empty_file_is_a_public_hall() {
        let c = parse("").unwrap();
        assert_eq!(c.mqtt.prefix, "tengen");
        assert!(c.arbiters.is_empty());
        assert!(c.hall.identity.is_none());
        assert!(c.broadcast.is_none());
        let d = HallConfig::default();
        assert_eq!((d.mqtt, d.hall, d.arbiters), (c.mqtt, c.hall, c.arbiters));
    }

    #[test]
    fn arbiters_without_a_command_key_are_a_warning() {
        let token = "[[arbiter]]\nname = \"chief\"\ntoken = \"0123456789abcdef\"\n";
        let c = parse(token).unwrap();
        let w = c.warnings();
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].starts_with("arbiter: 1 arbiter login(s) but no hall.command_key_file"));
        assert!(!w[0].contains('\n'));
        let keyed = format!("[hall]\ncommand_key_file = \"k\"\n{token}");
        assert!(parse(&keyed).unwrap().warnings().is_empty());
        // Commentators send no command; no login, nothing to sign.
        let press =
            "[[arbiter]]\nname = \"press\"\ntoken = \"0123456789abcdef\"\nrole = \"commentator\"\n";
        assert!(parse(press).unwrap().warnings().is_empty());
        assert!(parse("").unwrap().warnings().is_empty());
    }

    #[test]
    fn a_hall_config_is_checked_with_its_tournament_file() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).unwrap();
            p
        };
        let hall = write(
            "hall.toml",
            "[tournament]\nfile = \"cup.xml\"\nboards = \"hall1-{table:02}\"\nid = \"cup\"\n\
             [hall]\ntls_cert = \"nowhere.pem\"\ntls_key = \"nowhere.key\"\n",
        );
        // The tournament file not here (yet): a warning, like the certificate.
        let c = HallConfig::check(&hall).unwrap();
        let missing = c.missing_files();
        assert_eq!(missing.len(), 3, "{missing:?}");
        assert!(missing[0].starts_with("hall.tls_cert: "), "{missing:?}");
        assert!(missing[2].starts_with("tournament.file: "), "{missing:?}");
        assert!(
            c.summary().contains("boards hall1-{table:02}, id cup"),
            "{}",
            c.summary()
        );
        // A tournament file that is not one: an error at tournament.file.
        write("cup.xml", "<html/>");
        let e = HallConfig::check(&hall).unwrap_err();
        assert_eq!(e.lines().len(), 1);
        assert!(
            e.lines()[0].contains(": tournament.file: ")
                && e.lines()[0].contains("not an OpenGotha tournament"),
            "{:?}",
            e.lines()
        );
        std::fs::copy(
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../tournament/tests/data/opengotha/juvisy.xml"
            ),
            dir.path().join("cup.xml"),
        )
        .unwrap();
        let c = HallConfig::check(&hall).unwrap();
        assert_eq!(c.missing_files().len(), 2);
    }

    #[test]
    fn reads_arbiters_and_identity() {
        let c = parse(
            "[hall]\nidentity = \"hall-main\"\nsession_hours = 3\n\
             [[arbiter]]\nname = \"chief\"\ntoken = \"0123456789abcdef\"\n",
        )
        .unwrap();
        assert_eq!(c.hall.identity.as_deref(), Some("hall-main"));
        assert_eq!(c.hall.session_hours, Some(3));
        assert_eq!(c.arbiters[0].name, "chief");
        assert_eq!(c.arbiters[0].token.as_deref(), Some("0123456789abcdef"));
    }

    #[test]
    fn the_example_file_ships_no_usable_secret() {
        let example = include_str!("../../../config/hall.toml");
        assert_eq!(
            lines(example),
            [
                "hall.toml: arbiter[0].password_hash: the example file's secret, known to \
                 everyone: make your own with `tengen hall --add-arbiter NAME`",
                "hall.toml: arbiter[1].token: the example file's secret, known to everyone: \
                 make your own with `tengen hall --add-arbiter NAME`",
            ]
        );
        assert!(!example.contains("change-me"));
        // With the arbiters replaced by an entry of `--add-arbiter`, the file is valid.
        let cut = example.find("[[arbiter]]").unwrap();
        let entry = crate::config::arbiter_secret::arbiter_entry(
            "chief",
            "our own long password",
            "arbiter",
        )
        .unwrap();
        let c = parse(&format!("{}{entry}", &example[..cut])).unwrap();
        assert_eq!(c.hall.identity.as_deref(), Some("hall-desk"));
        // The example ACL's user that may send commands and write the public tree, and
        // the command key config/board.toml names too.
        assert_eq!(c.mqtt.username.as_deref(), Some("hall-desk"));
        assert_eq!(
            c.hall.command_key_file.as_deref(),
            Some(Path::new("/etc/tengen/command.key"))
        );
        assert_eq!(
            c.mqtt.tls().ca_file.as_deref(),
            Some(Path::new("/etc/tengen/hall-ca.pem"))
        );
        assert_eq!(
            c.hall.tls_cert.as_deref(),
            Some(Path::new("/etc/tengen/hall-https.pem"))
        );
        let who = crate::console::auth::verify(&c.arbiters, "chief", "our own long password");
        assert_eq!(who.as_deref(), Some("chief"));
        assert_eq!(
            crate::console::auth::verify(&c.arbiters, "chief", "our own long passwor"),
            None
        );
    }

    #[test]
    fn weak_hashes_and_half_tls_are_refused() {
        // The example's hash of old: Argon2id with m=4096,t=3.
        let old = "$argon2id$v=19$m=4096,t=3,p=1$c29tZXNhbHRzb21lc2FsdA$9jBgyEA6n/eGNHoN15svkzWuFegL2LzgIpaGAobcGY0";
        assert_eq!(
            lines(&format!(
                "[[arbiter]]\nname = \"chief\"\npassword_hash = \"{old}\"\n"
            )),
            [
                "hall.toml: arbiter[0].password_hash: too weak (m=4096,t=3; at least \
              m=19456,t=2): make one with `tengen hall --add-arbiter NAME`"
            ]
        );
        assert_eq!(
            lines("[hall]\ntls_cert = \"c.pem\"\n"),
            ["hall.toml: hall.tls_cert: tls_cert and tls_key must be given together"]
        );
        let c = parse("[hall]\ntls_cert = \"c.pem\"\ntls_key = \"k.pem\"\n").unwrap();
        assert_eq!(c.hall.tls_key.as_deref(), Some(Path::new("k.pem")));
    }

    #[test]
    fn relative_file_names_are_taken_from_the_files_directory() {
        let mut c = parse(
            "[mqtt]\nca_file = \"certs/ca.pem\"\npassword_file = \"/etc/tengen/pw\"\n\
             [hall]\ncommand_key_file = \"command.key\"\narchive_dir = \"archive\"\n",
        )
        .unwrap();
        c.resolve_paths(Path::new("/etc/tengen"));
        assert_eq!(
            c.mqtt.tls().ca_file.as_deref(),
            Some(Path::new("/etc/tengen/certs/ca.pem"))
        );
        assert_eq!(
            c.mqtt.password_file.as_deref(),
            Some(Path::new("/etc/tengen/pw"))
        );
        assert_eq!(
            c.hall.command_key_file.as_deref(),
            Some(Path::new("/etc/tengen/command.key"))
        );
        assert_eq!(
            c.hall.archive_dir.as_deref(),
            Some(Path::new("/etc/tengen/archive"))
        );
        assert!(parse("").unwrap().hall.archive_dir.is_none());
        assert_eq!(
            lines("[hall]\narchive_dir = \"\"\n"),
            ["hall.toml: hall.archive_dir: must not be empty"]
        );
        assert_eq!(
            lines("[hall]\narchive_dir = 3\n"),
            ["hall.toml: hall.archive_dir: expected a string, found an integer"]
        );
    }

    #[test]
    fn broadcast_section() {
        let c = parse("[broadcast]\n").unwrap();
        let b = c.broadcast.unwrap();
        assert_eq!(
            (
                b.delay_moves,
                b.topic_prefix.as_str(),
                b.republish,
                b.release_at_end
            ),
            (0, "public", true, true)
        );
        let c = parse(
            "[broadcast]\ndelay_moves = 10\ndelay_minutes = 2.5\nrepublish = false\n\
             release_at_end = false\n",
        )
        .unwrap();
        let b = c.broadcast.unwrap();
        assert!(!b.republish);
        let p = b.policy();
        assert_eq!(
            (p.moves, p.window_ms, p.release_at_end),
            (10, 150_000, false)
        );
        assert_eq!(
            parse("[broadcast]\ndelay_minutes = 3\n")
                .unwrap()
                .broadcast
                .unwrap()
                .policy()
                .window_ms,
            180_000,
            "whole minutes may be written as an integer"
        );
        for (text, key) in [
            (
                "[broadcast]\ndelay_minutes = -1\n",
                "broadcast.delay_minutes",
            ),
            (
                "[broadcast]\ndelay_minutes = 1441\n",
                "broadcast.delay_minutes",
            ),
            (
                "[broadcast]\ntopic_prefix = \"tengen\"\n",
                "broadcast.topic_prefix",
            ),
            (
                "[broadcast]\ntopic_prefix = \"tengen/pub\"\n",
                "broadcast.topic_prefix",
            ),
            (
                "[mqtt]\nprefix = \"club/tengen\"\n[broadcast]\ntopic_prefix = \"club\"\n",
                "broadcast.topic_prefix",
            ),
            (
                "[broadcast]\ntopic_prefix = \"Pub\"\n",
                "broadcast.topic_prefix",
            ),
            ("[broadcast]\ndelay_moves = -1\n", "broadcast.delay_moves"),
            ("[broadcast]\nrepublish = \"yes\"\n", "broadcast.republish"),
            ("[broadcast]\ndelay = 3\n", "broadcast.delay"),
        ] {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.starts_with(&format!("hall.toml: {key}: ")), "{e}");
        }
        assert_eq!(
            lines("[broadcast]\ndelay = 3\n"),
            ["hall.toml: broadcast.delay: unknown key"]
        );
        assert_eq!(
            lines("broadcast = 3\n"),
            ["hall.toml: broadcast: expected a table, found an integer"]
        );
    }

    #[test]
    fn analysis_section() {
        assert_eq!(parse("").unwrap().analysis, None);
        let c = parse("[analysis]\ncommand = \"/usr/games/gnugo --mode gtp\"\n").unwrap();
        assert_eq!(
            c.analysis,
            Some(AnalysisSection {
                command: "/usr/games/gnugo --mode gtp".into(),
                budget_ms: 2000,
                boards: 1,
                level: None,
                visits: None,
            })
        );
        let c = parse("[analysis]\ncommand = \"gnugo --mode gtp\"\nbudget = \"500ms\"\nboards = 4\nlevel = 1\n")
            .unwrap();
        let a = c.analysis.unwrap();
        assert_eq!(
            (a.budget_ms, a.boards, a.level, a.visits),
            (500, 4, Some(1), None)
        );
        let c = parse("[analysis]\ncommand = \"katago gtp\"\nvisits = 400\n").unwrap();
        assert_eq!(c.analysis.unwrap().visits, Some(400));
        assert_eq!(
            lines("[analysis]\ncommand = \"katago\"\nvisits = 0\n"),
            ["hall.toml: analysis.visits: 0 is not in 1..=100000000"]
        );
        assert_eq!(
            lines("[analysis]\ncommand = \"katago\"\nvisits = \"many\"\n"),
            ["hall.toml: analysis.visits: expected an integer, found a string"]
        );
        assert_eq!(
            lines("[analysis]\ncommand = \"gnugo\"\nplayouts = 3\nbudget = \"soon\"\nboards = 0\n"),
            [
                "hall.toml: analysis.playouts: unknown key",
                "hall.toml: analysis.budget: \"soon\" is not a duration",
                "hall.toml: analysis.boards: 0 is not in 1..=64",
            ]
        );
        assert_eq!(
            lines("[analysis]\nboards = 2\n"),
            ["hall.toml: analysis.command: required: a GTP engine's command line (\"/usr/games/gnugo --mode gtp\")"]
        );
        assert_eq!(
            lines("[analysis]\ncommand = \" \"\n"),
            ["hall.toml: analysis.command: must not be empty"]
        );
    }

    #[test]
    fn bad_files_name_the_key() {
        assert_eq!(
            lines("[mqtt]\nprefix = \"tengen\"\ncolour = 1\n"),
            ["hall.toml: mqtt.colour: unknown key"]
        );
        assert_eq!(
            lines("[[arbiter]]\nname = \"a\"\n"),
            ["hall.toml: arbiter[0].password_hash: give password_hash or token"]
        );
        let e = parse("[[arbiter]]\nname = \"a\"\npassword_hash = \"plain\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("hall.toml: arbiter[0].password_hash: not an Argon2"),
            "{e}"
        );
        assert_eq!(
            lines("[[arbiter]]\nname = \"a\"\ntoken = \"short\"\n"),
            ["hall.toml: arbiter[0].token: use at least 12 characters"]
        );
        for name in ["chief\\nof the hall", &"a".repeat(65)] {
            assert_eq!(
                lines(&format!(
                    "[[arbiter]]\nname = \"{name}\"\ntoken = \"0123456789abcdef\"\n"
                )),
                ["hall.toml: arbiter[0].name: use at most 64 bytes and no control character (it is every command's \"by\")"]
            );
        }
        assert_eq!(
            lines("[mqtt]\nprefix = \"Tengen\"\n"),
            ["hall.toml: mqtt.prefix: use lower-case letters, digits and '-' (levels joined by '/')"]
        );
        assert_eq!(
            lines("[mqtt]\ncert_file = \"c.pem\"\n"),
            ["hall.toml: mqtt.cert_file: cert_file and key_file must be given together"]
        );
        assert_eq!(
            lines("[hall]\nsession_hours = 0\n"),
            ["hall.toml: hall.session_hours: must be at least 1"]
        );
        assert_eq!(
            lines("[hall]\nidentity = \" \"\n"),
            ["hall.toml: hall.identity: must not be empty"]
        );
        assert_eq!(
            lines("arbiter = \"chief\"\n"),
            ["hall.toml: arbiter: expected an array of tables ([[arbiter]]), found a string"]
        );
    }

    #[test]
    fn the_boards_and_tournaments_it_believes_are_lists_of_ids() {
        let c =
            parse("[hall]\ntournaments = [\"open-2026\"]\nboards = [\"hall1-01\", \"hall1-02\"]\n")
                .expect("valid");
        assert_eq!(c.hall.tournaments, Some(vec!["open-2026".to_string()]));
        assert_eq!(
            c.hall.boards.as_deref(),
            Some(&["hall1-01".to_string(), "hall1-02".to_string()][..])
        );
        assert_eq!(c.trust_warning(), None);
        assert!(parse("").expect("valid").trust_warning().is_some());
        for (text, says) in [
            (
                "[hall]\nboards = \"hall1-01\"\n",
                "hall.toml: hall.boards: expected an array of ids ([\"hall1-01\", ...]), found a string",
            ),
            (
                "[hall]\nboards = []\n",
                "hall.toml: hall.boards: give at least one id, or leave the key out to follow every one",
            ),
            (
                "[hall]\nboards = [\"hall1-01\", \"Hall1-02\"]\n",
                "hall.toml: hall.boards[1]: not an id: use lower-case letters, digits and '-'",
            ),
            (
                "[hall]\ntournaments = [\"a\", \"a\"]\n",
                "hall.toml: hall.tournaments[1]: the same id is given twice",
            ),
            (
                "[hall]\ntournaments = [3]\n",
                "hall.toml: hall.tournaments[0]: expected a string, found an integer",
            ),
            (
                "[hall]\ntournament = [\"a\"]\n",
                "hall.toml: hall.tournament: unknown key",
            ),
        ] {
            assert_eq!(lines(text), [says], "{text}");
        }
    }

    #[test]
    fn the_caps_on_connections_and_streams_are_counts_from_one() {
        let c = parse(
            "[hall]\nmax_streams = 500\nstreams_per_address = 4\nidle_per_address = 2\n\
             busy_per_address = 3\n",
        )
        .expect("valid");
        assert_eq!(
            (
                c.hall.max_streams,
                c.hall.streams_per_address,
                c.hall.idle_per_address,
                c.hall.busy_per_address
            ),
            (Some(500), Some(4), Some(2), Some(3))
        );
        let none = parse("").expect("valid");
        assert_eq!(none.hall.max_streams, None);
        assert_eq!(
            lines(
                "[hall]\nmax_streams = 0\nidle_per_address = 100000\nstreams_per_address = \"9\"\n\
                 busy_per_address = 0\n"
            ),
            [
                "hall.toml: hall.max_streams: 0 is not in 1..=1000000",
                "hall.toml: hall.streams_per_address: expected an integer, found a string",
                "hall.toml: hall.idle_per_address: 100000 is not in 1..=65536",
                "hall.toml: hall.busy_per_address: 0 is not in 1..=65536",
            ]
        );
    }

    #[test]
    fn every_problem_is_reported_with_its_key_path() {
        let text = "colour = 1\n\
            [mqtt]\nprefix = \"Tengen\"\nusername = 7\n\
            [hall]\nsession_hours = 0\nidentity = \"\"\n\
            [broadcast]\ndelay_minutes = 2000\ntopic_prefix = \"public\"\ndelay = 3\n\
            [[arbiter]]\nname = \"chief\"\ntoken = \"0123456789abcdef\"\n\
            [[arbiter]]\nname = \"chief\"\ntoken = \"short\"\n\
            [[arbiter]]\npassword_hash = \"x\"\ntoken = \"0123456789abcdef\"\nrole = \"x\"\n";
        let e = parse(text).unwrap_err();
        assert_eq!(
            e.lines(),
            [
                "hall.toml: colour: unknown key",
                "hall.toml: mqtt.prefix: use lower-case letters, digits and '-' (levels joined by '/')",
                "hall.toml: mqtt.username: expected a string, found an integer",
                "hall.toml: hall.identity: must not be empty",
                "hall.toml: hall.session_hours: must be at least 1",
                "hall.toml: arbiter[1].name: the same name is given twice",
                "hall.toml: arbiter[1].token: use at least 12 characters",
                "hall.toml: arbiter[2].role: give \"arbiter\" or \"commentator\"",
                "hall.toml: arbiter[2].name: required",
                "hall.toml: arbiter[2].token: give password_hash or token, not both",
                "hall.toml: broadcast.delay: unknown key",
                "hall.toml: broadcast.delay_minutes: give minutes from 0 to 1440",
            ]
        );
        let one = e.to_string();
        assert_eq!(one, "hall.toml: colour: unknown key (and 11 more problems)");
        assert!(!one.contains('\n'));
    }

    #[test]
    fn syntax_errors_name_the_line() {
        let e = parse("[hall]\nidentity = \"a\"\nsession_hours = \n").unwrap_err();
        assert!(matches!(e, ConfigError::Syntax { line: 3, .. }), "{e}");
        let text = e.to_string();
        assert!(text.starts_with("hall.toml:3:"), "{text}");
        assert!(!text.contains('\n'));
        assert_eq!(e.lines(), [text]);
        let e = HallConfig::load(Path::new("/nonexistent/hall.toml")).unwrap_err();
        assert!(e.to_string().starts_with("/nonexistent/hall.toml: "), "{e}");
    }
}
