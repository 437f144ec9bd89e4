//! The keys of a hall that is a hub or a venue (docs/venues.md):
//!
//! - `[hall] venues` on a hub: one table per venue, `{id = "paris", tournaments =
//!   ["league-r5"], boards = ["paris-01", ...]}` (or `boards = "paris-{table:02}"`, a
//!   pattern; without `boards`, every board of its tournaments). The hub follows a board
//!   only from the one venue that may carry it.
//! - `[venue]` on a venue's hall: `id = "paris"`, the name its hub knows it by. The hall
//!   then tells its hub what it holds and answers what the hub misses.

use std::collections::BTreeSet;

use tengen_net::config_reader::{join, Reader};
use tengen_protocol::topics::{is_valid_id, BoardKey};
use tengen_tournament::BoardPattern;
use toml::{Table, Value};

use super::{article, id_list};

/// The most venues one hub takes.
pub(crate) const MAX_VENUES: usize = 64;

/// Which boards of its tournaments a venue may carry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum VenueBoards {
    /// Every board of its tournaments.
    Any,
    /// These board ids.
    Listed(BTreeSet<String>),
    /// The boards of this pattern (`paris-{table:02}`).
    Pattern(BoardPattern),
}

/// One venue of a hub (`[hall] venues`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Venue {
    /// Its id: its account on the hub's broker is `venue-{id}`, its tree `venues/{id}/`.
    pub(crate) id: String,
    /// The tournaments whose boards it may carry.
    pub(crate) tournaments: BTreeSet<String>,
    /// Which of their boards.
    pub(crate) boards: VenueBoards,
}

impl Venue {
    /// Whether the venue may carry board `key`.
    pub(crate) fn carries(&self, key: &BoardKey) -> bool {
        self.tournaments.contains(&key.tournament)
            && match &self.boards {
                VenueBoards::Any => true,
                VenueBoards::Listed(ids) => ids.contains(&key.board),
                VenueBoards::Pattern(p) => p.matches(&key.board),
            }
    }
}

/// `[venue]`: this hall is a venue's and pushes to a hub.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct VenueSection {
    /// The id the hub knows this venue by (its `[hall] venues` entry).
    pub(crate) id: String,
}

/// `[hall] venues`, when given: every entry checked (ids unique, lists of ids, a board
/// listed by two venues refused).
pub(crate) fn read_venues(t: &Table, p: &str, r: &mut Reader) -> Option<Vec<Venue>> {
    let at = join(p, "venues");
    let items = match t.get("venues")? {
        Value::Array(items) => items,
        other => {
            r.problem(
                at,
                format!(
                    "expected an array of tables ([{{id = \"paris\", tournaments = \
                     [\"league\"]}}, ...]), found {}",
                    article(other.type_str())
                ),
            );
            return None;
        }
    };
    if items.is_empty() || items.len() > MAX_VENUES {
        r.problem(at, format!("give 1 to {MAX_VENUES} venues"));
        return None;
    }
    let mut venues: Vec<Venue> = Vec::with_capacity(items.len());
    let mut sound = true;
    for (i, item) in items.iter().enumerate() {
        let vp = format!("{at}[{i}]");
        let Value::Table(v) = item else {
            r.problem(
                &vp,
                format!("expected a table, found {}", article(item.type_str())),
            );
            sound = false;
            continue;
        };
        match read_venue_entry(v, &vp, &venues, r) {
            Some(venue) => venues.push(venue),
            None => sound = false,
        }
    }
    sound.then_some(venues)
}

/// One entry of `[hall] venues` at key path `p`; `before` are the entries read so far.
fn read_venue_entry(t: &Table, p: &str, before: &[Venue], r: &mut Reader) -> Option<Venue> {
    r.unknown_keys(t, p, &["id", "tournaments", "boards"]);
    let id = venue_id(t, p, r);
    if let Some(id) = &id {
        if before.iter().any(|v| &v.id == id) {
            r.problem(join(p, "id"), format!("venue {id:?} is given twice"));
            return None;
        }
    }
    let tournaments = if t.contains_key("tournaments") {
        id_list(t, p, "tournaments", r)
    } else {
        r.problem(
            join(p, "tournaments"),
            "required: the tournaments whose boards the venue may carry ([\"league-r5\"])",
        );
        None
    };
    let boards = match t.get("boards") {
        None => Some(VenueBoards::Any),
        Some(Value::String(text)) => match BoardPattern::parse(text) {
            Ok(pattern) => Some(VenueBoards::Pattern(pattern)),
            Err(e) => {
                r.problem(join(p, "boards"), e.to_string());
                None
            }
        },
        Some(_) => {
            id_list(t, p, "boards", r).map(|ids| VenueBoards::Listed(ids.into_iter().collect()))
        }
    };
    let venue = Venue {
        id: id?,
        tournaments: tournaments?.into_iter().collect(),
        boards: boards?,
    };
    if let VenueBoards::Listed(ids) = &venue.boards {
        for other in before {
            let shared = venue.tournaments.intersection(&other.tournaments).next();
            let clash = ids.iter().find(|b| {
                shared.is_some_and(|t| BoardKey::new(t, b).is_some_and(|k| other.carries(&k)))
            });
            if let (Some(t), Some(b)) = (shared, clash) {
                r.problem(
                    join(p, "boards"),
                    format!(
                        "board {b} of {t} is venue {:?}'s already: a board comes from one \
                         venue",
                        other.id
                    ),
                );
                return None;
            }
        }
    }
    Some(venue)
}

/// A venue's id: an id of at most 32 characters (it names a broker account and a topic).
fn venue_id(t: &Table, p: &str, r: &mut Reader) -> Option<String> {
    if !t.contains_key("id") {
        r.problem(join(p, "id"), "required: the venue's id (\"paris\")");
        return None;
    }
    let id = r.string(t, p, "id")?;
    if is_valid_id(&id) && id.len() <= 32 {
        Some(id)
    } else {
        r.problem(
            join(p, "id"),
            "use 1 to 32 lower-case letters, digits and '-'",
        );
        None
    }
}

/// `[venue]`.
pub(crate) fn read_venue(t: &Table, r: &mut Reader) -> Option<VenueSection> {
    const P: &str = "venue";
    r.unknown_keys(t, P, &["id"]);
    Some(VenueSection {
        id: venue_id(t, P, r)?,
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::config::HallConfig;

    use super::*;

    fn parse(text: &str) -> HallConfig {
        HallConfig::parse(text, Path::new("hub.toml")).expect("valid")
    }

    fn lines(text: &str) -> Vec<String> {
        HallConfig::parse(text, Path::new("hub.toml"))
            .expect_err("invalid")
            .lines()
    }

    fn key(t: &str, b: &str) -> BoardKey {
        BoardKey::new(t, b).expect("ids")
    }

    #[test]
    fn each_venue_carries_only_its_own_boards() {
        let c = parse(
            "[hall]\nvenues = [\n  {id = \"paris\", tournaments = [\"league\"], boards = \
             \"paris-{table:02}\"},\n  {id = \"lyon\", tournaments = [\"league\"], boards = \
             [\"lyon-01\", \"lyon-02\"]},\n  {id = \"fest\", tournaments = [\"fest-a\", \
             \"fest-b\"]},\n]\n",
        );
        let v = c.hall.venues.clone().expect("venues");
        assert_eq!(v.len(), 3);
        assert!(v[0].carries(&key("league", "paris-07")));
        assert!(!v[0].carries(&key("league", "lyon-01")));
        assert!(!v[0].carries(&key("other", "paris-07")));
        assert!(v[1].carries(&key("league", "lyon-02")));
        assert!(!v[1].carries(&key("league", "lyon-03")));
        assert!(v[2].carries(&key("fest-b", "anything")));
        assert_eq!(c.trust_warning(), None, "the venues say whom to believe");

        let venue = parse("[venue]\nid = \"paris\"\n");
        assert_eq!(venue.venue.map(|v| v.id).as_deref(), Some("paris"));
    }

    #[test]
    fn a_wrong_venue_entry_is_one_line_naming_its_key() {
        for (text, says) in [
            (
                "[hall]\nvenues = \"paris\"\n",
                "hub.toml: hall.venues: expected an array",
            ),
            (
                "[hall]\nvenues = []\n",
                "hub.toml: hall.venues: give 1 to 64 venues",
            ),
            (
                "[hall]\nvenues = [{tournaments = [\"t\"]}]\n",
                "hub.toml: hall.venues[0].id: required",
            ),
            (
                "[hall]\nvenues = [{id = \"Paris\", tournaments = [\"t\"]}]\n",
                "hub.toml: hall.venues[0].id: use 1 to 32",
            ),
            (
                "[hall]\nvenues = [{id = \"paris\"}]\n",
                "hub.toml: hall.venues[0].tournaments: required",
            ),
            (
                "[hall]\nvenues = [{id = \"paris\", tournaments = [\"t\"], port = 1}]\n",
                "hub.toml: hall.venues[0].port: unknown key",
            ),
            (
                "[hall]\nvenues = [{id = \"a\", tournaments = [\"t\"]}, {id = \"a\", \
                 tournaments = [\"u\"]}]\n",
                "hub.toml: hall.venues[1].id: venue \"a\" is given twice",
            ),
            (
                "[hall]\nvenues = [{id = \"a\", tournaments = [\"t\"], boards = \"a-{x}\"}]\n",
                "hub.toml: hall.venues[0].boards: ",
            ),
            (
                "[hall]\nvenues = [{id = \"a\", tournaments = [\"t\"], boards = \
                 \"a-{table:02}\"}, {id = \"b\", tournaments = [\"t\"], boards = \
                 [\"a-01\"]}]\n",
                "hub.toml: hall.venues[1].boards: board a-01 of t is venue \"a\"'s already",
            ),
            ("[venue]\nid = 3\n", "hub.toml: venue.id: expected a string"),
            ("[venue]\n", "hub.toml: venue.id: required"),
        ] {
            let l = lines(text);
            assert!(l.iter().any(|line| line.starts_with(says)), "{text}: {l:?}");
        }
    }
}
