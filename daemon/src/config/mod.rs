//! The board's configuration: one TOML file per board with the wire contract's keys (and the keys
//! the product adds, documented on each field). Unknown keys and bad values are errors
//! that name their key path (`time.perods: unknown key`); every problem in a file is
//! reported, not just the first.
//!
//! Relative paths in a file loaded with [`Config::load`] are relative to the file's
//! directory; [`Config::from_toml_str`] leaves them as written.

pub mod rpi;
mod schema;
mod sections;
mod warnings;

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::path::{Path, PathBuf};

pub use sections::*;
use tengen_net::config_reader;
pub use tengen_net::config_reader::{format_duration_ms, is_id, parse_duration_ms, Problem};
use tengen_net::secrets::{read_key, SecretError};
use tengen_protocol::event::GameSetup;
use tengen_protocol::signing::SenderPolicy;
use tengen_referee::RefereeSettings;
use tengen_rules::clock::{LatePolicy, TimeControl};

/// Where the default config lives on a board.
pub const DEFAULT_PATH: &str = "/etc/tengen/board.toml";

/// A whole board configuration, section by section.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// `[board]`.
    pub board: BoardConfig,
    /// `[hardware]` with `[hardware.sim]`, `[hardware.serial]`, `[hardware.rpi]`.
    pub hardware: HardwareConfig,
    /// `[detection]`.
    pub detection: DetectionConfig,
    /// `[game]`.
    pub game: GameConfig,
    /// `[time]`.
    pub time: TimeConfig,
    /// `[mqtt]`.
    pub mqtt: MqttConfig,
    /// `[http]`.
    pub http: HttpConfig,
    /// `[storage]`.
    pub storage: StorageConfig,
    /// `[display]`.
    pub display: DisplayConfig,
    /// `[voice]`.
    pub voice: VoiceConfig,
}

pub use tengen_net::config_reader::ConfigError;

impl Config {
    /// Reads and validates the config file at `path`; relative paths inside it are taken
    /// relative to the file's directory.
    pub fn load(path: impl AsRef<Path>) -> Result<Config, ConfigError> {
        let path = path.as_ref();
        let mut config = config_reader::load_with(path, schema::read)?;
        if let Some(dir) = path.parent() {
            config.resolve_paths(dir);
        }
        Ok(config)
    }

    /// Parses and validates config text; `origin` names it in errors (a file name).
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Config, ConfigError> {
        config_reader::parse_with(text, origin, schema::read)
    }

    /// Every default of docs/mqtt-http.md (and of the added keys) for a board called `board_id`.
    /// The id is taken as given: text from outside goes through [`Config::from_toml_str`].
    pub fn default_for(board_id: &str) -> Config {
        let localhost = |port| SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::LOCALHOST, port));
        Config {
            board: BoardConfig {
                id: board_id.to_string(),
                tournament: "demo".into(),
                size: 19,
                black_side: Side::South,
                game: "game-1".into(),
                lang: Lang::En,
            },
            hardware: HardwareConfig {
                backend: Backend::Sim,
                scan_hz: 100,
                calibration: PathBuf::from("/var/lib/tengen/calibration.json"),
                sim: SimConfig {
                    source: SimSource::Sgf(PathBuf::from("games/demo.sgf")),
                    seed: 1,
                    noise: 0.0,
                    speed: 1.0,
                    rehearse: false,
                    violations: 0.0,
                    alert_hold: false,
                    black_arrives: SimArrival::OnTime,
                    white_arrives: SimArrival::OnTime,
                },
                serial: SerialConfig {
                    path: PathBuf::from("/dev/ttyACM0"),
                    baud: 1_000_000,
                },
                rpi: toml::Table::new(),
            },
            detection: DetectionConfig {
                stable_ms: 150,
                pass_grace_ms: 2000,
                disturbed_points: 6,
            },
            game: GameConfig {
                komi: 7.5,
                handicap: 0,
                superko: Superko::Situational,
                penalties: Penalties::Arbiter,
                clock_start: None,
                late_limit_s: 3600,
                late_rule: LateRule::Double,
                black: String::new(),
                white: String::new(),
                round: String::new(),
                table: String::new(),
            },
            time: TimeConfig {
                system: TimeSystem::Byoyomi,
                main_ms: 60 * 60_000,
                periods: 5,
                period_ms: 60_000,
                stones: 25,
                increment_ms: 20_000,
            },
            mqtt: MqttConfig {
                url: MqttUrl::Embedded,
                listen: localhost(1883),
                prefix: "tengen".into(),
                client_id: format!("tengen-{board_id}"),
                keepalive_ms: 30_000,
                ca_file: None,
                cert_file: None,
                key_file: None,
                username: None,
                password_file: None,
                arbiters: Vec::new(),
                command_key_file: None,
                command_window_ms: tengen_protocol::signing::DEFAULT_WINDOW_MS,
                open_commands: false,
            },
            http: HttpConfig {
                listen: localhost(8080),
            },
            storage: StorageConfig {
                dir: PathBuf::from("/var/lib/tengen"),
                low_mb: StorageConfig::DEFAULT_LOW_MB,
            },
            display: DisplayConfig {
                driver: DisplayDriver::Ssd1306,
                i2c_bus: 1,
                black_address: 0x3C,
                white_address: 0x3D,
                rotate_black: false,
                rotate_white: false,
                lang: Lang::En,
            },
            voice: VoiceConfig {
                style: tengen_table::VoiceStyle::Voice,
                lang: Lang::En,
                dir: PathBuf::from("/var/lib/tengen/voice"),
                volume: 1.0,
            },
        }
    }

    /// The first game's time control (`[time]`).
    pub fn time_control(&self) -> TimeControl {
        let t = &self.time;
        match t.system {
            TimeSystem::None => TimeControl::None,
            TimeSystem::Absolute => TimeControl::Absolute { main_ms: t.main_ms },
            TimeSystem::Byoyomi => TimeControl::Byoyomi {
                main_ms: t.main_ms,
                periods: t.periods,
                period_ms: t.period_ms,
            },
            TimeSystem::Canadian => TimeControl::Canadian {
                main_ms: t.main_ms,
                stones: t.stones,
                period_ms: t.period_ms,
            },
            TimeSystem::Fischer => TimeControl::Fischer {
                main_ms: t.main_ms,
                increment_ms: t.increment_ms,
            },
        }
    }

    /// The first game's setup, as its `game_started` announces it.
    pub fn game_setup(&self) -> GameSetup {
        let g = &self.game;
        GameSetup {
            size: self.board.size,
            komi: g.komi,
            handicap: g.handicap,
            superko: g.superko,
            time_control: self.time_control(),
            black: g.black.clone(),
            white: g.white.clone(),
            round: g.round.clone(),
            table: g.table.clone(),
            clock_start: self.power_on_clock_start(),
            ..GameSetup::default()
        }
    }

    /// How the clocks of a game set up by a `new_game` command begin: `game.clock_start`,
    /// default `arbiter` (the game waits for the arbiter's `resume`).
    pub fn clock_start(&self) -> ClockStart {
        self.game.clock_start.unwrap_or(ClockStart::Arbiter)
    }

    /// How the clocks of the game the board sets up by itself at power-on begin:
    /// `game.clock_start`, by default `now` on the `sim` backend (the demo and `tengen sim`
    /// play at once) and `arbiter` on a real board and on a rehearsal board
    /// (`hardware.sim.rehearse`), whose players wait for a `new_game`.
    pub fn power_on_clock_start(&self) -> ClockStart {
        match (self.game.clock_start, self.hardware.backend) {
            (Some(c), _) => c,
            (None, Backend::Sim) if !self.hardware.sim.rehearse => ClockStart::Now,
            (None, _) => ClockStart::Arbiter,
        }
    }

    /// The referee's part of the config.
    pub fn referee_settings(&self) -> RefereeSettings {
        RefereeSettings {
            game: self.game_setup(),
            clock_start: self.clock_start(),
            penalties: self.game.penalties,
            late: Some(LatePolicy {
                limit_ms: u64::from(self.game.late_limit_s) * 1_000,
                rule: self.game.late_rule,
            }),
            black_side: self.board.black_side,
            stable_ms: self.detection.stable_ms,
            pass_grace_ms: self.detection.pass_grace_ms,
            disturbed_points: self.detection.disturbed_points as usize,
        }
    }

    /// Who may command the board (`mqtt.arbiters`, and `mqtt.command_key_file`, read now).
    pub fn sender_policy(&self) -> Result<SenderPolicy, SecretError> {
        let key = match &self.mqtt.command_key_file {
            Some(path) => Some(read_key(path)?),
            None => None,
        };
        Ok(SenderPolicy::new(
            self.mqtt.arbiters.clone(),
            key.as_deref(),
        ))
    }

    /// The topic root `{prefix}/{tournament}/{board}` of the wire contract's MQTT section.
    pub fn topic_root(&self) -> String {
        format!(
            "{}/{}/{}",
            self.mqtt.prefix, self.board.tournament, self.board.id
        )
    }

    /// Makes every relative path of the config relative to `dir` (the config file's
    /// directory).
    pub fn resolve_paths(&mut self, dir: &Path) {
        let fix = |p: &mut PathBuf| {
            if p.is_relative() {
                *p = dir.join(&*p);
            }
        };
        fix(&mut self.hardware.calibration);
        match &mut self.hardware.sim.source {
            SimSource::Sgf(p) | SimSource::Script(p) => fix(p),
            SimSource::SgfList(ps) => ps.iter_mut().for_each(fix),
        }
        fix(&mut self.hardware.serial.path);
        fix(&mut self.storage.dir);
        fix(&mut self.voice.dir);
        let m = &mut self.mqtt;
        for p in [
            &mut m.ca_file,
            &mut m.cert_file,
            &mut m.key_file,
            &mut m.password_file,
            &mut m.command_key_file,
        ]
        .into_iter()
        .flatten()
        {
            fix(p);
        }
    }
}

/// A config that loaded cleanly, with the files it names that cannot be read now.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The config.
    pub config: Config,
    /// Files the config reads (the simulator's game or script, the MQTT TLS and password
    /// files) that are missing or unreadable here, each at its key path. Warnings, not
    /// errors: a config is often checked on another machine than the board it is for.
    pub missing_files: Vec<Problem>,
}

/// Loads a config as `tengen check-config` does: every key and value problem is an error;
/// the files it reads are looked for and reported in [`Checked::missing_files`]. The
/// calibration file is not looked for: `tengen calibrate` creates it.
pub fn check_config(path: impl AsRef<Path>) -> Result<Checked, ConfigError> {
    let config = Config::load(path)?;
    let mut missing_files = Vec::new();
    let mut need = |key: &str, file: &Path| {
        if let Err(e) = std::fs::File::open(file) {
            missing_files.push(Problem {
                path: key.to_string(),
                message: format!("{}: {e}", file.display()),
            });
        }
    };
    if config.hardware.backend == Backend::Sim {
        for (key, file) in config.hardware.sim.source.files() {
            need(key, file);
        }
    }
    let m = &config.mqtt;
    for (key, file) in [
        ("mqtt.ca_file", &m.ca_file),
        ("mqtt.cert_file", &m.cert_file),
        ("mqtt.key_file", &m.key_file),
        ("mqtt.password_file", &m.password_file),
        ("mqtt.command_key_file", &m.command_key_file),
    ] {
        if let Some(file) = file {
            need(key, file);
        }
    }
    if config.voice.style == tengen_table::VoiceStyle::Voice {
        let v = &config.voice;
        let missing = tengen_table::sound::clip_names()
            .into_iter()
            .map(|name| v.dir.join(format!("{name}.wav")))
            .filter(|file| !file.is_file())
            .collect::<Vec<_>>();
        if let Some(first) = missing.first() {
            missing_files.push(Problem {
                path: "voice.dir".to_string(),
                message: format!(
                    "{} and {} more clips missing (the board stays silent; render them with `tengen voice --lang {} --out {}`)",
                    first.display(),
                    missing.len() - 1,
                    v.lang,
                    v.dir.display()
                ),
            });
        }
    }
    Ok(Checked {
        config,
        missing_files,
    })
}
