//! The configuration's sections as plain data: one struct per TOML table, with the wire contract's
//! keys (and the keys the product adds) as public fields, and the enums their values take.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

pub use tengen_hal::Side;
pub use tengen_l10n::Lang;
pub use tengen_protocol::event::ClockStart;
pub use tengen_referee::Penalties;
pub use tengen_rules::clock::LateRule;
pub use tengen_rules::Superko;

/// `[board]`: who this board is and how it is laid out.
#[derive(Debug, Clone, PartialEq)]
pub struct BoardConfig {
    /// `board.id` (required): the board's id in topics and events, `[a-z0-9-]`.
    pub id: String,
    /// `board.tournament`: the tournament id in topics, `[a-z0-9-]`. Default `"demo"`.
    pub tournament: String,
    /// `board.size`: lines on the board, 2..=25. Default 19.
    pub size: u8,
    /// `board.black_side`: where the Black player sits. Default south.
    pub black_side: Side,
    /// `board.game`: the id of the first game (until a `new_game` command), `[a-z0-9-]`.
    /// Default `"game-1"`.
    pub game: String,
    /// `board.lang`: the language of the board's own pages (its live page and `/clock`)
    /// where a reader's browser asks for none: `en`, `zh`, `zh-Hant` or `ja`. Default `en`.
    pub lang: Lang,
}

/// `[hardware]`: where the readings come from.
#[derive(Debug, Clone, PartialEq)]
pub struct HardwareConfig {
    /// `hardware.backend`: `rpi`, `serial` or `sim`. Default `sim`.
    pub backend: Backend,
    /// `hardware.scan_hz`: full scans per second, 1..=1000. Default 100.
    pub scan_hz: u32,
    /// `hardware.calibration`: the per-point calibration file `tengen calibrate` writes and
    /// the `rpi`/`serial` backends read (raw readings only). Default
    /// `/var/lib/tengen/calibration.json`.
    pub calibration: PathBuf,
    /// `[hardware.sim]`.
    pub sim: SimConfig,
    /// `[hardware.serial]`.
    pub serial: SerialConfig,
    /// `[hardware.rpi]`: the wiring of the direct driver, kept as the TOML table it was
    /// written as and handed to the hal (`tengen_hal`'s wiring type) by the `rpi` backend.
    /// Empty when not given (the hal's default wiring).
    pub rpi: toml::Table,
}

/// The hardware backend of `tengen run`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// Multiplexers and SPI ADCs read directly from a Raspberry Pi (needs the `rpi` feature).
    Rpi,
    /// A scanning microcontroller on a serial line.
    Serial,
    /// The simulated board.
    Sim,
}

impl Backend {
    /// The word used in the config file.
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Rpi => "rpi",
            Backend::Serial => "serial",
            Backend::Sim => "sim",
        }
    }

    /// Parses the config word.
    pub fn parse(text: &str) -> Option<Backend> {
        [Backend::Rpi, Backend::Serial, Backend::Sim]
            .into_iter()
            .find(|b| b.as_str() == text)
    }
}

/// `[hardware.sim]`: the simulated board as a backend of `tengen run`.
#[derive(Debug, Clone, PartialEq)]
pub struct SimConfig {
    /// What the simulated players play: `hardware.sim.sgf` or `hardware.sim.script`.
    pub source: SimSource,
    /// `hardware.sim.seed`: seed of human timing and noise. Default 1.
    pub seed: u64,
    /// `hardware.sim.noise`: probability that a point reads wrong in a scan, 0 <= p < 1.
    /// Default 0.0.
    pub noise: f64,
    /// `hardware.sim.speed`: pace multiplier, > 0 (1.0 = human pace in real time).
    /// Default 1.0.
    pub speed: f64,
    /// `hardware.sim.rehearse`: the simulated players wait for a game set up by `new_game`
    /// and for its clocks to start, play their game, and wait for the next `new_game`
    /// (the board is idle from power-on). Default false: they play at power-on, once.
    pub rehearse: bool,
    /// `hardware.sim.violations`: the probability that each game breaks a rule (an
    /// uncaptured stone, a moved stone or a double move, put right afterwards), drawn from
    /// the seed, 0 <= p <= 1. Default 0.
    pub violations: f64,
    /// `hardware.sim.alert_hold` (with `rehearse`): after a violation the simulated
    /// players wait for an arbiter's decision (the alert confirmed or dismissed, or any
    /// other command of an arbiter's) before putting the board right, as players told to
    /// wait for the arbiter do. Default false: they put it right a few seconds later.
    pub alert_hold: bool,
    /// `hardware.sim.black_late_s` (with `rehearse`): when Black arrives in a game whose
    /// players check in (Art. 22). Default: on time.
    pub black_arrives: SimArrival,
    /// `hardware.sim.white_late_s`: the same for White.
    pub white_arrives: SimArrival,
}

/// When a rehearsal board's simulated player arrives in a game whose players check in
/// (`hardware.sim.black_late_s`, `white_late_s`: seconds, or `"never"`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum SimArrival {
    /// Seated before play begins: they check in just after the game is set up.
    #[default]
    OnTime,
    /// Away when play begins; they sit down and press their clock this many ms of the
    /// board's time after it began.
    Late(u64),
    /// They never come (the board raises `absent` at the limit).
    Never,
}

/// The simulator's input.
#[derive(Debug, Clone, PartialEq)]
pub enum SimSource {
    /// `hardware.sim.sgf`: an SGF game turned into physical actions. Default
    /// `games/demo.sgf`.
    Sgf(PathBuf),
    /// `hardware.sim.script`: a script of physical actions (the script language of sim/README.md).
    Script(PathBuf),
    /// `hardware.sim.sgf` as a list of two or more files: one game per `new_game`, in
    /// turn, from the first again after the last (needs `hardware.sim.rehearse`).
    SgfList(Vec<PathBuf>),
}

impl SimSource {
    /// The files it names, with the config key they come from.
    pub fn files(&self) -> Vec<(&'static str, &Path)> {
        match self {
            SimSource::Sgf(p) => vec![("hardware.sim.sgf", p.as_path())],
            SimSource::Script(p) => vec![("hardware.sim.script", p.as_path())],
            SimSource::SgfList(ps) => ps
                .iter()
                .map(|p| ("hardware.sim.sgf", p.as_path()))
                .collect(),
        }
    }
}

/// `[hardware.serial]`: the scanning microcontroller's line.
#[derive(Debug, Clone, PartialEq)]
pub struct SerialConfig {
    /// `hardware.serial.path`: the device. Default `/dev/ttyACM0`.
    pub path: PathBuf,
    /// `hardware.serial.baud`: line speed (ignored by USB CDC devices). Default 1000000.
    pub baud: u32,
}

/// `[detection]`: how scans become stable changes.
#[derive(Debug, Clone, PartialEq)]
pub struct DetectionConfig {
    /// `detection.stable_ms`: how long a change must hold to count, > 0. Default 150.
    pub stable_ms: u64,
    /// `detection.pass_grace_ms`: a stone set by the passer within this time retracts the
    /// pass (`clock_before_move`). Default 2000.
    pub pass_grace_ms: u64,
    /// `detection.disturbed_points`: this many points changing at once is
    /// `board_disturbed`, >= 2. Default 6.
    pub disturbed_points: u32,
}

/// `[game]`: the rules of the first game (later games come with `new_game`).
#[derive(Debug, Clone, PartialEq)]
pub struct GameConfig {
    /// `game.komi`: in points, a multiple of 0.5. Default 7.5.
    pub komi: f64,
    /// `game.handicap`: 0 or 2..=9 stones. Default 0.
    pub handicap: u8,
    /// `game.superko`: whole-board repetition rule. Default situational.
    pub superko: Superko,
    /// `game.penalties`: who gives warnings. Default arbiter.
    pub penalties: Penalties,
    /// `game.clock_start`: how a new game's clocks begin (`arbiter`, `white`, `now`), as
    /// written; `None` when the key is absent (see [`crate::config::Config::clock_start`]).
    pub clock_start: Option<ClockStart>,
    /// `game.late_limit_s`: a player not seated this long after play began (inclusive) has
    /// lost (Art. 22.1: 3600, the default; 22.2, venue and lodging together: 900).
    pub late_limit_s: u32,
    /// `game.late_rule`: what a late arrival costs, `double` (Art. 22.1, 22.2: twice the
    /// time late, the default) or `byoyomi` (22.4: the absent player's clock counts).
    pub late_rule: LateRule,
    /// `game.black`: Black's name. Default `""`.
    pub black: String,
    /// `game.white`: White's name. Default `""`.
    pub white: String,
    /// `game.round`: the round, as the organiser names it. Default `""`.
    pub round: String,
    /// `game.table`: the table number or name. Default `""`.
    pub table: String,
}

/// `[time]`: the time control of the first game. Durations are kept in milliseconds.
#[derive(Debug, Clone, PartialEq)]
pub struct TimeConfig {
    /// `time.system`. Default byoyomi.
    pub system: TimeSystem,
    /// `time.main`: main time. Default `"60m"`.
    pub main_ms: u64,
    /// `time.periods`: byo-yomi periods. Default 5.
    pub periods: u32,
    /// `time.period`: one byo-yomi period, or the Canadian period. Default `"60s"`.
    pub period_ms: u64,
    /// `time.stones`: stones to play per Canadian period. Default 25.
    pub stones: u32,
    /// `time.increment`: Fischer increment per move. Default `"20s"`.
    pub increment_ms: u64,
}

/// The kinds of time control.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeSystem {
    /// No clock.
    None,
    /// Main time only.
    Absolute,
    /// Main time, then N periods of T.
    Byoyomi,
    /// Main time, then M stones per T.
    Canadian,
    /// Main time plus an increment per move.
    Fischer,
}

impl TimeSystem {
    /// The word used in the config file.
    pub fn as_str(self) -> &'static str {
        match self {
            TimeSystem::None => "none",
            TimeSystem::Absolute => "absolute",
            TimeSystem::Byoyomi => "byoyomi",
            TimeSystem::Canadian => "canadian",
            TimeSystem::Fischer => "fischer",
        }
    }

    /// Parses the config word.
    pub fn parse(text: &str) -> Option<TimeSystem> {
        [
            TimeSystem::None,
            TimeSystem::Absolute,
            TimeSystem::Byoyomi,
            TimeSystem::Canadian,
            TimeSystem::Fischer,
        ]
        .into_iter()
        .find(|s| s.as_str() == text)
    }
}

/// `[mqtt]`: where events go.
#[derive(Debug, Clone, PartialEq)]
pub struct MqttConfig {
    /// `mqtt.url`: `embedded`, `mqtt://host:port` or `mqtts://host:port`. Default embedded.
    pub url: MqttUrl,
    /// `mqtt.listen`: the embedded broker's address. Default `127.0.0.1:1883`.
    pub listen: SocketAddr,
    /// `mqtt.prefix`: the topic root's first level(s). Default `"tengen"`.
    pub prefix: String,
    /// `mqtt.client_id`: stable per board. Default `tengen-{board.id}`.
    pub client_id: String,
    /// `mqtt.keepalive`: MQTT keep-alive interval, 5s..=65535s. Default `"30s"`.
    pub keepalive_ms: u64,
    /// `mqtt.ca_file`: PEM CA certificates that sign the broker's (mqtts only).
    pub ca_file: Option<PathBuf>,
    /// `mqtt.cert_file`: PEM client certificate (with `key_file`; mqtts only).
    pub cert_file: Option<PathBuf>,
    /// `mqtt.key_file`: PEM private key of `cert_file`.
    pub key_file: Option<PathBuf>,
    /// `mqtt.username`: MQTT user name.
    pub username: Option<String>,
    /// `mqtt.password_file`: a file holding the password (first line), needs `username`.
    pub password_file: Option<PathBuf>,
    /// `mqtt.arbiters`: the only senders (`by`) whose commands the board takes; empty (the
    /// default) takes commands from anyone who can write `cmd`.
    pub arbiters: Vec<String>,
    /// `mqtt.command_key_file`: the secret shared with the hall; when set, every command
    /// must be signed with it (see `tengen_protocol::signing`).
    pub command_key_file: Option<PathBuf>,
    /// `mqtt.command_window`: how far a signed command's `at` may be from the board's
    /// clock, either way (older is a replay, newer a clock off), 10s..=1h. Default `"5m"`.
    pub command_window_ms: u64,
    /// `mqtt.open_commands`: the board takes unsigned commands from an external broker on
    /// purpose (default false). Without it an `mqtts://` board with no `command_key_file`
    /// is refused, and an `mqtt://` one is warned about.
    pub open_commands: bool,
}

/// Which broker the board talks to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MqttUrl {
    /// Run the embedded broker on `mqtt.listen` and publish to it.
    Embedded,
    /// An external broker.
    Broker {
        /// True for `mqtts://` (TLS).
        tls: bool,
        /// Host name or address.
        host: String,
        /// Port (default 1883, or 8883 with TLS).
        port: u16,
    },
}

impl std::fmt::Display for MqttUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MqttUrl::Embedded => write!(f, "embedded"),
            MqttUrl::Broker { tls, host, port } => {
                let scheme = if *tls { "mqtts" } else { "mqtt" };
                if host.contains(':') {
                    write!(f, "{scheme}://[{host}]:{port}")
                } else {
                    write!(f, "{scheme}://{host}:{port}")
                }
            }
        }
    }
}

/// `[http]`: the live view.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpConfig {
    /// `http.listen`: the live view's address. Default `127.0.0.1:8080`.
    pub listen: SocketAddr,
}

/// `[storage]`: where the board keeps its files.
#[derive(Debug, Clone, PartialEq)]
pub struct StorageConfig {
    /// `storage.dir`: the journal and the SGF file. Default `/var/lib/tengen`.
    pub dir: PathBuf,
    /// `storage.low_mb`: below this many MB (10^6 bytes) free in `dir` the board raises
    /// `storage_low`; 0 raises nothing before the disk is full. Default
    /// [`StorageConfig::DEFAULT_LOW_MB`].
    pub low_mb: u64,
}

impl StorageConfig {
    /// The default `storage.low_mb`: 64 MB, some 300 hours of one board's journal at the
    /// fastest (a 272-move game played into byo-yomi journals 111 kB in 34 minutes), time
    /// for an operator to act even when something else (logs, other files) fills the disk.
    pub const DEFAULT_LOW_MB: u64 = 64;

    /// The largest `storage.low_mb` accepted (a terabyte).
    pub const MAX_LOW_MB: u64 = 1_000_000;

    /// `storage.low_mb` in bytes.
    pub fn low_bytes(&self) -> u64 {
        self.low_mb.saturating_mul(1_000_000)
    }
}

/// `[display]`: the two player displays (Art. 12.1: the players read their time).
#[derive(Debug, Clone, PartialEq)]
pub struct DisplayConfig {
    /// `display.driver`: `ssd1306` (default) or `none`.
    pub driver: DisplayDriver,
    /// `display.i2c_bus`: the I2C bus both displays are on (default 1: GPIO2/GPIO3 on a Pi).
    pub i2c_bus: u8,
    /// `display.black_address`: Black's display (default 0x3C).
    pub black_address: u8,
    /// `display.white_address`: White's display (default 0x3D).
    pub white_address: u8,
    /// `display.rotate_black`: Black's display is mounted upside down (default false).
    pub rotate_black: bool,
    /// `display.rotate_white`: White's display is mounted upside down (default false).
    pub rotate_white: bool,
    /// `display.lang`: the language of the displays' words (`en`, `zh`, `zh-Hant`, `ja`;
    /// default `board.lang`). Names are drawn as written in any of them.
    pub lang: Lang,
}

/// Which display driver drives the player displays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DisplayDriver {
    /// Two SSD1306 128x64 OLEDs on I2C (on the `sim` backend: two emulated ones).
    Ssd1306,
    /// No displays.
    None,
}

impl DisplayDriver {
    /// The config word.
    pub fn as_str(self) -> &'static str {
        match self {
            DisplayDriver::Ssd1306 => "ssd1306",
            DisplayDriver::None => "none",
        }
    }

    pub(crate) fn parse(word: &str) -> Option<DisplayDriver> {
        match word {
            "ssd1306" => Some(DisplayDriver::Ssd1306),
            "none" => Some(DisplayDriver::None),
            _ => None,
        }
    }
}

/// `[voice]`: how the board says the count (Art. 12.1, 12.3).
#[derive(Debug, Clone, PartialEq)]
pub struct VoiceConfig {
    /// `voice.style`: `voice` (default), `beep` or `off`.
    pub style: tengen_table::VoiceStyle,
    /// `voice.lang`: the language `tengen voice` renders the clips in (default `en`; one of
    /// [`tengen_table::clips::languages`]).
    pub lang: Lang,
    /// `voice.dir`: the clips, named as `tengen voice` writes them (default
    /// `/var/lib/tengen/voice`).
    pub dir: PathBuf,
    /// `voice.volume`: 0.0 ..= 1.0 (default 1.0).
    pub volume: f64,
}
