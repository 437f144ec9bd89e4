//! KataGo's `kata-analyze` output, one line of it: the candidate moves with their visits,
//! score lead and rank, as KataGo's `docs/GTP_Extensions.md` describes them.
//!
//! A line is `info move E5 visits 22 edgeVisits 22 utility ... scoreLead -0.465371 ...
//! order 0 pv E5 E3 C4 D7 info move F5 ...`: one `info` group per candidate, key-value pairs
//! in any order (new keys may come), the principal variation (`pv`) and the optional
//! `pvVisits`, `pvEdgeVisits`, `movesOwnership`, `movesOwnershipStdev` with any number of
//! values; then optionally `rootInfo ...`, `ownership ...`, `ownershipStdev ...`, which
//! follow every `info` group and which the hall does not read. Values are from the side to
//! move (KataGo's default `reportAnalysisWinratesAs = SIDETOMOVE`).

use thiserror::Error;

/// One candidate move of a `kata-analyze` line.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Candidate {
    /// The move, as KataGo writes it (`Q16`, `pass`).
    pub(crate) point: String,
    /// The visits its child node received.
    pub(crate) visits: u64,
    /// Points the side to move leads by after this move.
    pub(crate) score_lead: f64,
    /// KataGo's rank of the move, 0 the best.
    pub(crate) order: u32,
}

/// Why a line is not a `kata-analyze` line the hall can read.
#[derive(Debug, Error, PartialEq)]
pub(crate) enum InfoLineError {
    /// The line does not start with `info`.
    #[error("kata-analyze line does not start with `info`: {0:?}")]
    NoInfo(String),
    /// A key without its value at the end of the line.
    #[error("kata-analyze line: `{0}` has no value")]
    NoValue(String),
    /// A value that is not a number where one is needed.
    #[error("kata-analyze line: `{key}` is not a number: {value:?}")]
    NotANumber {
        /// The key.
        key: String,
        /// Its value.
        value: String,
    },
    /// An `info` group without one of the keys the hall reads.
    #[error("kata-analyze line: an `info` group without `{0}`")]
    Missing(&'static str),
}

/// Keys of an `info` group followed by any number of values.
const LIST_KEYS: [&str; 5] = [
    "pv",
    "pvVisits",
    "pvEdgeVisits",
    "movesOwnership",
    "movesOwnershipStdev",
];

/// The keys of an `info` group with one value (KataGo 1.17.2's): a list ends before one.
const ONE_VALUE_KEYS: [&str; 16] = [
    "move",
    "visits",
    "edgeVisits",
    "utility",
    "winrate",
    "scoreMean",
    "scoreStdev",
    "scoreLead",
    "scoreSelfplay",
    "noResultValue",
    "prior",
    "lcb",
    "utilityLcb",
    "weight",
    "isSymmetryOf",
    "order",
];

/// Top-level fields that follow every `info` group.
const AFTER_INFO: [&str; 3] = ["rootInfo", "ownership", "ownershipStdev"];

/// The candidates of one `kata-analyze` line, in the order the line has them (sort by
/// [`Candidate::order`] for KataGo's ranking). An error says what is wrong in one line.
pub(crate) fn parse_info_line(line: &str) -> Result<Vec<Candidate>, InfoLineError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.first() != Some(&"info") {
        let start: String = line.chars().take(60).collect();
        return Err(InfoLineError::NoInfo(start));
    }
    let mut candidates = Vec::new();
    let mut i = 0;
    while i < words.len() && !AFTER_INFO.contains(&words[i]) {
        // words[i] is "info": a group runs to the next "info" or top-level field.
        i += 1;
        let mut point = None;
        let mut visits = None;
        let mut score_lead = None;
        let mut order = None;
        while i < words.len() && words[i] != "info" && !AFTER_INFO.contains(&words[i]) {
            let key = words[i];
            i += 1;
            if LIST_KEYS.contains(&key) {
                while i < words.len()
                    && words[i] != "info"
                    && !AFTER_INFO.contains(&words[i])
                    && !LIST_KEYS.contains(&words[i])
                    && !ONE_VALUE_KEYS.contains(&words[i])
                {
                    i += 1;
                }
                continue;
            }
            let value = *words
                .get(i)
                .ok_or_else(|| InfoLineError::NoValue(key.to_string()))?;
            i += 1;
            let bad = || InfoLineError::NotANumber {
                key: key.to_string(),
                value: value.to_string(),
            };
            match key {
                "move" => point = Some(value.to_string()),
                "visits" => visits = Some(value.parse::<u64>().map_err(|_| bad())?),
                "scoreLead" => {
                    let v = value.parse::<f64>().map_err(|_| bad())?;
                    score_lead = Some(v.is_finite().then_some(v).ok_or_else(bad)?);
                }
                "order" => order = Some(value.parse::<u32>().map_err(|_| bad())?),
                _ => {}
            }
        }
        candidates.push(Candidate {
            point: point.ok_or(InfoLineError::Missing("move"))?,
            visits: visits.ok_or(InfoLineError::Missing("visits"))?,
            score_lead: score_lead.ok_or(InfoLineError::Missing("scoreLead"))?,
            order: order.ok_or(InfoLineError::Missing("order"))?,
        });
    }
    Ok(candidates)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example line of `kata-analyze` in KataGo's docs/GTP_Extensions.md (v1.17.2).
    const DOCS: &str = "info move E4 visits 487 utility -0.0408357 winrate 0.480018 scoreMean -0.611848 scoreStdev 24.7058 scoreLead -0.611848 scoreSelfplay -0.515178 prior 0.221121 lcb 0.477221 utilityLcb -0.0486664 order 0 pv E4 E3 F3 D3 F4 P4 P3 O3 Q3 O4 K3 Q6 S6 E16 E17 info move P16 visits 470 utility -0.0414945 winrate 0.479712 scoreMean -0.63075 scoreStdev 24.7179 scoreLead -0.63075 scoreSelfplay -0.5221 prior 0.220566 lcb 0.47657 utilityLcb -0.0502929 order 1 pv P16 P17 O17 Q17 O16 E17 H17 D15 C15 D14 C13 D13 C12 D12 info move E16 visits 143 utility -0.0534071 winrate 0.474509 scoreMean -0.729858 scoreStdev 24.7991 scoreLead -0.729858 scoreSelfplay -0.735747 prior 0.104652 lcb 0.470674 utilityLcb -0.0641425 order 2 pv E16 P4 P3 O3 Q3 O4 E3 H3 D5 C5";

    /// A line KataGo 1.17.2 wrote in its own tests (cpp/tests/results/gtp/
    /// genmoveanalyze.stdout, `kata-genmove_analyze`, the same format), with the newer
    /// `edgeVisits`, `weight` and `isSymmetryOf`, `noResultValue` and a `rootInfo`.
    const TESTS: &str = "info move G6 visits 15 edgeVisits 15 utility 0.778515 winrate 0.881055 scoreMean 1.20784 scoreStdev 8.32724 scoreLead 1.20784 scoreSelfplay 2.53547 noResultValue 0 prior 0.20254 lcb 0.852659 utilityLcb 0.699007 weight 26.755 order 0 pv G6 F3 D4 G4 D7 C7 E2 info move G4 visits 15 edgeVisits 15 utility 0.778515 winrate 0.881055 scoreMean 1.20784 scoreStdev 8.32724 scoreLead 1.20784 scoreSelfplay 2.53547 noResultValue 0 prior 0.20254 lcb 0.852659 utilityLcb 0.699007 weight 26.755 isSymmetryOf G6 order 1 pv G4 F7 D6 G6 D3 C3 E8 info move C6 visits 13 edgeVisits 13 utility 0.739107 winrate 0.874178 scoreMean 0.963067 scoreStdev 8.34085 scoreLead 0.963067 scoreSelfplay 2.36604 noResultValue 0 prior 0.262276 lcb 0.835147 utilityLcb 0.629822 weight 19.5338 order 2 pv C6 G6 F7 B6 C7 D5 E4 info move C4 visits 13 edgeVisits 13 utility 0.739107 winrate 0.874178 scoreMean 0.963067 scoreStdev 8.34085 scoreLead 0.963067 scoreSelfplay 2.36604 noResultValue 0 prior 0.262276 lcb 0.835147 utilityLcb 0.629822 weight 19.5338 isSymmetryOf C6 order 3 pv C4 G4 F3 B4 C3 D5 E6 info move G5 visits 1 edgeVisits 1 utility 0.652596 winrate 0.831772 scoreMean 0.396963 scoreStdev 7.80322 scoreLead 0.396963 scoreSelfplay 1.18387 noResultValue 0 prior 0.0254601 lcb -0.418228 utilityLcb -2.8474 weight 1.24633 order 4 pv G5 rootInfo visits 30 utility 0.767549 winrate 0.879558 scoreMean 1.10641 scoreStdev 8.34209 scoreLead 1.10641 scoreSelfplay 2.48459 weight 49.5438 rawStWrError 0.0713709 rawStScoreError 0.691656 rawVarTimeLeft 4.91346";

    fn summary(c: &[Candidate]) -> Vec<(&str, u64, f64, u32)> {
        c.iter()
            .map(|c| (c.point.as_str(), c.visits, c.score_lead, c.order))
            .collect()
    }

    #[test]
    fn the_docs_line_and_a_line_katago_wrote() {
        let c = parse_info_line(DOCS).unwrap();
        assert_eq!(
            summary(&c),
            [
                ("E4", 487, -0.611848, 0),
                ("P16", 470, -0.63075, 1),
                ("E16", 143, -0.729858, 2)
            ]
        );
        let c = parse_info_line(TESTS).unwrap();
        assert_eq!(
            summary(&c),
            [
                ("G6", 15, 1.20784, 0),
                ("G4", 15, 1.20784, 1),
                ("C6", 13, 0.963067, 2),
                ("C4", 13, 0.963067, 3),
                ("G5", 1, 0.396963, 4)
            ],
            "rootInfo's visits and scoreLead are not a candidate's"
        );
    }

    #[test]
    fn fields_in_any_order_lists_and_ownership() {
        let line = "info order 1 scoreLead -3 move pass visits 2 pv pass D4 pvVisits 2 1 \
                    info move D4 pv D4 pass movesOwnership 0.1 -0.2 0.3 order 0 visits 9 \
                    scoreLead 2.5 ownership 0.5 0.5 0.5";
        let c = parse_info_line(line).unwrap();
        assert_eq!(
            summary(&c),
            [("pass", 2, -3.0, 1), ("D4", 9, 2.5, 0)],
            "a field after a list is still read"
        );
    }

    #[test]
    fn malformed_lines_are_one_line_errors() {
        let cases: [(&str, InfoLineError); 7] = [
            ("", InfoLineError::NoInfo(String::new())),
            ("= ", InfoLineError::NoInfo("= ".into())),
            (
                "info move D4 visits many scoreLead 1 order 0",
                InfoLineError::NotANumber {
                    key: "visits".into(),
                    value: "many".into(),
                },
            ),
            (
                "info move D4 visits 3 scoreLead nan order 0",
                InfoLineError::NotANumber {
                    key: "scoreLead".into(),
                    value: "nan".into(),
                },
            ),
            (
                "info move D4 visits 3 scoreLead 1.5 order",
                InfoLineError::NoValue("order".into()),
            ),
            (
                "info move D4 visits 3 order 0 pv D4",
                InfoLineError::Missing("scoreLead"),
            ),
            // A line cut short after the first group's move.
            ("info move E4 info move D4 visits 1 scoreLead 0 order 1", {
                InfoLineError::Missing("visits")
            }),
        ];
        for (line, want) in cases {
            let err = parse_info_line(line).expect_err(line);
            assert_eq!(err, want, "{line:?}");
            assert!(!err.to_string().contains('\n'), "{err}");
        }
        // The docs' line truncated in the middle of a number is still numbers, and one cut
        // in a key's value is an error, never a panic.
        for end in (0..DOCS.len()).step_by(7) {
            let _ = parse_info_line(&DOCS[..end]);
        }
    }
}
