// The input functions of the fuzz targets: one per input tengen reads from outside.
//
// This file is the fuzz crate's `targets` module and is also compiled into
// `daemon/tests/fast/fuzz_inputs.rs` (with `#[path]`), so the CI short form runs exactly the
// code the AFL long run runs. It may only use crates both have: `tengen_rules`,
// `tengen_hal`, `tengen_sim`, `tengen_protocol`, `tengen_daemon`, `tengen_hall`, `serde_json`.
//
// Each function takes arbitrary bytes and returns what the reader made of them: accepted,
// or refused with its error message. It panics (which AFL records as a crash) when the
// reader panics, when an error message is not one non-empty line, or when a property that
// must hold for every accepted input does not (e.g. an SGF record written and read back is
// the same record).

use std::time::{Duration, Instant};

use tengen_daemon::config::Config;
use tengen_hal::serial::decoder::Decoder;
use tengen_hal::serial::protocol::{
    self, parse_body, parse_frame, RawFormat, CRC32, HEADER_LEN, MAGIC, VERSION,
};
use tengen_hal::serial::{Body, Received};
use tengen_hal::FrameData;
use tengen_hall::{HallConfig, HallState};
use tengen_protocol::command::{self, Answer};
use tengen_protocol::signing::SenderPolicy;
use tengen_rules::game::{Game, Superko};
use tengen_rules::sgf;
use tengen_rules::Color;
use tengen_sim::{Script, SimOptions, Simulation};

/// What a reader made of one input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The input was read.
    Accepted,
    /// The input was refused with this one-line message.
    Refused(String),
}

/// A target's input function.
pub type InputFn = fn(&[u8]) -> Verdict;

/// Every target: its name (the AFL binary, the corpus directory) and its input function.
pub const TARGETS: &[(&str, InputFn)] = &[
    ("sgf", sgf),
    ("serial", serial),
    ("script", script),
    ("config", config),
    ("command", command),
    ("command_checked", command_checked),
    ("hall", hall),
    ("hall_config", hall_config),
    ("console_command", console_command),
];

/// Checks that an error message is one non-empty line and turns it into a verdict.
pub fn refused(message: String) -> Verdict {
    assert!(
        !message.trim().is_empty(),
        "an error message is empty: {message:?}"
    );
    assert!(
        !message.contains('\n') && !message.contains('\r'),
        "an error message is not one line: {message:?}"
    );
    Verdict::Refused(message)
}

/// The SGF reader (`tengen replay`, `tengen score`, SGF game sources): reads the bytes; an
/// accepted record must be written and read back unchanged, and is replayed through the
/// rules core as `tengen replay` does (an illegal move is a refusal, not a crash).
pub fn sgf(data: &[u8]) -> Verdict {
    let rec = match sgf::parse_bytes(data) {
        Ok(rec) => rec,
        Err(e) => return refused(e.to_string()),
    };
    let written = sgf::write(&rec);
    // The writer puts `RU[Chinese]` when the record names no rules (documented).
    let mut expected = rec.clone();
    expected.rules.get_or_insert_with(|| "Chinese".to_string());
    match sgf::parse(&written) {
        Ok(again) => assert_eq!(
            again, expected,
            "SGF written and read back differs:\n{written}"
        ),
        Err(e) => panic!("SGF written by tengen does not read back: {e}\n{written}"),
    }
    replay(&rec)
}

/// Plays a record's main line through the rules core (the setup `tengen replay` uses).
fn replay(rec: &sgf::GameRecord) -> Verdict {
    let first = rec.moves.first().map(|m| m.color);
    let setup = !rec.black_setup.is_empty() || !rec.white_setup.is_empty();
    let game = if !setup && rec.handicap >= 2 && first == Some(Color::White) {
        Game::with_handicap(rec.size, rec.handicap, Superko::Situational)
    } else {
        let to_move = first.unwrap_or(Color::Black);
        Game::with_setup(
            rec.size,
            &rec.black_setup,
            &rec.white_setup,
            to_move,
            Superko::Situational,
        )
    };
    let mut game = match game {
        Ok(game) => game,
        Err(e) => return refused(format!("setup: {e}")),
    };
    for (i, m) in rec.moves.iter().enumerate() {
        if let Err(why) = game.play_as(m.color, m.mv) {
            return refused(format!("move {} is illegal: {}", i + 1, why.as_str()));
        }
    }
    Verdict::Accepted
}

/// The serial frame decoder (the `serial` backend's input from the microcontroller).
///
/// The bytes go to a [`Decoder`] in chunks whose sizes come from the input itself; every
/// message it hands out must encode back to a frame that parses to the same message, and
/// its counters must add up. Random bytes rarely carry a valid CRC, so the input is also
/// read as one frame's type, sequence, time and payload, sealed with a correct header and
/// CRC and fed to a fresh decoder: that reaches the payload parsers.
pub fn serial(data: &[u8]) -> Verdict {
    // 1. The raw byte stream, chunked.
    let mut decoder = Decoder::new();
    let mut out: Vec<Received> = Vec::new();
    let mut rest = data;
    let mut step = 1usize;
    while !rest.is_empty() {
        let n = (step % rest.len()).max(1).min(rest.len());
        let (chunk, tail) = rest.split_at(n);
        decoder.feed(chunk, &mut out);
        step = step.wrapping_mul(31).wrapping_add(chunk[0] as usize) % 4096 + 1;
        rest = tail;
    }
    let stats = *decoder.stats();
    assert_eq!(stats.bytes, data.len() as u64, "bytes fed are not counted");
    assert_eq!(
        stats.messages,
        out.len() as u64,
        "messages out are not counted"
    );
    for r in &out {
        check_reencodes(&r.message.body);
    }
    let stream_error = decoder.last_error().map(|e| refused(e.to_string()));

    // 2. The payload parsers directly.
    if let Some((&kind, payload)) = data.split_first() {
        match parse_body(kind, payload) {
            Ok(body) => check_reencodes(&body),
            Err(e) => {
                let _ = refused(e.to_string());
            }
        }
    }

    // 3. One sealed frame: kind, seq (2), time (4), then the payload.
    if data.len() >= 7 {
        let (head, payload) = data.split_at(7);
        let mut frame = Vec::with_capacity(HEADER_LEN + payload.len() + 4);
        frame.extend_from_slice(&MAGIC);
        frame.push(VERSION);
        frame.push(head[0]);
        frame.extend_from_slice(&head[1..7]);
        let len = u16::try_from(payload.len()).unwrap_or(u16::MAX);
        frame.extend_from_slice(&len.to_le_bytes());
        frame.extend_from_slice(payload);
        let crc = CRC32.checksum(&frame);
        frame.extend_from_slice(&crc.to_le_bytes());
        let direct = parse_frame(&frame);
        let mut wire = vec![0u8];
        cobs_encode(&frame, &mut wire);
        wire.push(0);
        let mut fresh = Decoder::new();
        let mut got = Vec::new();
        fresh.feed(&wire, &mut got);
        match direct {
            Ok(message) => {
                assert_eq!(
                    got.len(),
                    1,
                    "a valid frame was not decoded from the stream"
                );
                assert_eq!(got[0].message.body, message.body);
                assert_eq!(got[0].message.seq, message.seq);
                return Verdict::Accepted;
            }
            Err(e) => {
                assert!(
                    got.is_empty(),
                    "a frame parse_frame refuses came out of the stream"
                );
                if out.is_empty() {
                    return refused(e.to_string());
                }
            }
        }
    }
    match stream_error {
        _ if !out.is_empty() => Verdict::Accepted,
        Some(e) => e,
        None => refused("no message in the bytes".to_string()),
    }
}

/// COBS-encodes `frame` onto `out` (no delimiters). Written out here so that this file
/// needs no crate the daemon's tests do not have.
fn cobs_encode(frame: &[u8], out: &mut Vec<u8>) {
    let mut code_at = out.len();
    out.push(0);
    let mut code = 1u8;
    for &b in frame {
        if b == 0 {
            out[code_at] = code;
            code_at = out.len();
            out.push(0);
            code = 1;
        } else {
            out.push(b);
            code += 1;
            if code == 0xFF {
                out[code_at] = code;
                code_at = out.len();
                out.push(0);
                code = 1;
            }
        }
    }
    out[code_at] = code;
}

/// A decoded body must encode again (in the form it came in) and parse back the same.
fn check_reencodes(body: &Body) {
    let raw = match body {
        Body::Scan(FrameData::Raw(readings)) if readings.iter().all(|&r| r < 4096) => {
            RawFormat::Packed12
        }
        _ => RawFormat::U16,
    };
    let message = protocol::Message {
        seq: 7,
        time: 1234,
        body: body.clone(),
    };
    match protocol::frame_bytes(&message, raw) {
        Ok(frame) => match parse_frame(&frame) {
            Ok(back) => assert_eq!(back, message, "a decoded message does not re-encode"),
            Err(e) => panic!("a re-encoded message does not parse: {e}"),
        },
        Err(e) => panic!("a decoded message cannot be encoded again: {e}"),
    }
}

/// The simulator script parser (`tengen sim`, the `sim` backend's `script` source): parses
/// the text; an accepted script is turned into a simulation (as `tengen sim` does), a few
/// scans are taken and its timeline is applied to the end.
pub fn script(data: &[u8]) -> Verdict {
    let Ok(text) = std::str::from_utf8(data) else {
        return refused("not UTF-8".to_string());
    };
    let parsed = match Script::parse(text) {
        Ok(s) => s,
        Err(e) => return refused(e.to_string()),
    };
    let mut sim = match Simulation::from_parsed(&parsed, &SimOptions::seeded(1)) {
        Ok(sim) => sim,
        Err(e) => return refused(e.to_string()),
    };
    for _ in 0..20 {
        if sim.next_scan().is_none() {
            break;
        }
    }
    let end = sim.end_time();
    sim.advance_to(end);
    Verdict::Accepted
}

/// The config loader (`tengen run --config`, `tengen check-config`): parses and validates
/// the text; an accepted config must answer the questions the service asks of it.
pub fn config(data: &[u8]) -> Verdict {
    let Ok(text) = std::str::from_utf8(data) else {
        return refused("not UTF-8".to_string());
    };
    match Config::from_toml_str(text, "fuzz.toml") {
        Ok(config) => {
            let _ = config.time_control().to_string();
            let _ = config.topic_root();
            Verdict::Accepted
        }
        Err(e) => {
            for line in e.lines() {
                let _ = refused(line);
            }
            refused(e.to_string())
        }
    }
}

/// The MQTT command decoder (the board's `cmd` topic): decodes the payload; an accepted
/// command must serialise and decode back the same.
pub fn command(data: &[u8]) -> Verdict {
    match command::decode(data) {
        Ok(cmd) => {
            let json = match serde_json::to_vec(&cmd) {
                Ok(json) => json,
                Err(e) => panic!("a decoded command does not serialise: {e}"),
            };
            match command::decode(&json) {
                Ok(again) => assert!(
                    same_command(&again, &cmd),
                    "a command serialised and decoded again differs: {again:?} vs {cmd:?}"
                ),
                Err(e) => panic!("a serialised command does not decode: {e}"),
            }
            Verdict::Accepted
        }
        Err(e) => refused(e.to_string()),
    }
}

/// The board's command path (`mqtt/publisher_state.rs` calls exactly this): the checked
/// decode with the sender policy of a board open to anyone. An accepted command must have
/// every field within its limits and decode again the same; a refusal must be one line
/// (the reply's error and the board's log line), and the id it echoes a valid one.
pub fn command_checked(data: &[u8]) -> Verdict {
    let open = SenderPolicy::default();
    match command::decode_checked(data, &open) {
        Ok(checked) => {
            let cmd = checked.command;
            if let Err(e) = command::check_fields(&cmd) {
                panic!("an accepted command has a field out of its limits: {e}");
            }
            let json = match serde_json::to_vec(&cmd) {
                Ok(json) => json,
                Err(e) => panic!("a decoded command does not serialise: {e}"),
            };
            assert!(
                json.len() <= command::MAX_PAYLOAD * 2,
                "{} bytes",
                json.len()
            );
            match command::decode_checked(&json, &open) {
                Ok(again) => assert!(
                    same_command(&again.command, &cmd),
                    "a command serialised and decoded again differs: {again:?} vs {cmd:?}"
                ),
                Err(r) => panic!("a serialised command does not decode: {}", r.error),
            }
            Verdict::Accepted
        }
        Err(rejected) => {
            if let Some(id) = &rejected.id {
                assert!(
                    !id.is_empty()
                        && id.len() <= command::MAX_ID
                        && !id.chars().any(char::is_control),
                    "a refusal echoes an id that is not one: {id:?}"
                );
            }
            let Answer::Refused(reply) = Answer::refused(&rejected.error) else {
                unreachable!("a refusal")
            };
            let _ = refused(reply);
            // The board logs the error itself.
            refused(rejected.error.to_string())
        }
    }
}

/// The hall's config reader (`tengen hall --config`, `hall/src/config.rs`): parses and
/// validates the text; every problem is reported on a line of its own.
pub fn hall_config(data: &[u8]) -> Verdict {
    let Ok(text) = std::str::from_utf8(data) else {
        return refused("not UTF-8".to_string());
    };
    match HallConfig::parse(text, std::path::Path::new("fuzz-hall.toml")) {
        Ok(_) => Verdict::Accepted,
        Err(e) => {
            for line in e.lines() {
                let _ = refused(line);
            }
            refused(e.to_string())
        }
    }
}

/// The console's command POST (`/api/console/command` in the hall): the body as axum's
/// `Json` reads it (a JSON object), then [`HallState::console_command`] as the route calls
/// it, for a hall that knows board `open-2026/hall1-07`. What the hall sends must be a
/// command the board takes, with the hall's id and the arbiter as `by`.
pub fn console_command(data: &[u8]) -> Verdict {
    let Ok(body) = serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(data)
    else {
        return refused("the body is not a JSON object".to_string());
    };
    let now = Instant::now();
    let mut state = HallState::new("tengen", Some("fuzz-hall".to_string()));
    let _ = state.on_message(
        "tengen/open-2026/hall1-07/status",
        br#"{"state":"online","version":"0.1.0"}"#,
        now,
    );
    assert_eq!(state.board_count(), 1, "the hall knows the board");
    match state.console_command("chief", body, now) {
        Ok((key, id, out)) => {
            assert_eq!(
                (key.tournament.as_str(), key.board.as_str()),
                ("open-2026", "hall1-07")
            );
            assert_eq!(out.topic, "tengen/open-2026/hall1-07/cmd");
            match command::decode_checked(&out.payload, &SenderPolicy::default()) {
                Ok(checked) => {
                    assert_eq!(checked.command.id, id);
                    assert_eq!(checked.command.by.as_deref(), Some("chief"));
                }
                Err(r) => panic!("the hall sent a command the board refuses: {}", r.error),
            }
            Verdict::Accepted
        }
        Err(e) => refused(e.to_string()),
    }
}

/// Equality of commands, with float fields compared by their JSON text (JSON numbers do
/// not always round-trip bit for bit).
fn same_command(a: &command::CommandEnvelope, b: &command::CommandEnvelope) -> bool {
    serde_json::to_value(a).ok() == serde_json::to_value(b).ok()
}

/// The hall's MQTT intake (`tengen hall`): the input is a sequence of messages separated by
/// `0x00`, each a topic, a newline and the payload. They go to one [`HallState`] as if from
/// the broker, with time passing, and the hall's pages are built from what it holds.
pub fn hall(data: &[u8]) -> Verdict {
    let start = Instant::now();
    let mut state = HallState::new("tengen", Some("fuzz-hall".to_string()));
    let mut outgoing = 0usize;
    for (i, message) in data.split(|&b| b == 0).enumerate() {
        let (topic, payload) = match message.iter().position(|&b| b == b'\n') {
            Some(at) => (&message[..at], &message[at + 1..]),
            None => (message, &[][..]),
        };
        let topic = String::from_utf8_lossy(topic);
        let now = start + Duration::from_millis(250 * i as u64);
        outgoing += state.on_message(&topic, payload, now).len();
        state.tick(now);
    }
    let later = start + Duration::from_secs(3600);
    state.tick(later);
    let _ = state.boards_json(later);
    let _ = state.alerts_json();
    let _ = state.commands_json(later);
    if state.board_count() == 0 && outgoing == 0 {
        refused("no board message".to_string())
    } else {
        Verdict::Accepted
    }
}
