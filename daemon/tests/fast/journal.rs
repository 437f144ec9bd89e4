//! The journal: seq across restarts, synced appends, torn tails cut off at every byte
//! offset, corruption detected and never misread.

use std::path::Path;

use proptest::prelude::*;
use tengen_daemon::journal::{Journal, JournalError, FILE_NAME};
use tengen_protocol::event::{GameSetup, PerColor};
use tengen_protocol::{gtp, Envelope, Event, Timestamp};
use tengen_rules::clock::TimeControl;
use tengen_rules::Color;

fn at(ms: u64) -> Timestamp {
    Timestamp::from_millis(ms)
}

fn game_started() -> Event {
    Event::GameStarted(GameSetup {
        time_control: TimeControl::parse("byoyomi 60m 5x60s").unwrap(),
        black: "Shusaku".into(),
        white: "Gennan".into(),
        round: "1".into(),
        table: "7".into(),
        ..GameSetup::default()
    })
}

fn a_move(n: u32) -> Event {
    Event::Move {
        number: n,
        color: if n % 2 == 1 {
            Color::Black
        } else {
            Color::White
        },
        point: gtp::parse(&format!("D{}", n % 19 + 1)).unwrap(),
        captured: if n % 5 == 0 {
            vec![gtp::parse("C3").unwrap()]
        } else {
            vec![]
        },
        clock: Some(PerColor {
            black: 3_600_000 - u64::from(n) * 1000,
            white: 3_600_000,
        }),
    }
}

/// A journal holding a game start and `moves` moves; returns the envelopes written.
fn write_game(dir: &Path, moves: u32) -> Vec<Envelope> {
    let (mut j, rec) = Journal::open(dir, "hall1-07").unwrap();
    assert!(rec.created);
    j.set_game("r3-t07");
    let mut out = vec![j.append(game_started(), at(1_000)).unwrap()];
    for n in 1..=moves {
        out.push(
            j.append(a_move(n), at(1_000 + u64::from(n) * 1_250))
                .unwrap(),
        );
    }
    out
}

fn file(dir: &Path) -> std::path::PathBuf {
    dir.join(FILE_NAME)
}

fn reopen(dir: &Path) -> Vec<Envelope> {
    let (j, _) = Journal::open(dir, "hall1-07").unwrap();
    j.read_from(1).unwrap()
}

#[test]
fn a_record_over_the_readers_limit_is_refused_on_append_and_the_journal_stays_readable() {
    // Before, the writer wrote records of any size and the reader refused those over 1 MiB:
    // one oversized event made the next start refuse the whole journal.
    let dir = tempfile::tempdir().unwrap();
    let written = write_game(dir.path(), 3);
    let (mut j, _) = Journal::open(dir.path(), "hall1-07").unwrap();
    let huge = Event::GameStarted(GameSetup {
        black: "B".repeat(2 << 20),
        ..GameSetup::default()
    });
    let err = j.append(huge, at(9_000)).unwrap_err();
    let JournalError::TooLarge { seq, len, max, .. } = &err else {
        panic!("{err}")
    };
    assert_eq!((*seq, *max), (5, 1 << 20));
    assert!(*len > 2 << 20, "{len}");
    let message = err.to_string();
    assert!(
        message.contains("event 5") && !message.contains('\n'),
        "{message}"
    );
    // Nothing was written: the writer goes on with the same seq, and a restart reads all.
    let next = j.append(a_move(4), at(9_500)).unwrap();
    assert_eq!(next.seq, 5);
    drop(j);
    let (j, recovery) = Journal::open(dir.path(), "hall1-07").unwrap();
    assert_eq!((recovery.records, recovery.truncated_bytes), (5, 0));
    let mut expected = written;
    expected.push(next);
    assert_eq!(j.read_from(1).unwrap(), expected);
}

#[test]
fn appends_number_and_stamp_events_and_seq_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let written = write_game(dir.path(), 3);
    assert_eq!(
        written.iter().map(|e| e.seq).collect::<Vec<_>>(),
        vec![1, 2, 3, 4]
    );
    assert_eq!(written[0].time.to_string(), "1970-01-01T00:00:01.000Z");
    assert_eq!(written[1].time.to_string(), "1970-01-01T00:00:02.250Z");
    assert!(written
        .iter()
        .all(|e| e.board == "hall1-07" && e.game == "r3-t07"));

    let (mut j, rec) = Journal::open(dir.path(), "hall1-07").unwrap();
    assert!(!rec.created);
    assert_eq!((rec.records, rec.last_seq, rec.truncated_at), (4, 4, None));
    assert_eq!(j.last_seq(), 4);
    assert_eq!(
        j.game(),
        "r3-t07",
        "the game id comes back from the journal"
    );
    assert_eq!(j.read_from(1).unwrap(), written);
    let next = j.append(a_move(4), at(99_000)).unwrap();
    assert_eq!(next.seq, 5);
    assert_eq!(j.read_from(4).unwrap(), vec![written[3].clone(), next]);
    assert!(j.read_from(6).unwrap().is_empty());
    assert_eq!(j.read_from(0).unwrap().len(), 5);
}

#[test]
fn each_record_is_the_published_json() {
    let dir = tempfile::tempdir().unwrap();
    let written = write_game(dir.path(), 1);
    let bytes = std::fs::read(file(dir.path())).unwrap();
    let json = serde_json::to_string(&written[1]).unwrap();
    assert!(
        bytes.windows(json.len()).any(|w| w == json.as_bytes()),
        "the move's JSON is stored verbatim"
    );
    assert!(json.starts_with(r#"{"seq":2,"time":"1970-01-01T00:00:02.250Z","board":"hall1-07","game":"r3-t07","type":"move""#));
}

#[test]
fn a_torn_last_record_is_cut_off_at_every_byte_offset() {
    let dir = tempfile::tempdir().unwrap();
    let written = write_game(dir.path(), 6);
    let full = std::fs::read(file(dir.path())).unwrap();
    let last_len = {
        let json = serde_json::to_vec(written.last().unwrap()).unwrap();
        json.len() + 8
    };
    let start = full.len() - last_len;
    for cut in start..full.len() {
        let scratch = tempfile::tempdir().unwrap();
        std::fs::write(file(scratch.path()), &full[..cut]).unwrap();
        let (mut j, rec) = Journal::open(scratch.path(), "hall1-07").unwrap();
        assert_eq!(rec.records, 6, "cut at {cut}");
        assert_eq!(rec.last_seq, 6);
        let torn = (cut - start) as u64;
        if torn == 0 {
            assert_eq!(rec.truncated_at, None);
        } else {
            assert_eq!(rec.truncated_at, Some(start as u64), "cut at {cut}");
            assert_eq!(rec.truncated_bytes, torn);
            assert!(rec.to_string().contains("torn tail"));
        }
        assert_eq!(j.read_from(1).unwrap(), written[..6]);
        assert_eq!(
            std::fs::metadata(file(scratch.path())).unwrap().len(),
            start as u64
        );
        // The journal goes on cleanly after the cut: seq 7 again, and it reads back.
        let again = j.append(a_move(99), at(5)).unwrap();
        assert_eq!(again.seq, 7);
        drop(j);
        let back = reopen(scratch.path());
        assert_eq!(back.len(), 7);
        assert_eq!(back[6], again);
    }
}

#[test]
fn zeros_left_by_the_file_system_after_a_power_cut_are_cut_off() {
    let dir = tempfile::tempdir().unwrap();
    let written = write_game(dir.path(), 2);
    let mut bytes = std::fs::read(file(dir.path())).unwrap();
    let clean = bytes.len() as u64;
    bytes.extend(std::iter::repeat_n(0u8, 4096));
    std::fs::write(file(dir.path()), &bytes).unwrap();
    let (j, rec) = Journal::open(dir.path(), "hall1-07").unwrap();
    assert_eq!(rec.truncated_at, Some(clean));
    assert_eq!(rec.truncated_bytes, 4096);
    assert_eq!(j.read_from(1).unwrap(), written);
}

#[test]
fn a_torn_header_is_rewritten_and_a_foreign_file_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(file(dir.path()), b"TGN").unwrap();
    let (mut j, rec) = Journal::open(dir.path(), "b").unwrap();
    assert!(rec.created);
    assert_eq!(j.append(a_move(1), at(0)).unwrap().seq, 1);

    let other = tempfile::tempdir().unwrap();
    std::fs::write(file(other.path()), b"{\"seq\":1}\n").unwrap();
    assert!(matches!(
        Journal::open(other.path(), "b"),
        Err(JournalError::NotAJournal { .. })
    ));
}

#[test]
fn damage_in_the_middle_is_corruption_not_a_torn_tail() {
    let dir = tempfile::tempdir().unwrap();
    write_game(dir.path(), 5);
    let mut bytes = std::fs::read(file(dir.path())).unwrap();
    let before = bytes.clone();
    bytes[40] ^= 0x20; // inside the first record's JSON
    std::fs::write(file(dir.path()), &bytes).unwrap();
    let err = Journal::open(dir.path(), "hall1-07").unwrap_err();
    assert!(
        matches!(err, JournalError::Corrupt { offset: 8, .. }),
        "{err}"
    );
    assert!(
        err.to_string().contains("corrupt record at byte 8"),
        "{err}"
    );
    // Nothing was cut off: an operator can still rescue the file.
    assert_eq!(std::fs::read(file(dir.path())).unwrap().len(), before.len());
}

#[test]
fn current_game_starts_at_the_last_game_started() {
    let dir = tempfile::tempdir().unwrap();
    write_game(dir.path(), 3);
    let (mut j, _) = Journal::open(dir.path(), "hall1-07").unwrap();
    assert_eq!(j.current_game().unwrap().len(), 4);
    j.set_game("r4-t07");
    let start = j.append(game_started(), at(10)).unwrap();
    let mv = j.append(a_move(1), at(11)).unwrap();
    assert_eq!(start.seq, 5);
    assert_eq!(start.game, "r4-t07");
    assert_eq!(j.current_game().unwrap(), vec![start.clone(), mv.clone()]);
    drop(j);
    let (j, _) = Journal::open(dir.path(), "hall1-07").unwrap();
    assert_eq!(j.current_game().unwrap(), vec![start, mv]);
}

#[test]
fn a_bounded_raw_read_returns_that_many_records_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let written = write_game(dir.path(), 5);
    let (j, _) = Journal::open(dir.path(), "hall1-07").unwrap();
    let reader = j.reader();
    let some = reader.read_raw(2, 3).unwrap();
    assert_eq!(
        some.iter().map(|(s, _)| *s).collect::<Vec<_>>(),
        vec![2, 3, 4]
    );
    for (seq, bytes) in &some {
        let json = serde_json::to_string(&written[*seq as usize - 1]).unwrap();
        assert_eq!(bytes.as_slice(), json.as_bytes());
    }
    assert_eq!(reader.read_raw(5, 100).unwrap().len(), written.len() - 4);
    assert!(reader.read_raw(1, 0).unwrap().is_empty());
    assert_eq!(
        reader.read_raw(1, usize::MAX).unwrap(),
        reader.read_raw_from(1).unwrap()
    );
}

#[test]
fn a_reader_in_another_thread_sees_every_synced_record() {
    let dir = tempfile::tempdir().unwrap();
    let (mut j, _) = Journal::open(dir.path(), "b").unwrap();
    j.set_game("g");
    let reader = j.reader();
    let follower = std::thread::spawn(move || {
        let mut seen = Vec::new();
        while seen.len() < 200 {
            let next = seen.len() as u64 + 1;
            for env in reader.read_from(next).unwrap() {
                seen.push(env.seq);
            }
        }
        seen
    });
    for n in 1..=200 {
        j.append(a_move(n), at(u64::from(n))).unwrap();
    }
    let seen = follower.join().unwrap();
    assert_eq!(seen, (1..=200).collect::<Vec<u64>>());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Any corruption of any byte is either cut off as a torn tail (leaving a prefix of
    /// what was written) or refused: the journal never returns an event that differs
    /// from what was appended.
    #[test]
    fn random_corruption_is_detected_never_misread(
        moves in 1u32..12,
        flips in proptest::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 1..4),
        cut in proptest::option::of(any::<prop::sample::Index>()),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let written = write_game(dir.path(), moves);
        let mut bytes = std::fs::read(file(dir.path())).unwrap();
        for (i, x) in &flips {
            let i = i.index(bytes.len());
            bytes[i] ^= x;
        }
        if let Some(c) = cut {
            bytes.truncate(c.index(bytes.len() + 1));
        }
        std::fs::write(file(dir.path()), &bytes).unwrap();
        match Journal::open(dir.path(), "hall1-07") {
            Ok((j, rec)) => {
                let back = j.read_from(1).unwrap();
                prop_assert!(back.len() <= written.len());
                prop_assert_eq!(&back[..], &written[..back.len()]);
                prop_assert_eq!(rec.records as usize, back.len());
            }
            Err(e) => {
                let refused = matches!(
                    e,
                    JournalError::Corrupt { .. } | JournalError::NotAJournal { .. }
                );
                prop_assert!(refused, "unexpected error: {}", e);
            }
        }
    }
}

/// Figures for BENCHMARKS.md (not a check): `cargo test -p tengen-daemon --release --test
/// journal -- --ignored --nocapture figures`.
#[test]
#[ignore]
fn figures() {
    let dir = tempfile::tempdir().unwrap();
    let (mut j, _) = Journal::open(dir.path(), "hall1-07").unwrap();
    j.set_game("r3-t07");
    j.append(game_started(), at(0)).unwrap();
    let mut lat = Vec::new();
    for n in 1..=3000 {
        let t = std::time::Instant::now();
        j.append(a_move(n), at(u64::from(n))).unwrap();
        lat.push(t.elapsed());
    }
    lat.sort();
    let size = std::fs::metadata(file(dir.path())).unwrap().len();
    drop(j);
    let t = std::time::Instant::now();
    let (j, rec) = Journal::open(dir.path(), "hall1-07").unwrap();
    let open = t.elapsed();
    let t = std::time::Instant::now();
    let game = j.current_game().unwrap();
    let read = t.elapsed();
    println!(
        "append+fdatasync: median {:?}, p99 {:?}, max {:?}; {} records, {} bytes; \
         open (recovery scan) {:?}; read current game ({} events) {:?}",
        lat[lat.len() / 2],
        lat[lat.len() * 99 / 100],
        lat[lat.len() - 1],
        rec.records,
        size,
        open,
        game.len(),
        read
    );
}
