//! Board ids from table numbers, and the patterns refused with their messages.

use tengen_tournament::{BoardPattern, BoardPatternError};

#[test]
fn tables_become_board_ids() {
    let hall = BoardPattern::parse("hall1-{table:02}").expect("pattern");
    assert_eq!(hall.board(7), "hall1-07");
    assert_eq!(hall.board(12), "hall1-12");
    assert_eq!(hall.board(123), "hall1-123");
    let plain = BoardPattern::parse("{table}").expect("pattern");
    assert_eq!(plain.board(5), "5");
    let wide = BoardPattern::parse("b{table:04}-t{table}").expect("pattern");
    assert_eq!(wide.board(42), "b0042-t42");
    let default = BoardPattern::default();
    assert_eq!(default.as_str(), "table-{table}");
    assert_eq!(default.board(12), "table-12");
    assert_eq!(
        default,
        BoardPattern::parse("table-{table}").expect("pattern")
    );
    assert_eq!(
        "hall1-{table:02}".parse::<BoardPattern>().expect("parse"),
        hall
    );
    assert_eq!(hall.to_string(), "hall1-{table:02}");
}

#[test]
fn bad_patterns_are_refused() {
    let cases = [
        ("hall1", "board pattern \"hall1\": no {table} placeholder"),
        ("", "board pattern \"\": no {table} placeholder"),
        (
            "hall-{tab}",
            "board pattern \"hall-{tab}\": unknown placeholder \"{tab}\" (use {table} or {table:0N})",
        ),
        (
            "hall-{table:2}",
            "board pattern \"hall-{table:2}\": unknown placeholder \"{table:2}\" (use {table} or {table:0N})",
        ),
        (
            "hall-{table:010}",
            "board pattern \"hall-{table:010}\": unknown placeholder \"{table:010}\" (use {table} or {table:0N})",
        ),
        (
            "r{round}-{table}",
            "board pattern \"r{round}-{table}\": {round} cannot be in a board id (a board is the same in every round)",
        ),
        ("hall-{table", "board pattern \"hall-{table\": unbalanced '{' at byte 5"),
        ("hall-{{table}", "board pattern \"hall-{{table}\": unbalanced '{' at byte 5"),
        ("hall-table}", "board pattern \"hall-table}\": unbalanced '}' at byte 10"),
        ("{table}}", "board pattern \"{table}}\": unbalanced '}' at byte 7"),
        (
            "Hall-{table}",
            "board pattern \"Hall-{table}\": 'H' cannot be in a board id (a-z, 0-9 and -)",
        ),
        (
            "hall/{table}",
            "board pattern \"hall/{table}\": '/' cannot be in a board id (a-z, 0-9 and -)",
        ),
        (
            "salle-é{table}",
            "board pattern \"salle-é{table}\": 'é' cannot be in a board id (a-z, 0-9 and -)",
        ),
    ];
    for (pattern, message) in cases {
        let err: BoardPatternError = BoardPattern::parse(pattern).expect_err(pattern);
        assert_eq!(err.to_string(), message);
    }
}

#[test]
fn a_board_id_is_matched_back_to_its_table() {
    let hall = BoardPattern::parse("hall1-{table:02}").expect("pattern");
    assert_eq!(hall.table_of("hall1-07"), Some(7));
    assert_eq!(hall.table_of("hall1-123"), Some(123));
    for other in [
        "hall1-7",
        "hall1-00",
        "hall2-07",
        "hall1-07x",
        "hall1-",
        "viewer",
        "hall1-0007",
        "hall1-99999999999",
    ] {
        assert_eq!(hall.table_of(other), None, "{other}");
        assert!(!hall.matches(other), "{other}");
    }
    let default = BoardPattern::default();
    assert_eq!(default.table_of("table-12"), Some(12));
    assert_eq!(default.table_of("table-012"), None);
    let twice = BoardPattern::parse("b{table:04}-t{table}").expect("pattern");
    assert_eq!(twice.table_of("b0042-t42"), Some(42));
    assert_eq!(twice.table_of("b0042-t43"), None);
    let bare = BoardPattern::parse("{table}{table}").expect("pattern");
    assert_eq!(bare.table_of("1212"), Some(12));
    assert_eq!(bare.table_of("1213"), None);
    for t in 1..=300 {
        assert_eq!(hall.table_of(&hall.board(t)), Some(t));
    }
}
