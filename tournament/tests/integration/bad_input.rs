//! Bad input: the exact one-line errors for files that are not XML, not OpenGotha, or
//! hold an unknown player or a bad attribute; and no panic on any input: every prefix of
//! the real files, and random mutations of them (proptest), through reading, pairing,
//! the exports and the write-back.

use crate::support;

use proptest::prelude::*;
use support::{sample, SAMPLES};
use tengen_tournament::{aga_results, csv_results, GameResult, Tournament, TournamentError};

fn error(text: &str) -> String {
    let err = Tournament::parse(text).expect_err("an error");
    let message = err.to_string();
    assert!(!message.contains('\n'), "one line: {message}");
    message
}

#[test]
fn not_xml() {
    assert_eq!(error(""), "not XML: no root element (line 1)");
    assert_eq!(
        error("hello world"),
        "not XML: text outside the root element (line 1)"
    );
    assert_eq!(
        error("{\"round\": 1}"),
        "not XML: text outside the root element (line 1)"
    );
    assert_eq!(
        error("<Tournament/>\n<Tournament/>"),
        "not XML: a second root element <Tournament> (line 2)"
    );
    assert_eq!(
        error("<Tournament>\n<Players>\n"),
        "not XML: the text ends inside <Players> (truncated?) (line 3)"
    );
    assert_eq!(
        error("<Tournament><Players></Games></Tournament>"),
        "not XML: ill-formed document: expected `</Players>`, but `</Games>` was found (line 1)"
    );
    let juvisy = sample("juvisy.xml");
    assert_eq!(
        error(&juvisy[..3000]),
        "not XML: syntax error: tag not closed: `>` not found before end of input (line 13)"
    );
    assert_eq!(
        error(&juvisy.replace(
            "<Game blackPlayer=\"DAGUENETMATHIEU\"",
            "<Game blackPlayer=\"X\" blackPlayer=\"DAGUENETMATHIEU\""
        )),
        "not XML: <Game>: position 21: duplicated attribute, previous declaration at position 5 (line 25)"
    );
    assert_eq!(
        error(&juvisy.replace("name=\"Nemo\"", "name=\"Ne&foo;mo\"")),
        "not XML: <Player>: at 3..6: unrecognized entity `foo` (line 10)"
    );
    // A BOM and a doctype are fine.
    let with_bom = format!("\u{feff}{}", sample("tournoi-chinois.xml"));
    assert!(Tournament::parse(&with_bom).is_ok());
}

#[test]
fn not_a_file_of_bytes_in_utf8() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("latin1.xml");
    std::fs::write(
        &path,
        b"<Tournament>\n<Players>\n<Player name=\"Andr\xe9\"/>",
    )
    .expect("write");
    let err = Tournament::read(&path).expect_err("latin-1");
    assert_eq!(err.to_string(), "not XML: not UTF-8 at byte 41 (line 3)");
    let err = Tournament::read(dir.path().join("none.xml")).expect_err("missing");
    assert!(matches!(err, TournamentError::Io { .. }));
    assert!(
        err.to_string()
            .ends_with("none.xml: No such file or directory (os error 2)"),
        "{err}"
    );
}

#[test]
fn not_opengotha() {
    assert_eq!(
        error("<html><body/></html>"),
        "not an OpenGotha tournament: the root element is <html>, not <Tournament>"
    );
    assert_eq!(
        error("<Tournament><Players/></Tournament>"),
        "not an OpenGotha tournament: no TournamentParameterSet/GeneralParameterSet element"
    );
}

#[test]
fn unknown_players() {
    let juvisy = sample("juvisy.xml");
    assert_eq!(
        error(&juvisy.replace("blackPlayer=\"DAGUENETMATHIEU\"", "blackPlayer=\"FOOBAR\"")),
        "Game round 1 table 1: unknown black player \"FOOBAR\""
    );
    // A key must match exactly: OpenGotha's keys are upper-case.
    assert_eq!(
        error(&juvisy.replace(
            "whitePlayer=\"MINIERIDAVIDE\"",
            "whitePlayer=\"MinieriDavide\""
        )),
        "Game round 1 table 1: unknown white player \"MinieriDavide\""
    );
    let chinese = sample("tournoi-chinois.xml");
    assert_eq!(
        error(&chinese.replace("blackPlayer=\"马超\"", "blackPlayer=\"马 超\"")),
        "Game round 1 table 1: unknown black player \"马 超\""
    );
    let bye = chinese.replace(
        "</Games>",
        "</Games>\n<ByePlayers>\n<ByePlayer player=\"NOBODY\" roundNumber=\"2\"/>\n</ByePlayers>",
    );
    assert_eq!(error(&bye), "ByePlayer round 2: unknown player \"NOBODY\"");
}

#[test]
fn control_characters_in_names_are_refused_when_the_file_is_read() {
    let juvisy = sample("juvisy.xml");
    // `&#27;[2J` clears the terminal of whoever prints the name; OpenGotha writes it so.
    let esc = juvisy.replace("name=\"Vargas\"", "name=\"Vargas&#27;[2J\"");
    assert_eq!(
        error(&esc),
        "Player \"Vargas\\u{1b}[2J Olga\" at line 5: name holds the control character \
         U+001B; retype it in OpenGotha"
    );
    // A C1 character written as itself (U+009B, the one-byte CSI).
    let c1 = juvisy.replace("firstName=\"Olga\"", "firstName=\"Ol\u{9b}2Jga\"");
    let message = error(&c1);
    assert_eq!(
        message,
        "Player \"Vargas Ol\\u{9b}2Jga\" at line 5: firstName holds the control character \
         U+009B; retype it in OpenGotha"
    );
    assert!(!message.chars().any(char::is_control), "{message:?}");
    // The tournament's own name is printed too.
    let named = juvisy.replace("name=\"Tournoi de Juvisy\"", "name=\"Juvisy&#7;\"");
    assert_eq!(
        error(&named),
        "GeneralParameterSet at line 437: name holds the control character U+0007; retype \
         it in OpenGotha"
    );
    // Accents and CJK are text like any other.
    assert!(Tournament::parse(&juvisy.replace("club=\"95Va\"", "club=\"Vàrgas 高\"")).is_ok());
}

#[test]
fn bad_attributes() {
    let juvisy = sample("juvisy.xml");
    let cases = [
        (
            juvisy.replace("handicap=\"9\"", "handicap=\"x\""),
            "Game round 4 table 9: invalid handicap \"x\" (expected 0 to 9 handicap stones)",
        ),
        (
            juvisy.replace("handicap=\"9\"", "handicap=\"10\""),
            "Game round 4 table 9: invalid handicap \"10\" (expected 0 to 9 handicap stones)",
        ),
        (
            juvisy.replace(
                "roundNumber=\"4\" tableNumber=\"9\"",
                "roundNumber=\"-4\" tableNumber=\"9\"",
            ),
            "Game at line 26: invalid roundNumber \"-4\" (expected a round number from 1)",
        ),
        (
            juvisy.replace("roundNumber=\"4\" tableNumber=\"9\"", "roundNumber=\"4\" tableNumber=\"0\""),
            "Game at line 26: invalid tableNumber \"0\" (expected a table number from 1)",
        ),
        (
            juvisy.replace("roundNumber=\"4\" tableNumber=\"9\"", "tableNumber=\"9\""),
            "Game at line 26: missing attribute roundNumber",
        ),
        (
            juvisy.replace(" whitePlayer=\"RAVERASYLVAIN\"/>", "/>"),
            "Game round 4 table 9: missing attribute whitePlayer",
        ),
        (
            juvisy.replace(
                "result=\"RESULT_WHITEWINS\" roundNumber=\"4\"",
                "result=\"WHITE\" roundNumber=\"4\"",
            ),
            "Game round 4 table 9: invalid result \"WHITE\" (expected an OpenGotha result such as RESULT_BLACKWINS)",
        ),
        (
            juvisy.replace(
                "knownColor=\"true\" result=\"RESULT_WHITEWINS\" roundNumber=\"4\"",
                "knownColor=\"yes\" result=\"RESULT_WHITEWINS\" roundNumber=\"4\"",
            ),
            "Game round 4 table 9: invalid knownColor \"yes\" (expected true or false)",
        ),
        (
            juvisy.replace("komi=\"7.5\"", "komi=\"seven\""),
            "GeneralParameterSet at line 437: invalid komi \"seven\" (expected a number of points such as 7.5)",
        ),
        (
            juvisy.replace("STDBYOYOMI", "HOURGLASS"),
            "GeneralParameterSet at line 437: invalid complementaryTimeSystem \"HOURGLASS\" (expected SUDDENDEATH, STDBYOYOMI, CANBYOYOMI or FISCHER)",
        ),
        (
            juvisy.replace("stdByoYomiTime=\"30\"", "stdByoYomiTime=\"0\""),
            "GeneralParameterSet at line 437: invalid stdByoYomiTime \"0\" (expected whole seconds from 1)",
        ),
        (
            juvisy.replace("basicTime=\"60\"", "basicTime=\"1h\""),
            "GeneralParameterSet at line 437: invalid basicTime \"1h\" (expected whole minutes)",
        ),
        (
            juvisy.replace("name=\"Nemo\"", ""),
            "Player at line 10: missing attribute name",
        ),
    ];
    for (text, message) in cases {
        assert_eq!(error(&text), message);
    }
}

#[test]
fn inconsistent_games() {
    let juvisy = sample("juvisy.xml");
    assert_eq!(
        error(&juvisy.replace(
            "roundNumber=\"1\" tableNumber=\"2\"",
            "roundNumber=\"1\" tableNumber=\"1\""
        )),
        "Game round 1 table 1: a second game at the same table"
    );
    assert_eq!(
        error(&juvisy.replace(
            "whitePlayer=\"MINIERIDAVIDE\"",
            "whitePlayer=\"DAGUENETMATHIEU\""
        )),
        "Game round 1 table 1: black and white are the same player \"DAGUENETMATHIEU\""
    );
    assert_eq!(
        error(&juvisy.replace(
            "roundNumber=\"1\" tableNumber=\"2\" whitePlayer=\"NEMOANDRÉ\"",
            "roundNumber=\"1\" tableNumber=\"2\" whitePlayer=\"MINIERIDAVIDE\""
        )),
        "Game round 1 table 2: player \"MINIERIDAVIDE\" already plays at table 1"
    );
    let twice = juvisy.replace(
        "<Player agaExpirationDate=\"\" agaId=\"\" club=\"95Va\"",
        "<Player name=\"Rebelo\" firstName=\"Manuela\"/>\n<Player agaExpirationDate=\"\" agaId=\"\" club=\"95Va\"",
    );
    assert_eq!(
        error(&twice),
        "Player at line 5: key \"REBELOMANUELA\" is already the key of another player"
    );
}

/// Everything a reader of the crate may call on a tournament read from `text`.
fn exercise(text: &str) {
    let Ok(t) = Tournament::parse(text) else {
        return;
    };
    let mut rounds = t.rounds();
    rounds.push(0);
    rounds.push(t.number_of_rounds() + 1);
    for r in rounds {
        let pairings = t.round(r);
        let _ = t.byes(r);
        let _ = aga_results(&t, r);
        let _ = csv_results(&t, r);
        let results: Vec<(u32, GameResult)> = pairings
            .iter()
            .map(|p| (p.table, GameResult::BothLoseByDefault))
            .collect();
        let written = Tournament::with_results(text, r, &results).expect("write back a read file");
        let again = Tournament::parse(&written).expect("re-read a written file");
        assert!(again
            .round(r)
            .iter()
            .all(|p| p.result == GameResult::BothLoseByDefault));
    }
    let _ = t.time_system().script();
}

#[test]
fn every_prefix_of_a_real_file_is_an_error_or_the_whole_file() {
    for name in SAMPLES {
        let text = sample(name);
        let end = text.rfind("</Tournament>").expect("root end") + "</Tournament>".len();
        let step = if name == "tournoi-chinois.xml" { 1 } else { 13 };
        let mut checked = 0;
        for (i, _) in text.char_indices().step_by(step) {
            let prefix = &text[..i];
            let result = Tournament::parse(prefix);
            assert_eq!(result.is_ok(), i >= end, "{name}: prefix of {i} bytes");
            if let Err(e) = result {
                assert!(!e.to_string().contains('\n'));
            }
            checked += 1;
        }
        exercise(&text);
        assert!(checked > 1000, "{name}");
    }
}

/// One edit of a file: cut a range, insert a fragment, or repeat a range.
#[derive(Debug, Clone)]
enum Edit {
    Cut(usize, usize),
    Insert(usize, String),
    Repeat(usize, usize),
}

fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("<".to_string()),
        Just(">".to_string()),
        Just("\"".to_string()),
        Just("&".to_string()),
        Just("&amp;".to_string()),
        Just("/>".to_string()),
        Just("</Game>".to_string()),
        Just("<Game roundNumber=\"1\" tableNumber=\"99\" blackPlayer=\"马超\" whitePlayer=\"卢遥\"/>".to_string()),
        Just("result=\"RESULT_BLACKWINS\" ".to_string()),
        Just("<!-- x -->".to_string()),
        Just("<![CDATA[x]]>".to_string()),
        Just("\u{feff}".to_string()),
        "[a-zA-Z0-9 =\"<>/&;é高]{0,12}",
    ]
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), 0usize..200).prop_map(|(a, n)| Edit::Cut(a, n)),
        (any::<usize>(), fragment()).prop_map(|(a, s)| Edit::Insert(a, s)),
        (any::<usize>(), 0usize..300).prop_map(|(a, n)| Edit::Repeat(a, n)),
    ]
}

/// The nearest character boundary at or below `at % (len + 1)`.
fn boundary(text: &str, at: usize) -> usize {
    let mut i = at % (text.len() + 1);
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut text = text.to_string();
    for e in edits {
        match e {
            Edit::Cut(at, n) => {
                let a = boundary(&text, *at);
                let b = boundary(&text, (a + n).min(text.len()));
                text.replace_range(a..b.max(a), "");
            }
            Edit::Insert(at, s) => {
                let a = boundary(&text, *at);
                text.insert_str(a, s);
            }
            Edit::Repeat(at, n) => {
                let a = boundary(&text, *at);
                let b = boundary(&text, (a + n).min(text.len())).max(a);
                let piece = text[a..b].to_string();
                text.insert_str(b, &piece);
            }
        }
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn mutated_files_never_panic(file in 0usize..3, edits in prop::collection::vec(edit(), 1..6)) {
        let text = apply(&sample(SAMPLES[file]), &edits);
        exercise(&text);
    }
}
