use proptest::prelude::*;

use super::*;

const SIZE: u8 = 5;
const N: usize = 25;

fn header() -> FramesHeader {
    FramesHeader::new("hall1-01", "r1-t1", SIZE, 1_767_225_600_000)
}

/// A scan list: (ms, board, presses).
type Scans = Vec<(u64, Vec<Seen>, Vec<Color>)>;

/// Encodes `scans` as a file, taking records after each scan as the board does.
fn encode(scans: &Scans) -> Vec<u8> {
    let mut enc = FramesEncoder::new(header());
    let mut file = MAGIC.to_vec();
    for (ms, board, presses) in scans {
        enc.scan(*ms, board, presses);
        file.extend(enc.take(*ms));
    }
    file.extend(enc.finish());
    file
}

/// A pseudo-random game: stones come and go, some noise, some presses.
fn scans(seed: u64, count: usize, step: u64) -> Scans {
    let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
    let mut next = move || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) as usize
    };
    let mut board = vec![Seen::Empty; N];
    let mut out = Vec::new();
    for i in 0..count {
        let mut seen = board.clone();
        if next() % 7 == 0 {
            let p = next() % N;
            board[p] = Seen::from_code((next() % 3) as u8);
            seen[p] = board[p];
        }
        if next() % 5 == 0 {
            seen[next() % N] = Seen::Unknown;
        }
        let presses = match next() % 11 {
            0 => vec![Color::Black],
            1 => vec![Color::White],
            _ => vec![],
        };
        out.push((i as u64 * step, seen, presses));
    }
    out
}

fn text(board: &[Seen]) -> String {
    board_text(board, SIZE, "")
}

#[test]
fn every_scan_reads_back_as_it_was_seen() {
    let scans = scans(3, 20_000, 10);
    let record = FramesRecord::parse(&encode(&scans)).expect("parse");
    assert_eq!(record.header(), &header());
    assert_eq!(record.torn_bytes(), 0);
    for (ms, board, _) in scans.iter().step_by(97) {
        assert_eq!(record.board_at(*ms).as_deref(), Some(&board[..]), "at {ms}");
    }
    // Between two scans, the earlier one holds.
    assert_eq!(record.board_at(1005).as_deref(), Some(&scans[100].1[..]));
    let last_change = scans
        .windows(2)
        .filter(|w| w[0].1 != w[1].1 || !w[1].2.is_empty())
        .map(|w| w[1].0)
        .max();
    assert_eq!(record.span().map(|s| s.1), last_change);
}

#[test]
fn a_window_lists_each_changing_scan_and_its_presses() {
    let scans = scans(5, 3_000, 10);
    let record = FramesRecord::parse(&encode(&scans)).expect("parse");
    let lines = record.window(10_000, 12_000);
    assert_eq!(lines[0].ms, 10_000);
    assert_eq!(lines[0].board, text(&scans[1000].1));
    let mut expected = Vec::new();
    for w in scans.windows(2) {
        let ((_, before, _), (ms, after, presses)) = (&w[0], &w[1]);
        if *ms > 10_000 && *ms <= 12_000 && (before != after || !presses.is_empty()) {
            let names: Vec<&str> = presses
                .iter()
                .map(|c| if *c == Color::Black { "B" } else { "W" })
                .collect();
            expected.push((*ms, text(after), names));
        }
    }
    let got: Vec<(u64, String, Vec<&str>)> = lines[1..]
        .iter()
        .map(|l| (l.ms, l.board.clone(), l.presses.clone()))
        .collect();
    assert_eq!(got, expected);
    let json = serde_json::to_string(&lines[1]).expect("json");
    assert!(json.starts_with("{\"ms\":"), "{json}");
    assert!(json.contains("\"board\":\"") && json.contains("\"presses\":["));
}

#[test]
fn a_key_block_starts_every_minute() {
    let scans = scans(9, 40_000, 10);
    let file = encode(&scans);
    let record = FramesRecord::parse(&file).expect("parse");
    let keys = record.key_times();
    assert_eq!(keys.len(), 7, "{keys:?}");
    // A torn tail is left out, and everything before it still reads.
    let cut = &file[..file.len() - 3];
    let torn = FramesRecord::parse(cut).expect("parse torn");
    assert!(torn.torn_bytes() > 0);
    assert_eq!(torn.end() + torn.torn_bytes(), cut.len());
    assert_eq!(torn.board_at(300_000), record.board_at(300_000));
}

#[test]
fn a_damaged_block_is_skipped_and_the_next_key_restores_the_board() {
    let scans = scans(11, 30_000, 10);
    let mut file = encode(&scans);
    let whole = FramesRecord::parse(&file).expect("parse");
    // Damage a byte a third of the way in.
    let at = file.len() / 3;
    file[at] ^= 0x55;
    let record = FramesRecord::parse(&file).expect("parse damaged");
    assert_eq!(record.damaged().len(), 1);
    assert_eq!(record.torn_bytes(), 0);
    // After the next key block, the board is right again.
    assert_eq!(record.board_at(299_990), whole.board_at(299_990));
}

#[test]
fn a_restarted_session_appends_a_header_and_a_key() {
    let scans = scans(13, 2_000, 10);
    let mut file = encode(&scans[..1000].to_vec());
    // The board restarts: a new encoder on the same file, from the next scan.
    let mut enc = FramesEncoder::new(header());
    for (ms, board, presses) in &scans[1000..] {
        enc.scan(*ms, board, presses);
        file.extend(enc.take(*ms));
    }
    file.extend(enc.finish());
    let record = FramesRecord::parse(&file).expect("parse");
    for (ms, board, _) in scans.iter().step_by(37) {
        assert_eq!(record.board_at(*ms).as_deref(), Some(&board[..]), "at {ms}");
    }
}

#[test]
fn bad_files_are_refused_with_a_reason() {
    assert_eq!(
        FramesRecord::parse(b"hello").unwrap_err(),
        FramesError::NotFrames
    );
    assert_eq!(
        FramesRecord::parse(MAGIC).unwrap_err(),
        FramesError::NoHeader
    );
    let mut wrong = MAGIC.to_vec();
    wrong.extend(crate::framing::encode(b"H{\"format\":\"x\"}"));
    assert!(matches!(
        FramesRecord::parse(&wrong).unwrap_err(),
        FramesError::BadHeader { .. }
    ));
}

#[test]
fn an_excerpt_reads_as_the_window_it_was_cut_from() {
    let scans = scans(17, 6_000, 10);
    let record = FramesRecord::parse(&encode(&scans)).expect("parse");
    let bytes = record.excerpt(20_000, 30_000, Some("c-7"));
    let excerpt = FramesRecord::parse(&bytes).expect("parse excerpt");
    assert_eq!(excerpt.header().request.as_deref(), Some("c-7"));
    assert_eq!(
        excerpt.window(20_000, 30_000),
        record.window(20_000, 30_000)
    );
    // Excerpts one after another make one file (each a session of its own), line for line
    // the same as the whole, even where a window starts on a scan with changes.
    for cut in [20_000, 20_005, 33_330] {
        let mut joined = record.excerpt(0, cut - 1, None);
        joined.extend_from_slice(&record.excerpt(cut, 59_990, None)[MAGIC.len()..]);
        let joined = FramesRecord::parse(&joined).expect("parse joined");
        assert_eq!(
            joined.window(0, 60_000),
            record.window(0, 60_000),
            "cut at {cut}"
        );
        for ms in (0..60_000).step_by(1_230) {
            assert_eq!(joined.board_at(ms), record.board_at(ms), "at {ms}");
        }
    }
}

#[test]
fn a_window_read_alone_is_the_window_of_the_whole() {
    let scans = scans(23, 20_000, 10);
    let bytes = encode(&scans);
    let whole = FramesRecord::parse(&bytes).expect("parse");
    for (from, to) in [
        (0, 5_000),
        (61_234, 121_234),
        (59_990, 60_000),
        (150_000, 150_000),
        (190_000, 400_000),
    ] {
        let part = FramesRecord::parse_window(&bytes, from, to).expect("parse a window");
        assert_eq!(
            part.window(from, to),
            whole.window(from, to),
            "{from}..{to}"
        );
        assert_eq!(part.board_at(to), whole.board_at(to), "at {to}");
        assert!(part.changes() <= whole.changes());
    }
    // A minute's changes at most, beyond the window: not the game's.
    let part = FramesRecord::parse_window(&bytes, 120_000, 125_000).expect("parse");
    assert!(
        part.changes() * 2 < whole.changes(),
        "{} of {}",
        part.changes(),
        whole.changes()
    );
}

proptest! {
    #[test]
    fn any_bytes_are_read_or_refused_without_a_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let mut file = MAGIC.to_vec();
        file.extend(bytes);
        let _ = FramesRecord::parse(&file);
    }

    #[test]
    fn any_cut_of_a_file_reads_as_its_whole_records(seed in 0u64..1000, cut in 0usize..4000) {
        let file = encode(&scans(seed, 500, 10));
        let cut = cut.min(file.len());
        if let Ok(record) = FramesRecord::parse(&file[..cut]) {
            prop_assert_eq!(record.end() + record.torn_bytes(), cut);
        }
    }
}
