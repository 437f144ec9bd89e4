//! The journal on a real full file system (a small tmpfs, see `support/small_fs.rs`): a
//! write that finds no space is taken back and the event is numbered and held in memory,
//! readers (the MQTT publisher) see nothing of it until it is written, in order, once there
//! is space again; beyond the memory bound events are dropped without a number, so no
//! `seq` is ever missing; the file reads back whole. Also a journal created on a full disk.

use crate::small_fs::SmallFs;

use tengen_daemon::journal::{Journal, JournalError, Recorded, HELD_MAX_BYTES};
use tengen_protocol::event::{ClockReading, GameSetup, PerColor};
use tengen_protocol::{Event, Timestamp};
use tengen_rules::Color;

fn at(ms: u64) -> Timestamp {
    Timestamp::from_millis(ms)
}

fn press(n: u64) -> Event {
    Event::Clock(ClockReading {
        color: Some(if n % 2 == 0 {
            Color::Black
        } else {
            Color::White
        }),
        black: 3_600_000 - n,
        white: 3_600_000 - 2 * n,
        periods: PerColor::new(5, 5),
        running: Some(Color::Black),
        paused: Some(false),
    })
}

fn seqs(j: &Journal) -> Vec<u64> {
    j.read_from(1).unwrap().iter().map(|e| e.seq).collect()
}

#[test]
fn a_full_disk_holds_events_in_order_and_writes_them_when_space_is_back() {
    let Some(mut fs) = SmallFs::mount(256 << 10) else {
        return;
    };
    let (mut j, _) = Journal::open(fs.path(), "b1").unwrap();
    j.set_game("g1");
    j.append(Event::GameStarted(GameSetup::default()), at(0))
        .unwrap();
    let reader = j.reader();
    fs.fill_up();

    // Recorded until the last page of the file is full, then held, in order.
    let mut held = Vec::new();
    for n in 1..=200 {
        match j.record(press(n), at(n)).unwrap() {
            Recorded::Written(e) => assert!(held.is_empty(), "written after one was held: {e:?}"),
            Recorded::Held(e) => held.push(e),
            Recorded::Dropped(e) => panic!("dropped under the bound: {e:?}"),
        }
    }
    assert!(!held.is_empty(), "the disk never filled");
    let first_held = held[0].seq;
    assert_eq!(
        held.iter().map(|e| e.seq).collect::<Vec<_>>(),
        (first_held..=201).collect::<Vec<_>>(),
        "numbered in order after the last one written"
    );
    assert_eq!(
        reader.last_seq(),
        first_held - 1,
        "readers see only what is written"
    );
    assert_eq!(j.next_seq(), 202);
    assert!(matches!(
        j.append(press(0), at(0)),
        Err(JournalError::Behind { .. })
    ));

    // Still full: nothing written, nothing lost, the file still whole.
    assert!(j.flush(usize::MAX).unwrap().is_empty());
    assert_eq!(j.held_events(), held.len());
    let (again, rec) = Journal::open(fs.path(), "b1").unwrap();
    assert_eq!(
        rec.truncated_bytes, 0,
        "no torn record left by a failed write"
    );
    assert_eq!(again.last_seq(), first_held - 1);
    drop(again);

    // Space again: written in order, in chunks, and then readers see them.
    fs.empty_fillers();
    let mut written = Vec::new();
    loop {
        let chunk = j.flush(1_000).unwrap();
        if chunk.is_empty() {
            break;
        }
        written.extend(chunk);
    }
    assert_eq!(written, held, "the same envelopes, in order");
    assert_eq!(j.held_events(), 0);
    assert_eq!(j.take_dropped(), None);
    assert_eq!(reader.last_seq(), 201);
    let next = j.append(press(202), at(202)).unwrap();
    assert_eq!(next.seq, 202);
    drop(j);
    let (j, rec) = Journal::open(fs.path(), "b1").unwrap();
    assert_eq!(rec.truncated_bytes, 0);
    assert_eq!(seqs(&j), (1..=202).collect::<Vec<_>>());
}

#[test]
fn beyond_the_memory_bound_events_are_dropped_without_a_number_and_counted() {
    // Room for everything held once the filler is gone.
    let Some(mut fs) = SmallFs::mount(HELD_MAX_BYTES as u64 + (4 << 20)) else {
        return;
    };
    let (mut j, _) = Journal::open(fs.path(), "b1").unwrap();
    j.append(Event::GameStarted(GameSetup::default()), at(0))
        .unwrap();
    fs.fill_up();
    let mut dropped = Vec::new();
    let mut n = 0;
    while dropped.len() < 3 {
        n += 1;
        match j.record(press(n), at(n)).unwrap() {
            Recorded::Dropped(e) => dropped.push(e),
            _ => assert!(dropped.is_empty(), "held again after a drop"),
        }
        assert!(j.held_bytes() <= HELD_MAX_BYTES);
    }
    assert!(
        dropped.iter().all(|e| e.seq == 0),
        "dropped events have no seq"
    );
    let last_held = j.next_seq() - 1;
    assert_eq!(j.dropped().map(|d| d.events), Some(3));
    assert_eq!(
        j.take_dropped(),
        None,
        "not before the held ones are written"
    );

    fs.empty_fillers();
    while !j.flush(4 << 20).unwrap().is_empty() {}
    let run = j.take_dropped().expect("the run, once written");
    assert_eq!(run.events, 3);
    assert_eq!(run.first, at(n - 2));
    assert_eq!(run.last, at(n));
    let Recorded::Written(next) = j.record(press(0), at(n + 1)).unwrap() else {
        panic!("space again: written")
    };
    assert_eq!(
        next.seq,
        last_held + 1,
        "numbered right after the last one held"
    );
    drop(j);
    let (j, _) = Journal::open(fs.path(), "b1").unwrap();
    assert_eq!(j.last_seq(), last_held + 1, "no seq missing");
}

#[test]
fn a_journal_created_on_a_full_disk_writes_its_header_with_the_first_record() {
    let Some(mut fs) = SmallFs::mount(64 << 10) else {
        return;
    };
    let dir = fs.path().join("board");
    std::fs::create_dir(&dir).unwrap();
    fs.fill_up();
    let (mut j, rec) = Journal::open(&dir, "b1").expect("opens on a full disk");
    assert!(rec.created);
    assert!(matches!(
        j.record(Event::GameStarted(GameSetup::default()), at(1)),
        Ok(Recorded::Held(e)) if e.seq == 1
    ));
    assert!(j.flush(usize::MAX).unwrap().is_empty());
    fs.empty_fillers();
    assert_eq!(j.flush(usize::MAX).unwrap().len(), 1);
    drop(j);
    let (j, rec) = Journal::open(&dir, "b1").unwrap();
    assert!(!rec.created);
    assert_eq!(seqs(&j), vec![1]);
}
