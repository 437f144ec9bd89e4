//! A generated OpenGotha file of any size, for the scale test and the bench: names with
//! accents, CJK, spaces and characters that XML escapes, every result, handicaps, byes.

#![allow(dead_code, unreachable_pub)]

use std::fmt::Write as _;

/// A small deterministic generator (SplitMix64): the same file every time.
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const FAMILY: [&str; 8] = [
    "Vannier",
    "Müller",
    "高",
    "O&apos;Neil",
    "Van der Berg",
    "Dréan-Guénaïzia",
    "Smith &amp; Co",
    "李",
];
const GIVEN: [&str; 8] = [
    "Luc",
    "André",
    "传德",
    "Zoë",
    "Jan Piet",
    "François",
    "Ann",
    "凡",
];
const RESULTS: [&str; 11] = [
    "RESULT_UNKNOWN",
    "RESULT_WHITEWINS",
    "RESULT_BLACKWINS",
    "RESULT_EQUAL",
    "RESULT_BOTHWIN",
    "RESULT_BOTHLOSE",
    "RESULT_WHITEWINS_BYDEF",
    "RESULT_BLACKWINS_BYDEF",
    "RESULT_EQUAL_BYDEF",
    "RESULT_BOTHWIN_BYDEF",
    "RESULT_BOTHLOSE_BYDEF",
];

/// The XML-escaped family name and given name of player `i` (unique keys: the number).
pub fn player_name(i: usize) -> (String, String) {
    (
        format!("{} {}", FAMILY[i % FAMILY.len()], i),
        GIVEN[(i / FAMILY.len()) % GIVEN.len()].to_string(),
    )
}

/// The same, with the XML escapes resolved.
pub fn player_name_plain(i: usize) -> (String, String) {
    let (n, f) = player_name(i);
    let plain = |s: String| s.replace("&apos;", "'").replace("&amp;", "&");
    (plain(n), plain(f))
}

/// A tournament of `players` players and `rounds` rounds of `tables` tables each (at most
/// `players / 2`); the players left over in a round get a bye.
pub fn tournament(players: usize, tables: usize, rounds: u32) -> String {
    assert!(2 * tables <= players);
    let mut mix = Mix(0x07E4_6E11);
    let mut xml = String::with_capacity(players * 400 + tables * rounds as usize * 200);
    xml.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
    xml.push_str("<Tournament dataVersion=\"201\" fullVersionNumber=\"3.51\" runningMode=\"SAL\" saveDT=\"20260101120000\">\n<Players>\n");
    let mut keys = Vec::with_capacity(players);
    for i in 0..players {
        let (name, first) = player_name(i);
        let (plain_name, plain_first) = player_name_plain(i);
        keys.push(
            format!("{plain_name}{plain_first}")
                .replace(' ', "")
                .to_uppercase()
                .replace('&', "&amp;")
                .replace('\'', "&apos;"),
        );
        let rank = if i % 5 == 0 {
            format!("{}D", 1 + i % 7)
        } else {
            format!("{}K", 1 + i % 30)
        };
        let _ = writeln!(
            xml,
            "<Player agaExpirationDate=\"\" agaId=\"{}\" club=\"{}\" country=\"FR\" egfPin=\"{}\" ffgLicence=\"\" ffgLicenceStatus=\"\" firstName=\"{first}\" grade=\"{rank}\" name=\"{name}\" participating=\"11111111111111111111\" rank=\"{rank}\" rating=\"{}\" ratingOrigin=\"INI\" registeringStatus=\"FIN\" smmsCorrection=\"0\"/>",
            if i % 3 == 0 { format!("{}", 10_000 + i) } else { String::new() },
            ["75Op", "92Le", "35Re", ""][i % 4],
            10_000_000 + i,
            100 + i
        );
    }
    xml.push_str("</Players>\n<Games>\n");
    let mut byes = Vec::new();
    for round in 1..=rounds {
        let mut order: Vec<usize> = (0..players).collect();
        for i in (1..order.len()).rev() {
            let j = mix.below(i + 1);
            order.swap(i, j);
        }
        for table in 0..tables {
            let (b, w) = (order[2 * table], order[2 * table + 1]);
            let handicap = if mix.below(3) == 0 { mix.below(10) } else { 0 };
            let _ = writeln!(
                xml,
                "<Game blackPlayer=\"{}\" handicap=\"{handicap}\" knownColor=\"{}\" result=\"{}\" roundNumber=\"{round}\" tableNumber=\"{}\" whitePlayer=\"{}\"/>",
                keys[b],
                mix.below(10) != 0,
                RESULTS[mix.below(RESULTS.len())],
                table + 1,
                keys[w]
            );
        }
        for &p in &order[2 * tables..] {
            byes.push((round, p));
        }
    }
    xml.push_str("</Games>\n");
    if !byes.is_empty() {
        xml.push_str("<ByePlayers>\n");
        for (round, p) in byes {
            let _ = writeln!(
                xml,
                "<ByePlayer player=\"{}\" roundNumber=\"{round}\"/>",
                keys[p]
            );
        }
        xml.push_str("</ByePlayers>\n");
    }
    let _ = writeln!(
        xml,
        "<TournamentParameterSet>\n<GeneralParameterSet bInternet=\"false\" basicTime=\"90\" beginDate=\"2026-05-01\" canByoYomiTime=\"300\" complementaryTimeSystem=\"CANBYOYOMI\" director=\"Generated\" endDate=\"2026-05-03\" fischerTime=\"10\" komi=\"6.5\" location=\"Hall &amp; Annex\" name=\"Generated Open {players}\" nbMovesCanTime=\"15\" numberOfCategories=\"1\" numberOfRounds=\"{rounds}\" shortName=\"gen{players}\" size=\"19\" stdByoYomiTime=\"30\"/>\n</TournamentParameterSet>\n</Tournament>"
    );
    xml
}
