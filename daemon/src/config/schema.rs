//! The schema: which keys each table may hold, their defaults and their checks. Reads a
//! parsed TOML table into a [`Config`], recording every problem in the [`Reader`].

use std::net::SocketAddr;
use std::path::PathBuf;

use toml::Table;

use super::sections::*;
use super::Config;
use tengen_net::config_reader::{join, Reader};

/// Reads the whole file. The returned config holds defaults wherever a value was bad, so
/// it is only meaningful when the reader recorded no problem.
pub(crate) fn read(root: &Table, r: &mut Reader) -> Config {
    r.unknown_keys(
        root,
        "",
        &[
            "board",
            "hardware",
            "detection",
            "game",
            "time",
            "mqtt",
            "http",
            "storage",
            "display",
            "voice",
        ],
    );
    let empty = Table::new();
    let board = read_board(r.table(root, "", "board").unwrap_or(&empty), r);
    let hardware = read_hardware(r.table(root, "", "hardware").unwrap_or(&empty), r);
    let detection = read_detection(r.table(root, "", "detection").unwrap_or(&empty), r);
    let game = read_game(r.table(root, "", "game").unwrap_or(&empty), r);
    let time = read_time(r.table(root, "", "time").unwrap_or(&empty), r);
    let mqtt = read_mqtt(r.table(root, "", "mqtt").unwrap_or(&empty), &board.id, r);
    let http = read_http(r.table(root, "", "http").unwrap_or(&empty), r);
    let storage = read_storage(r.table(root, "", "storage").unwrap_or(&empty), r);
    let display = read_display(
        r.table(root, "", "display").unwrap_or(&empty),
        board.lang,
        r,
    );
    let voice = read_voice(r.table(root, "", "voice").unwrap_or(&empty), r);
    if hardware.backend == Backend::Rpi || !hardware.rpi.is_empty() {
        if let Err(problems) = super::rpi::rpi_layout(&hardware.rpi, board.size) {
            r.problems.extend(problems);
        }
    }
    if game.handicap >= 2 && board.size < 7 {
        r.problem(
            "game.handicap",
            format!(
                "a handicap needs a board of at least 7x7, not {}",
                board.size
            ),
        );
    }
    Config {
        board,
        hardware,
        detection,
        game,
        time,
        mqtt,
        http,
        storage,
        display,
        voice,
    }
}

fn read_board(t: &Table, r: &mut Reader) -> BoardConfig {
    const P: &str = "board";
    r.unknown_keys(
        t,
        P,
        &["id", "tournament", "size", "black_side", "game", "lang"],
    );
    let id = if t.contains_key("id") {
        r.id(t, P, "id").unwrap_or_default()
    } else {
        r.problem("board.id", "required");
        String::new()
    };
    let d = Config::default_for("x").board;
    BoardConfig {
        id,
        tournament: r.id(t, P, "tournament").unwrap_or(d.tournament),
        size: r
            .integer_in(t, P, "size", 2, 25)
            .map(|v| v as u8)
            .unwrap_or(d.size),
        black_side: r
            .word(t, P, "black_side", "south|north|east|west", |w| {
                w.parse().ok()
            })
            .unwrap_or(d.black_side),
        game: r.id(t, P, "game").unwrap_or(d.game),
        lang: r
            .word(t, P, "lang", "en|zh|zh-Hant|ja", |w| Lang::parse(w).ok())
            .unwrap_or(d.lang),
    }
}

fn read_hardware(t: &Table, r: &mut Reader) -> HardwareConfig {
    const P: &str = "hardware";
    r.unknown_keys(
        t,
        P,
        &["backend", "scan_hz", "calibration", "sim", "serial", "rpi"],
    );
    let d = Config::default_for("x").hardware;
    let empty = Table::new();
    let sim_t = r.table(t, P, "sim").unwrap_or(&empty);
    let serial_t = r.table(t, P, "serial").unwrap_or(&empty);
    let rpi = r.table(t, P, "rpi").cloned().unwrap_or_default();
    HardwareConfig {
        backend: r
            .word(t, P, "backend", "rpi|serial|sim", Backend::parse)
            .unwrap_or(d.backend),
        scan_hz: r
            .integer_in(t, P, "scan_hz", 1, 1000)
            .map(|v| v as u32)
            .unwrap_or(d.scan_hz),
        calibration: path(r, t, P, "calibration").unwrap_or(d.calibration),
        sim: read_sim(sim_t, d.sim, r),
        serial: read_serial(serial_t, d.serial, r),
        rpi,
    }
}

fn read_sim(t: &Table, d: SimConfig, r: &mut Reader) -> SimConfig {
    const P: &str = "hardware.sim";
    r.unknown_keys(
        t,
        P,
        &[
            "sgf",
            "script",
            "seed",
            "noise",
            "speed",
            "rehearse",
            "violations",
            "alert_hold",
            "black_late_s",
            "white_late_s",
        ],
    );
    let sgf = sgf_files(r, t);
    let script = path(r, t, P, "script");
    let rehearse = r.boolean(t, P, "rehearse").unwrap_or(d.rehearse);
    let source = match (sgf, script) {
        (Some(_), Some(_)) => {
            r.problem(P, "give sgf or script, not both");
            d.source
        }
        (Some(mut files), None) if files.len() == 1 => SimSource::Sgf(files.remove(0)),
        (Some(files), None) => {
            if !rehearse {
                r.problem(
                    join(P, "sgf"),
                    "a list of games is played one per new_game: set rehearse = true, or give \
                     one file",
                );
            }
            SimSource::SgfList(files)
        }
        (None, Some(p)) => SimSource::Script(p),
        (None, None) => d.source,
    };
    let noise = r.number(t, P, "noise").and_then(|n| {
        if (0.0..1.0).contains(&n) {
            Some(n)
        } else {
            r.problem(join(P, "noise"), format!("{n} is not in 0 <= p < 1"));
            None
        }
    });
    let speed = r.number(t, P, "speed").and_then(|s| {
        if s > 0.0 && s <= 10_000.0 {
            Some(s)
        } else {
            r.problem(
                join(P, "speed"),
                format!("{s} is not in 0 < speed <= 10000"),
            );
            None
        }
    });
    let violations = r.number(t, P, "violations").and_then(|v| {
        if (0.0..=1.0).contains(&v) {
            Some(v)
        } else {
            r.problem(
                join(P, "violations"),
                format!("{v} is not a probability (0 <= p <= 1)"),
            );
            None
        }
    });
    SimConfig {
        source,
        seed: r
            .integer_in(t, P, "seed", 0, i64::MAX)
            .map(|v| v as u64)
            .unwrap_or(d.seed),
        noise: noise.unwrap_or(d.noise),
        speed: speed.unwrap_or(d.speed),
        rehearse,
        violations: violations.unwrap_or(d.violations),
        alert_hold: r.boolean(t, P, "alert_hold").unwrap_or(d.alert_hold),
        black_arrives: arrival(t, "black_late_s", r).unwrap_or(d.black_arrives),
        white_arrives: arrival(t, "white_late_s", r).unwrap_or(d.white_arrives),
    }
}

/// `hardware.sim.black_late_s` / `white_late_s`: seconds after play begins (0..=86400), or
/// `"never"`; `None` when absent or wrong (recorded).
fn arrival(t: &Table, key: &str, r: &mut Reader) -> Option<SimArrival> {
    const P: &str = "hardware.sim";
    if let Some(toml::Value::String(s)) = t.get(key) {
        if s == "never" {
            return Some(SimArrival::Never);
        }
        r.problem(
            join(P, key),
            format!("{s:?}: give seconds (0..=86400) or \"never\""),
        );
        return None;
    }
    let s = r.number(t, P, key)?;
    if (0.0..=86_400.0).contains(&s) {
        Some(SimArrival::Late((s * 1000.0).round() as u64))
    } else {
        r.problem(
            join(P, key),
            format!("{s} is not in 0..=86400 seconds (or \"never\")"),
        );
        None
    }
}

/// `hardware.sim.sgf`: one file, or a list of files (played in turn, one per game).
fn sgf_files(r: &mut Reader, t: &Table) -> Option<Vec<PathBuf>> {
    const KEY: &str = "hardware.sim.sgf";
    let items = match t.get("sgf")? {
        toml::Value::Array(items) => items,
        _ => return path(r, t, "hardware.sim", "sgf").map(|p| vec![p]),
    };
    if items.is_empty() {
        r.problem(KEY, "an empty list: give at least one SGF file");
        return None;
    }
    let mut files = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match item.as_str().map(str::trim) {
            Some(f) if !f.is_empty() => files.push(PathBuf::from(f)),
            _ => r.problem(format!("{KEY}[{i}]"), "must be a file name"),
        }
    }
    (files.len() == items.len()).then_some(files)
}

fn read_serial(t: &Table, d: SerialConfig, r: &mut Reader) -> SerialConfig {
    const P: &str = "hardware.serial";
    r.unknown_keys(t, P, &["path", "baud"]);
    SerialConfig {
        path: path(r, t, P, "path").unwrap_or(d.path),
        baud: r
            .integer_in(t, P, "baud", 300, 20_000_000)
            .map(|v| v as u32)
            .unwrap_or(d.baud),
    }
}

fn read_detection(t: &Table, r: &mut Reader) -> DetectionConfig {
    const P: &str = "detection";
    r.unknown_keys(t, P, &["stable_ms", "pass_grace_ms", "disturbed_points"]);
    let d = Config::default_for("x").detection;
    let stable_ms = r.integer(t, P, "stable_ms").and_then(|v| {
        if v <= 0 {
            r.problem(join(P, "stable_ms"), "must be > 0");
            None
        } else if v > 60_000 {
            r.problem(join(P, "stable_ms"), format!("{v} is more than a minute"));
            None
        } else {
            Some(v as u64)
        }
    });
    DetectionConfig {
        stable_ms: stable_ms.unwrap_or(d.stable_ms),
        pass_grace_ms: r
            .integer_in(t, P, "pass_grace_ms", 0, 600_000)
            .map(|v| v as u64)
            .unwrap_or(d.pass_grace_ms),
        disturbed_points: r
            .integer_in(t, P, "disturbed_points", 2, 625)
            .map(|v| v as u32)
            .unwrap_or(d.disturbed_points),
    }
}

fn read_game(t: &Table, r: &mut Reader) -> GameConfig {
    const P: &str = "game";
    r.unknown_keys(
        t,
        P,
        &[
            "komi",
            "handicap",
            "superko",
            "penalties",
            "clock_start",
            "late_limit_s",
            "late_rule",
            "black",
            "white",
            "round",
            "table",
        ],
    );
    let d = Config::default_for("x").game;
    let komi = r.number(t, P, "komi").and_then(|k| {
        if (k * 2.0).fract() != 0.0 {
            r.problem(join(P, "komi"), format!("{k} is not a multiple of 0.5"));
            None
        } else if k.abs() > 1000.0 {
            r.problem(join(P, "komi"), format!("{k} is not in -1000..=1000"));
            None
        } else {
            Some(k)
        }
    });
    let handicap = r.integer(t, P, "handicap").and_then(|h| {
        if h == 0 || (2..=9).contains(&h) {
            Some(h as u8)
        } else {
            r.problem(join(P, "handicap"), format!("{h} is not 0 or 2..=9"));
            None
        }
    });
    GameConfig {
        komi: komi.unwrap_or(d.komi),
        handicap: handicap.unwrap_or(d.handicap),
        superko: r
            .word(t, P, "superko", "situational|positional", Superko::parse)
            .unwrap_or(d.superko),
        penalties: r
            .word(t, P, "penalties", "arbiter|auto", Penalties::parse)
            .unwrap_or(d.penalties),
        clock_start: r
            .word(t, P, "clock_start", "arbiter|white|now", ClockStart::parse)
            .or(d.clock_start),
        late_limit_s: r
            .integer_in(t, P, "late_limit_s", 1, 24 * 3600)
            .map(|v| v as u32)
            .unwrap_or(d.late_limit_s),
        late_rule: r
            .word(t, P, "late_rule", "double|byoyomi", LateRule::parse)
            .unwrap_or(d.late_rule),
        black: r.string(t, P, "black").unwrap_or(d.black),
        white: r.string(t, P, "white").unwrap_or(d.white),
        round: r.string(t, P, "round").unwrap_or(d.round),
        table: r.string(t, P, "table").unwrap_or(d.table),
    }
}

fn read_time(t: &Table, r: &mut Reader) -> TimeConfig {
    const P: &str = "time";
    r.unknown_keys(
        t,
        P,
        &["system", "main", "periods", "period", "stones", "increment"],
    );
    let d = Config::default_for("x").time;
    let time = TimeConfig {
        system: r
            .word(
                t,
                P,
                "system",
                "none|absolute|byoyomi|canadian|fischer",
                TimeSystem::parse,
            )
            .unwrap_or(d.system),
        main_ms: r.duration_ms(t, P, "main").unwrap_or(d.main_ms),
        periods: r
            .integer_in(t, P, "periods", 1, 1000)
            .map(|v| v as u32)
            .unwrap_or(d.periods),
        period_ms: r.duration_ms(t, P, "period").unwrap_or(d.period_ms),
        stones: r
            .integer_in(t, P, "stones", 1, 1000)
            .map(|v| v as u32)
            .unwrap_or(d.stones),
        increment_ms: r.duration_ms(t, P, "increment").unwrap_or(d.increment_ms),
    };
    let needs_main = matches!(time.system, TimeSystem::Absolute | TimeSystem::Fischer);
    if needs_main && time.main_ms == 0 {
        r.problem(
            "time.main",
            format!("must be > 0 with system = {:?}", time.system.as_str()),
        );
    }
    let needs_period = matches!(time.system, TimeSystem::Byoyomi | TimeSystem::Canadian);
    if needs_period && time.period_ms < 1000 {
        r.problem(
            "time.period",
            format!(
                "must be at least 1s with system = {:?}",
                time.system.as_str()
            ),
        );
    }
    time
}

fn read_mqtt(t: &Table, board_id: &str, r: &mut Reader) -> MqttConfig {
    const P: &str = "mqtt";
    r.unknown_keys(
        t,
        P,
        &[
            "url",
            "listen",
            "prefix",
            "client_id",
            "keepalive",
            "ca_file",
            "cert_file",
            "key_file",
            "username",
            "password_file",
            "arbiters",
            "command_key_file",
            "command_window",
            "open_commands",
        ],
    );
    let d = Config::default_for(board_id).mqtt;
    let url = r
        .string(t, P, "url")
        .and_then(|u| match parse_mqtt_url(&u) {
            Ok(url) => Some(url),
            Err(why) => {
                r.problem(join(P, "url"), format!("{u:?} {why}"));
                None
            }
        });
    let prefix = r.string(t, P, "prefix").and_then(|p| {
        if !p.is_empty() && p.split('/').all(tengen_net::config_reader::is_id) {
            Some(p)
        } else {
            r.problem(
                join(P, "prefix"),
                format!("{p:?} is not [a-z0-9-] levels separated by '/'"),
            );
            None
        }
    });
    let client_id = r.string(t, P, "client_id").and_then(|c| {
        if !c.is_empty() && c.len() <= 64 && c.bytes().all(|b| b.is_ascii_graphic()) {
            Some(c)
        } else {
            r.problem(
                join(P, "client_id"),
                format!("{c:?} is not 1..=64 printable ASCII characters"),
            );
            None
        }
    });
    let keepalive = r.duration_ms(t, P, "keepalive").and_then(|k| {
        if (5_000..=65_535_000).contains(&k) {
            Some(k)
        } else {
            r.problem(join(P, "keepalive"), "must be between 5s and 65535s");
            None
        }
    });
    let command_window = r.duration_ms(t, P, "command_window").and_then(|w| {
        if (10_000..=3_600_000).contains(&w) {
            Some(w)
        } else {
            r.problem(join(P, "command_window"), "must be between 10s and 1h");
            None
        }
    });
    let mqtt = MqttConfig {
        url: url.unwrap_or(d.url),
        listen: addr(r, t, P, "listen").unwrap_or(d.listen),
        prefix: prefix.unwrap_or(d.prefix),
        client_id: client_id.unwrap_or(d.client_id),
        keepalive_ms: keepalive.unwrap_or(d.keepalive_ms),
        ca_file: path(r, t, P, "ca_file"),
        cert_file: path(r, t, P, "cert_file"),
        key_file: path(r, t, P, "key_file"),
        username: r.string(t, P, "username"),
        password_file: path(r, t, P, "password_file"),
        arbiters: arbiters(r, t, P),
        command_key_file: path(r, t, P, "command_key_file"),
        command_window_ms: command_window.unwrap_or(d.command_window_ms),
        open_commands: r.boolean(t, P, "open_commands").unwrap_or(d.open_commands),
    };
    let tls = matches!(mqtt.url, MqttUrl::Broker { tls: true, .. });
    for (key, set) in [
        ("ca_file", mqtt.ca_file.is_some()),
        ("cert_file", mqtt.cert_file.is_some()),
        ("key_file", mqtt.key_file.is_some()),
    ] {
        if set && !tls {
            r.problem(join(P, key), "needs url = \"mqtts://host:port\"");
        }
    }
    if tls && mqtt.ca_file.is_none() {
        r.problem("mqtt.ca_file", "required with an mqtts:// url");
    }
    if tls && mqtt.command_key_file.is_none() && !mqtt.open_commands {
        r.problem(
            "mqtt.command_key_file",
            "required with an mqtts:// url: without it anyone who can write the board's cmd \
             topic commands it (set open_commands = true to allow that on purpose)",
        );
    }
    if mqtt.cert_file.is_some() != mqtt.key_file.is_some() {
        let missing = if mqtt.cert_file.is_some() {
            "key_file"
        } else {
            "cert_file"
        };
        r.problem(
            join(P, missing),
            "cert_file and key_file go together: give both",
        );
    }
    if mqtt.password_file.is_some() && mqtt.username.is_none() {
        r.problem("mqtt.username", "required with password_file");
    }
    if mqtt.url == MqttUrl::Embedded && (mqtt.username.is_some() || mqtt.password_file.is_some()) {
        r.problem(
            "mqtt.username",
            "the embedded broker takes no login: set url to an external broker",
        );
    }
    mqtt
}

fn read_http(t: &Table, r: &mut Reader) -> HttpConfig {
    r.unknown_keys(t, "http", &["listen"]);
    HttpConfig {
        listen: addr(r, t, "http", "listen").unwrap_or(Config::default_for("x").http.listen),
    }
}

fn read_storage(t: &Table, r: &mut Reader) -> StorageConfig {
    r.unknown_keys(t, "storage", &["dir", "low_mb"]);
    StorageConfig {
        dir: path(r, t, "storage", "dir").unwrap_or(Config::default_for("x").storage.dir),
        low_mb: r
            .integer_in(t, "storage", "low_mb", 0, StorageConfig::MAX_LOW_MB as i64)
            .map_or(StorageConfig::DEFAULT_LOW_MB, |v| v as u64),
    }
}

/// `[display]`; `board_lang` is `display.lang`'s default.
fn read_display(t: &Table, board_lang: Lang, r: &mut Reader) -> DisplayConfig {
    const P: &str = "display";
    r.unknown_keys(
        t,
        P,
        &[
            "driver",
            "i2c_bus",
            "black_address",
            "white_address",
            "rotate_black",
            "rotate_white",
            "lang",
        ],
    );
    let d = Config::default_for("x").display;
    // 7-bit I2C addresses outside the reserved ranges (0x00-0x07, 0x78-0x7F).
    let mut address = |key: &str, default: u8| {
        r.integer_in(t, P, key, 0x08, 0x77)
            .map_or(default, |v| v as u8)
    };
    let black_address = address("black_address", d.black_address);
    let white_address = address("white_address", d.white_address);
    let driver = r
        .word(t, P, "driver", "ssd1306, none", DisplayDriver::parse)
        .unwrap_or(d.driver);
    if driver == DisplayDriver::Ssd1306 && black_address == white_address {
        r.problem(
            "display.white_address",
            format!("{white_address:#04x} is Black's display's address too"),
        );
    }
    DisplayConfig {
        driver,
        i2c_bus: r
            .integer_in(t, P, "i2c_bus", 0, 255)
            .map_or(d.i2c_bus, |v| v as u8),
        black_address,
        white_address,
        rotate_black: r.boolean(t, P, "rotate_black").unwrap_or(d.rotate_black),
        rotate_white: r.boolean(t, P, "rotate_white").unwrap_or(d.rotate_white),
        lang: r
            .word(t, P, "lang", "en|zh|zh-Hant|ja", |w| Lang::parse(w).ok())
            .unwrap_or(board_lang),
    }
}

fn read_voice(t: &Table, r: &mut Reader) -> VoiceConfig {
    const P: &str = "voice";
    r.unknown_keys(t, P, &["style", "lang", "dir", "volume"]);
    let d = Config::default_for("x").voice;
    let volume = match r.number(t, P, "volume") {
        Some(v) if (0.0..=1.0).contains(&v) => v,
        Some(v) => {
            r.problem("voice.volume", format!("{v} is not in 0.0..=1.0"));
            d.volume
        }
        None => d.volume,
    };
    let voices = tengen_table::clips::languages();
    let lang = match r.string(t, P, "lang") {
        Some(tag) => match Lang::parse(&tag).ok().filter(|l| voices.contains(l)) {
            Some(lang) => lang,
            None => {
                r.problem(
                    "voice.lang",
                    format!("{tag:?} is not one of {}", voices.map(Lang::tag).join(", ")),
                );
                d.lang
            }
        },
        None => d.lang,
    };
    VoiceConfig {
        style: r
            .word(
                t,
                P,
                "style",
                "voice, beep, off",
                tengen_table::VoiceStyle::parse,
            )
            .unwrap_or(d.style),
        lang,
        dir: path(r, t, P, "dir").unwrap_or(d.dir),
        volume,
    }
}

/// A non-empty path string.
fn path(r: &mut Reader, t: &Table, prefix: &str, key: &str) -> Option<PathBuf> {
    let text = r.string(t, prefix, key)?;
    if text.trim().is_empty() {
        r.problem(join(prefix, key), "must not be empty");
        return None;
    }
    Some(PathBuf::from(text))
}

/// `mqtt.arbiters`: a list of distinct, non-empty names.
fn arbiters(r: &mut Reader, t: &Table, prefix: &str) -> Vec<String> {
    let key = join(prefix, "arbiters");
    let Some(value) = t.get("arbiters") else {
        return Vec::new();
    };
    let Some(items) = value.as_array() else {
        r.problem(key, "must be a list of names, e.g. [\"chief\", \"deputy\"]");
        return Vec::new();
    };
    let mut names: Vec<String> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match item.as_str().map(str::trim) {
            Some(name) if !name.is_empty() && !names.iter().any(|n| n == name) => {
                names.push(name.to_string())
            }
            Some(name) if !name.is_empty() => {
                r.problem(format!("{key}[{i}]"), format!("{name:?} is listed twice"))
            }
            _ => r.problem(format!("{key}[{i}]"), "must be a non-empty name"),
        }
    }
    names
}

/// An `address:port` string.
fn addr(r: &mut Reader, t: &Table, prefix: &str, key: &str) -> Option<SocketAddr> {
    let text = r.string(t, prefix, key)?;
    match text.parse::<SocketAddr>() {
        Ok(a) => Some(a),
        Err(_) => {
            r.problem(
                join(prefix, key),
                format!("{text:?} is not an address:port like \"127.0.0.1:1883\""),
            );
            None
        }
    }
}

/// Parses `embedded`, `mqtt://host[:port]` or `mqtts://host[:port]`; the error completes
/// the sentence "\"url\" ...".
pub(crate) fn parse_mqtt_url(text: &str) -> Result<MqttUrl, &'static str> {
    if text == "embedded" {
        return Ok(MqttUrl::Embedded);
    }
    let (tls, rest) = if let Some(rest) = text.strip_prefix("mqtts://") {
        (true, rest)
    } else if let Some(rest) = text.strip_prefix("mqtt://") {
        (false, rest)
    } else {
        return Err("is not embedded, mqtt://host:port or mqtts://host:port");
    };
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    let default_port = if tls { 8883 } else { 1883 };
    let (host, port) = if let Some(v6) = rest.strip_prefix('[') {
        let (host, after) = v6.split_once(']').ok_or("has an unclosed '['")?;
        match after.strip_prefix(':') {
            Some(p) => (host, Some(p)),
            None if after.is_empty() => (host, None),
            None => return Err("has junk after the address"),
        }
    } else {
        match rest.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (rest, None),
        }
    };
    if host.is_empty()
        || !host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._:".contains(&b))
    {
        return Err("has no valid host");
    }
    let port = match port {
        None => default_port,
        Some(p) => p
            .parse::<u16>()
            .ok()
            .filter(|p| *p != 0)
            .ok_or("has no valid port")?,
    };
    Ok(MqttUrl::Broker {
        tls,
        host: host.to_string(),
        port,
    })
}
