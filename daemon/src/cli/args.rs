//! Command-line arguments, exactly as docs/operating.md ("Commands") names them. Documented extra flags are
//! allowed; renaming or dropping one is not.

use std::path::PathBuf;

use clap::{Args, Subcommand};

/// The subcommands of `tengen`.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// The main job on embedded defaults: a simulated board plays a bundled real game.
    Demo(DemoArgs),
    /// The board service as configured.
    Run(RunArgs),
    /// The whole pipeline on simulated hardware, on virtual time.
    Sim(SimArgs),
    /// Rules only: plays an SGF game's main line through the rules core.
    Replay(ReplayArgs),
    /// Area count of an SGF game's final position.
    Score(ScoreArgs),
    /// The hall: every board under the prefix, and the arbiters' console.
    Hall(HallArgs),
    /// Guided calibration on real hardware.
    Calibrate(CalibrateArgs),
    /// Loads and validates a config; prints every problem with its key path.
    CheckConfig(CheckConfigArgs),
    /// Renders the clock's spoken calls to WAV clips with espeak-ng.
    Voice(VoiceArgs),
    /// Reads an OpenGotha tournament file and prints each game of a round.
    Pairings(PairingsArgs),
    /// Writes a round's results from its SGF records into a copy of the tournament file.
    Results(ResultsArgs),
    /// Answers GTP on standard input and output as a board's public game on the hall.
    Gtp(GtpArgs),
    /// Rehearses a round tonight: a broker, a hall and simulated boards in one process.
    Rehearse(RehearseArgs),
    /// Writes mosquitto's password file, ACL and config for a hall of N boards.
    BrokerConfig(BrokerConfigArgs),
    /// Reads a board's black box: the board as the sensors saw it.
    Frames(FramesArgs),
}

/// `tengen frames FILE [--at MS | --from MS --to MS] [--json]`
#[derive(Args, Debug, Clone)]
pub struct FramesArgs {
    /// A frames file (`{storage.dir}/frames/{game}.frames`, or `tengen sim --frames-out`).
    pub file: PathBuf,
    /// The board as seen at this time (ms since the game started): 19 rows of `.XO?`.
    #[arg(long, conflicts_with_all = ["from", "to"])]
    pub at: Option<u64>,
    /// The start of a window (ms since the game started).
    #[arg(long, requires = "to")]
    pub from: Option<u64>,
    /// The end of a window, inclusive.
    #[arg(long, requires = "from")]
    pub to: Option<u64>,
    /// One JSON line per change: `{"ms":N,"board":"...","presses":[...]}`.
    #[arg(long)]
    pub json: bool,
}

/// `tengen demo [--http ADDR] [--mqtt ADDR] [--speed X]`
#[derive(Args, Debug, Clone)]
pub struct DemoArgs {
    /// Address of the live web view.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub http: String,
    /// Address of the embedded MQTT broker.
    #[arg(long, default_value = "127.0.0.1:1883")]
    pub mqtt: String,
    /// Pace multiplier (1.0 = human pace).
    #[arg(long, default_value_t = 1.0)]
    pub speed: f64,
}

/// `tengen run [--config FILE]`
#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    /// The board's configuration.
    #[arg(long, default_value = "/etc/tengen/board.toml")]
    pub config: PathBuf,
}

/// `tengen sim (--sgf FILE | --script FILE) [...]`
#[derive(Args, Debug, Clone)]
pub struct SimArgs {
    /// An SGF game turned into physical actions.
    #[arg(long, conflicts_with = "script", required_unless_present = "script")]
    pub sgf: Option<PathBuf>,
    /// A script of physical actions (the script language of sim/README.md).
    #[arg(long)]
    pub script: Option<PathBuf>,
    /// Seed for human timing and noise.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Probability that a point reads wrong in each scan.
    #[arg(long)]
    pub noise: Option<f64>,
    /// A board configuration (script setup lines override it).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Writes every event, one JSON object per line.
    #[arg(long)]
    pub events: Option<PathBuf>,
    /// Writes the recorded game.
    #[arg(long = "sgf-out")]
    pub sgf_out: Option<PathBuf>,
    /// Also publishes to this MQTT broker (`mqtt://host:port`).
    #[arg(long)]
    pub broker: Option<String>,
    /// Runs in real time instead of as fast as possible.
    #[arg(long)]
    pub realtime: bool,
    /// Writes each distinct frame of the two player displays as PNG:
    /// `DIR/{ms}-B.png`, `DIR/{ms}-W.png` (virtual ms since the first event).
    #[arg(long = "clock-frames")]
    pub clock_frames: Option<PathBuf>,
    /// Writes the board's sound track (the calls in the configured voice or beeps) as a
    /// mono 16-bit WAV whose time 0 is the first event.
    #[arg(long = "audio-out")]
    pub audio_out: Option<PathBuf>,
    /// Writes what the sensors saw, scan by scan, as the board's black box does
    /// (`tengen frames` reads it).
    #[arg(long = "frames-out")]
    pub frames_out: Option<PathBuf>,
}

/// `tengen replay FILE.sgf [--json] [--superko situational|positional]`
#[derive(Args, Debug, Clone)]
pub struct ReplayArgs {
    /// The game.
    pub file: PathBuf,
    /// One JSON line per move and a final line.
    #[arg(long)]
    pub json: bool,
    /// Whole-board repetition rule.
    #[arg(long, default_value = "situational", value_parser = ["situational", "positional"])]
    pub superko: String,
}

/// `tengen score FILE.sgf [--dead PTS] [--komi K]`
#[derive(Args, Debug, Clone)]
pub struct ScoreArgs {
    /// The game.
    pub file: PathBuf,
    /// Dead stones to lift first, `D4,E5,...`.
    #[arg(long)]
    pub dead: Option<String>,
    /// Komi in points (overrides the file's `KM`).
    #[arg(long, allow_hyphen_values = true)]
    pub komi: Option<f64>,
}

/// `tengen hall --broker URL [--http ADDR] [--config FILE]`, or
/// `tengen hall --add-arbiter NAME [--role arbiter|commentator]`
#[derive(Args, Debug, Clone)]
#[command(
    override_usage = "tengen hall --broker URL [--http ADDR] [--config FILE]\n       tengen hall --add-arbiter NAME [--role arbiter|commentator]"
)]
pub struct HallArgs {
    /// The broker to subscribe to.
    #[arg(long, required_unless_present = "add_arbiter")]
    pub broker: Option<String>,
    /// Where to serve the pages.
    #[arg(long, default_value = "127.0.0.1:8090")]
    pub http: String,
    /// The hall configuration (arbiter logins, delay).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Prints a `[[arbiter]]` entry for NAME with an Argon2id hash of a password (asked on
    /// the terminal, or read from standard input's first line), to paste into hall.toml.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["broker", "config"])]
    pub add_arbiter: Option<String>,

    // The login `--add-arbiter` makes (issue 21).
    /// With `--add-arbiter`: `arbiter` (the console) or `commentator` (the read-only
    /// commentary pages).
    #[arg(
        long,
        value_name = "ROLE",
        requires = "add_arbiter",
        default_value = "arbiter",
        value_parser = ["arbiter", "commentator"]
    )]
    pub role: String,
}

/// `tengen calibrate [--config FILE]`
#[derive(Args, Debug, Clone)]
pub struct CalibrateArgs {
    /// The board's configuration (names the calibration file).
    #[arg(long, default_value = "/etc/tengen/board.toml")]
    pub config: PathBuf,
}

/// `tengen check-config FILE`
#[derive(Args, Debug, Clone)]
pub struct CheckConfigArgs {
    /// The configuration to check.
    pub file: PathBuf,
}

/// `tengen voice --lang LANG --out DIR`
#[derive(Args, Debug, Clone)]
pub struct VoiceArgs {
    /// The language of the calls: `en`, `zh` (Mandarin) or `ja`.
    #[arg(long)]
    pub lang: String,
    /// The folder the clips are written to (`DIR/{call}.wav`).
    #[arg(long)]
    pub out: PathBuf,
}

/// `tengen pairings FILE.xml --round N [--boards PATTERN] [--json]`
#[derive(Args, Debug, Clone)]
pub struct PairingsArgs {
    /// The OpenGotha tournament file.
    pub file: PathBuf,
    /// The round, from 1.
    #[arg(long)]
    pub round: u32,
    /// The board id of each table: `{table}` is the table number, `{table:02}` pads it.
    #[arg(long, default_value = "table-{table}")]
    pub boards: String,
    /// One JSON object per game instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// `tengen results FILE.xml --round N (--zip ROUND.zip | --sgf DIR) --out OUT [--format ...]`
#[derive(Args, Debug, Clone)]
pub struct ResultsArgs {
    /// The OpenGotha tournament file.
    pub file: PathBuf,
    /// The round, from 1.
    #[arg(long)]
    pub round: u32,
    /// The round's records as the hall serves them (`/round/{round}.zip`).
    #[arg(long, conflicts_with = "sgf", required_unless_present = "sgf")]
    pub zip: Option<PathBuf>,
    /// A folder of the round's SGF records.
    #[arg(long)]
    pub sgf: Option<PathBuf>,
    /// The file written (never the tournament file itself).
    #[arg(long)]
    pub out: PathBuf,
    /// `opengotha` (the tournament file with the results set), `aga` or `csv`.
    #[arg(long, default_value = "opengotha")]
    pub format: String,

    // Whose records they are (issue 21): the board of each table, and the tournament id
    // the boards publish under, checked against each record's TENGENBOARD and
    // TENGENTOURNAMENT.
    /// The board id of each table, as the hall's `[tournament] boards`: a record naming
    /// another board is refused.
    #[arg(long, default_value = "table-{table}")]
    pub boards: String,
    /// The tournament id the boards publish under (`[tournament] id`): when given, every
    /// record must name it.
    #[arg(long)]
    pub tournament: Option<String>,
}

/// `tengen gtp --hall URL --board T/B`
#[derive(Args, Debug, Clone)]
pub struct GtpArgs {
    /// The hall's address, `http://HOST:PORT`.
    #[arg(long)]
    pub hall: String,
    /// The board as the hall's paths name it: `TOURNAMENT/BOARD`.
    #[arg(long)]
    pub board: String,
}

/// `tengen rehearse FILE.xml --round N [--boards K] [--http ADDR] [--mqtt ADDR] [--speed X]
/// [--violations P] [--start] [--broadcast-delay MOVES]`
#[derive(Args, Debug, Clone)]
pub struct RehearseArgs {
    /// The OpenGotha tournament file (only read: the rehearsal works on a copy).
    pub file: PathBuf,
    /// The round, from 1.
    #[arg(long)]
    pub round: u32,
    /// Rehearse the round's first K tables (default: all).
    #[arg(long, value_name = "K")]
    pub boards: Option<u32>,
    /// Where the hall serves its pages and the console.
    #[arg(long, default_value = "127.0.0.1:8090")]
    pub http: String,
    /// The embedded MQTT broker's address.
    #[arg(long, default_value = "127.0.0.1:1883")]
    pub mqtt: String,
    /// Pace multiplier (1.0 = human pace).
    #[arg(long, default_value_t = 1.0)]
    pub speed: f64,
    /// The probability that each game breaks a rule (an uncaptured stone, a moved stone or
    /// a double move), put right afterwards.
    #[arg(long, default_value_t = 0.0, value_name = "P")]
    pub violations: f64,
    /// Also start the round and begin play, through the console as an arbiter would.
    #[arg(long)]
    pub start: bool,
    /// The rehearsal's folder (new or empty; default: a new one in the temporary folder,
    /// kept: the results are there).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// The seed of the made-up games, their timing and their violations.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Also rehearse the broadcast: the public pages and the public round feed
    /// (`/feed/tournament.json`) held MOVES moves behind each board, and the public site
    /// kept as static files in the rehearsal's `export/` folder.
    #[arg(long, value_name = "MOVES")]
    pub broadcast_delay: Option<u32>,
    /// After a violation the simulated players wait for the arbiter (the alert confirmed or
    /// dismissed) before putting the board right.
    #[arg(long)]
    pub alert_hold: bool,
    /// Table TABLE's board dies AT_SECONDS after the rehearsal started (its game then
    /// rings `board_offline`), and comes back 20 s later (`board_restarted`, with the
    /// real time off).
    #[arg(long, num_args = 2, value_names = ["TABLE", "AT_SECONDS"])]
    pub kill_board: Option<Vec<u64>>,
    /// The fraction (0..=1) of the players who arrive late (Art. 22): at a random time
    /// within the boards' late limit after play begins, drawn from the seed.
    #[arg(long, default_value_t = 0.0, value_name = "P")]
    pub late: f64,
    /// The fraction (0..=1) of the players who never come: the board raises `absent` at
    /// the limit.
    #[arg(long, default_value_t = 0.0, value_name = "P")]
    pub absent: f64,
    /// The boards' `[game] late_limit_s` (1..=86400; default the boards' own, 3600), to
    /// see the limit quickly.
    #[arg(long, value_name = "SECONDS")]
    pub late_limit: Option<u32>,
}

/// `tengen broker-config --boards PATTERN --count N --tournament ID --out DIR`; with `--venue
/// ID --hub HOST:PORT --hub-password-file FILE`, a venue's broker with its bridge out to the
/// hub; `tengen broker-config --venues ID,ID,... --out DIR`, the hub's broker (docs/venues.md).
/// Every value is checked by the command itself, so a bad one is one line (exit 2).
#[derive(Args, Debug, Clone, Default)]
pub struct BrokerConfigArgs {
    /// The board ids, as `[tournament] boards` (`hall1-{table:02}`): tables 1..N.
    #[arg(long, value_name = "PATTERN")]
    pub boards: Option<String>,
    /// How many boards (tables 1 to N).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub count: Option<String>,
    /// The tournament id the boards publish under (`[board] tournament`).
    #[arg(long, value_name = "ID")]
    pub tournament: Option<String>,
    /// The folder the files go to (made if missing; existing files are never replaced).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// A venue's broker: this venue's id on the hub (`[venue] id` of its hall); the config
    /// then ends with the bridge it dials out to the hub with.
    #[arg(long, value_name = "ID")]
    pub venue: Option<String>,
    /// The hub's broker, `HOST:PORT` (TLS), for `--venue`.
    #[arg(long, value_name = "HOST:PORT")]
    pub hub: Option<String>,
    /// The file holding this venue's password on the hub (the hub's `broker-config` printed
    /// it), for `--venue`.
    #[arg(long, value_name = "FILE")]
    pub hub_password_file: Option<PathBuf>,
    /// The CA certificate the hub's broker is checked against, for `--venue` (default
    /// `/etc/mosquitto/tengen/certs/hub-ca.pem`).
    #[arg(long, value_name = "FILE")]
    pub hub_ca: Option<PathBuf>,
    /// The hub's broker: the venues' ids, comma-separated (`paris,lyon`), one account each.
    #[arg(long, value_name = "ID,ID,...")]
    pub venues: Option<String>,
}
