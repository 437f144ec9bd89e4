//! The one pass over the XML text (quick-xml's pull reader, borrowing the text) that
//! builds a [`Tournament`] and notes where each game's `result` is written.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;

use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

use crate::error::{line_of, TournamentError};
use crate::games::{Game, GameResult};
use crate::model::{GameRecord, General, ResultAt, Tournament};
use crate::players::{player_key, Player};
use crate::time_system::TimeSystem;

/// One attribute of an element: name, value (entities resolved, whitespace normalised as
/// XML 1.0 says) and the byte range of the raw value in the text.
struct Attr<'a> {
    name: &'a [u8],
    value: Cow<'a, str>,
    span: Option<Range<usize>>,
}

/// An element's attributes, with what errors need to name it.
struct Element<'a> {
    attrs: Vec<Attr<'a>>,
    /// The element's name, for errors.
    kind: &'static str,
    /// The whole text and the element's offset in it: its line, counted only for an error.
    text: &'a str,
    start: usize,
    /// How errors name a game once its round and table are known.
    game: Option<(u32, u32)>,
    /// The byte offset just past the last attribute's closing quote (or the name).
    attrs_end: usize,
}

impl Element<'_> {
    /// How errors name the element: `Game round 3 table 12`, or `Game at line 27`.
    fn label(&self) -> String {
        match self.game {
            Some((round, table)) => format!("Game round {round} table {table}"),
            None => format!("{} at line {}", self.kind, line_of(self.text, self.start)),
        }
    }

    fn get(&self, name: &str) -> Option<&Attr<'_>> {
        self.attrs.iter().find(|a| a.name == name.as_bytes())
    }

    fn required(&self, name: &'static str) -> Result<&str, TournamentError> {
        self.get(name)
            .map(|a| a.value.as_ref())
            .ok_or_else(|| TournamentError::MissingAttribute {
                element: self.label(),
                attribute: name,
            })
    }

    /// The value, or the DTD's default when the attribute is absent.
    fn or_default<'s>(&'s self, name: &str, default: &'s str) -> &'s str {
        self.get(name).map_or(default, |a| a.value.as_ref())
    }

    fn invalid(
        &self,
        attribute: &'static str,
        value: &str,
        expected: &'static str,
    ) -> TournamentError {
        TournamentError::InvalidAttribute {
            element: self.label(),
            attribute,
            value: value.to_string(),
            expected,
        }
    }

    /// A whole number within `range`, the value or the DTD's default.
    fn number(
        &self,
        name: &'static str,
        default: Option<&str>,
        min: u32,
        max: u32,
        expected: &'static str,
    ) -> Result<u32, TournamentError> {
        let text = match default {
            Some(d) => self.or_default(name, d),
            None => self.required(name)?,
        };
        // Digits only, as Java's Integer.parseInt reads them (no sign, no spaces).
        let ok = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
        match text.parse::<u32>() {
            Ok(n) if ok && (min..=max).contains(&n) => Ok(n),
            _ => Err(self.invalid(name, text, expected)),
        }
    }
}

/// Where the parse is: the open elements, from the root.
type Path = Vec<Vec<u8>>;

fn at_path(path: &Path, expected: &[&str]) -> bool {
    path.len() == expected.len() && path.iter().zip(expected).all(|(a, b)| a == b.as_bytes())
}

/// Reads the tournament; see the crate documentation for what is checked.
pub(crate) fn parse(text: &str) -> Result<Tournament, TournamentError> {
    let mut reader = Reader::from_str(text);
    let mut path: Path = Vec::new();
    let mut root_seen = false;
    let mut builder = Builder::default();
    loop {
        let start = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
        let event = match reader.read_event() {
            Ok(event) => event,
            Err(e) => {
                let at = usize::try_from(reader.error_position()).unwrap_or(usize::MAX);
                return Err(not_xml(text, at, &e.to_string()));
            }
        };
        match event {
            Event::Start(e) | Event::Empty(e) if path.is_empty() && root_seen => {
                let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
                return Err(not_xml(
                    text,
                    start,
                    &format!("a second root element <{name}>"),
                ));
            }
            Event::Start(ref e) | Event::Empty(ref e) if path.is_empty() => {
                root_seen = true;
                if e.name().as_ref() != b"Tournament" {
                    let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
                    return Err(TournamentError::NotOpenGotha(format!(
                        "the root element is <{name}>, not <Tournament>"
                    )));
                }
                if matches!(event, Event::Start(_)) {
                    path.push(e.name().as_ref().to_vec());
                }
            }
            Event::Start(e) => {
                builder.element(text, &path, &e, start)?;
                path.push(e.name().as_ref().to_vec());
            }
            Event::Empty(e) => builder.element(text, &path, &e, start)?,
            Event::End(_) => {
                path.pop();
            }
            Event::Text(t) if path.is_empty() => {
                let raw = String::from_utf8_lossy(t.as_ref());
                if !raw.trim_start_matches('\u{feff}').trim().is_empty() {
                    return Err(not_xml(text, start, "text outside the root element"));
                }
            }
            Event::CData(_) | Event::GeneralRef(_) if path.is_empty() => {
                return Err(not_xml(text, start, "text outside the root element"));
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if !root_seen {
        return Err(not_xml(text, text.len(), "no root element"));
    }
    if let Some(open) = path.last() {
        let name = String::from_utf8_lossy(open).into_owned();
        return Err(not_xml(
            text,
            text.len(),
            &format!("the text ends inside <{name}> (truncated?)"),
        ));
    }
    builder.finish()
}

fn not_xml(text: &str, at: usize, reason: &str) -> TournamentError {
    TournamentError::NotXml {
        line: line_of(text, at),
        reason: reason.replace(['\n', '\r'], " "),
    }
}

/// The attributes of an element starting at byte `start` of `text`.
fn element<'e>(
    text: &'e str,
    e: &'e BytesStart<'_>,
    start: usize,
    kind: &'static str,
) -> Result<Element<'e>, TournamentError> {
    let base = text.as_ptr() as usize;
    let name_len = e.name().as_ref().len();
    let mut attrs_end = start.saturating_add(1 + name_len);
    let mut attrs = Vec::new();
    for attr in e.attributes() {
        let attr = attr.map_err(|err| not_xml(text, start, &format!("<{kind}>: {err}")))?;
        let value = attr
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|err| not_xml(text, start, &format!("<{kind}>: {err}")))?;
        // The raw value borrows the text: its place in the text is its address.
        let span = match &attr.value {
            Cow::Borrowed(raw) => {
                let from = (raw.as_ptr() as usize).wrapping_sub(base);
                let to = from.saturating_add(raw.len());
                (from <= text.len()
                    && to <= text.len()
                    && text.as_bytes().get(from..to) == Some(*raw))
                .then_some(from..to)
            }
            Cow::Owned(_) => None,
        };
        if let Some(span) = &span {
            attrs_end = span.end + 1;
        }
        attrs.push(Attr {
            name: attr.key.into_inner(),
            value,
            span,
        });
    }
    Ok(Element {
        attrs,
        kind,
        text,
        start,
        game: None,
        attrs_end,
    })
}

/// What the pass has gathered so far.
#[derive(Default)]
struct Builder {
    general: Option<General>,
    players: Vec<Player>,
    index: HashMap<String, usize>,
    /// Games with the players' keys not yet resolved, and where their result goes.
    games: Vec<(Game, ResultAt)>,
    byes: Vec<(u32, String)>,
}

impl Builder {
    fn element(
        &mut self,
        text: &str,
        path: &Path,
        e: &BytesStart<'_>,
        start: usize,
    ) -> Result<(), TournamentError> {
        let name = e.name();
        let name = name.as_ref();
        if name == b"Player" && at_path(path, &["Tournament", "Players"]) {
            self.player(text, &element(text, e, start, "Player")?, start)
        } else if name == b"Game" && at_path(path, &["Tournament", "Games"]) {
            self.game(&mut element(text, e, start, "Game")?)
        } else if name == b"ByePlayer" && at_path(path, &["Tournament", "ByePlayers"]) {
            let el = element(text, e, start, "ByePlayer")?;
            let round = el.number("roundNumber", None, 1, u32::MAX, "a round number from 1")?;
            let key = el.required("player")?.to_string();
            self.byes.push((round, key));
            Ok(())
        } else if name == b"GeneralParameterSet"
            && at_path(path, &["Tournament", "TournamentParameterSet"])
        {
            if self.general.is_some() {
                return Err(TournamentError::NotOpenGotha(format!(
                    "a second GeneralParameterSet at line {}",
                    line_of(text, start)
                )));
            }
            self.general = Some(general(&element(text, e, start, "GeneralParameterSet")?)?);
            Ok(())
        } else {
            Ok(())
        }
    }

    fn player(
        &mut self,
        text: &str,
        el: &Element<'_>,
        start: usize,
    ) -> Result<(), TournamentError> {
        let name = el.required("name")?.to_string();
        let first_name = el.required("firstName")?.to_string();
        // Named by what the file says, escaped: the error line must not carry the control
        // character to the terminal either.
        let label = || {
            format!(
                "Player {:?} at line {}",
                format!("{name} {first_name}"),
                line_of(text, start)
            )
        };
        for attribute in ["name", "firstName", "rank", "club", "country"] {
            no_control(
                el.get(attribute).map(|a| a.value.as_ref()),
                attribute,
                label,
            )?;
        }
        let key = player_key(&name, &first_name);
        let player = Player {
            rank: el.or_default("rank", "30K").to_string(),
            club: el.or_default("club", "").to_string(),
            country: el.or_default("country", "").to_string(),
            egf_pin: el.or_default("egfPin", "").to_string(),
            aga_id: el.or_default("agaId", "").to_string(),
            key: key.clone(),
            name,
            first_name,
        };
        if self.index.contains_key(&key) {
            return Err(TournamentError::DuplicatePlayer {
                line: line_of(text, start),
                key,
            });
        }
        self.index.insert(key, self.players.len());
        self.players.push(player);
        Ok(())
    }

    fn game(&mut self, el: &mut Element<'_>) -> Result<(), TournamentError> {
        let round = el.number("roundNumber", None, 1, u32::MAX, "a round number from 1")?;
        let table = el.number("tableNumber", None, 1, u32::MAX, "a table number from 1")?;
        el.game = Some((round, table));
        let black = el.required("blackPlayer")?.to_string();
        let white = el.required("whitePlayer")?.to_string();
        let handicap = el.number("handicap", Some("0"), 0, 9, "0 to 9 handicap stones")?;
        let known_color = match el.or_default("knownColor", "true") {
            "true" => true,
            "false" => false,
            other => return Err(el.invalid("knownColor", other, "true or false")),
        };
        let (result, result_at) = match el.get("result") {
            Some(attr) => {
                let result = GameResult::from_opengotha(&attr.value).ok_or_else(|| {
                    el.invalid(
                        "result",
                        &attr.value,
                        "an OpenGotha result such as RESULT_BLACKWINS",
                    )
                })?;
                let span = attr.span.clone().ok_or_else(|| {
                    el.invalid("result", &attr.value, "a value written without entities")
                })?;
                (result, ResultAt::Value(span))
            }
            None => (GameResult::Unknown, ResultAt::Insert(el.attrs_end)),
        };
        self.games.push((
            Game {
                round,
                table,
                black,
                white,
                handicap,
                known_color,
                result,
            },
            result_at,
        ));
        Ok(())
    }

    fn finish(self) -> Result<Tournament, TournamentError> {
        let general = self.general.ok_or_else(|| {
            TournamentError::NotOpenGotha(
                "no TournamentParameterSet/GeneralParameterSet element".to_string(),
            )
        })?;
        let index = self.index;
        let mut games = Vec::with_capacity(self.games.len());
        // (round, table) -> taken; (round, player) -> table.
        let mut tables: HashMap<(u32, u32), ()> = HashMap::with_capacity(self.games.len());
        let mut busy: HashMap<(u32, usize), u32> = HashMap::with_capacity(2 * self.games.len());
        for (game, result_at) in self.games {
            let (round, table) = (game.round, game.table);
            let find = |key: &str, side: &'static str| {
                index
                    .get(key)
                    .copied()
                    .ok_or_else(|| TournamentError::UnknownPlayer {
                        round,
                        table,
                        side,
                        key: key.to_string(),
                    })
            };
            let black = find(&game.black, "black")?;
            let white = find(&game.white, "white")?;
            if black == white {
                return Err(TournamentError::SamePlayer {
                    round,
                    table,
                    key: game.black,
                });
            }
            if tables.insert((round, table), ()).is_some() {
                return Err(TournamentError::DuplicateTable { round, table });
            }
            for (player, key) in [(black, &game.black), (white, &game.white)] {
                if let Some(other_table) = busy.insert((round, player), table) {
                    return Err(TournamentError::PlayerTwiceInRound {
                        round,
                        table,
                        key: key.clone(),
                        other_table,
                    });
                }
            }
            games.push(GameRecord {
                game,
                black,
                white,
                result_at,
            });
        }
        let mut byes = Vec::with_capacity(self.byes.len());
        for (round, key) in self.byes {
            let player = index
                .get(&key)
                .copied()
                .ok_or(TournamentError::UnknownByePlayer { round, key })?;
            byes.push((round, player));
        }
        Ok(Tournament {
            general,
            players: self.players,
            index,
            games,
            byes,
        })
    }
}

/// A text without control characters, or the error naming `attribute` of the element
/// `label` names.
fn no_control(
    value: Option<&str>,
    attribute: &'static str,
    label: impl FnOnce() -> String,
) -> Result<(), TournamentError> {
    match value.and_then(|v| v.chars().find(|c| c.is_control())) {
        Some(c) => Err(TournamentError::ControlCharacter {
            element: label(),
            attribute,
            code: u32::from(c),
        }),
        None => Ok(()),
    }
}

/// `GeneralParameterSet`: absent attributes take the DTD's defaults, as a validating
/// parser would supply them.
fn general(el: &Element<'_>) -> Result<General, TournamentError> {
    for attribute in ["name", "shortName", "location", "director"] {
        no_control(
            el.get(attribute).map(|a| a.value.as_ref()),
            attribute,
            || el.label(),
        )?;
    }
    let basic_minutes = el.number("basicTime", Some("60"), 0, u32::MAX, "whole minutes")?;
    let system = el.or_default("complementaryTimeSystem", "CANBYOYOMI");
    let time = match system {
        "SUDDENDEATH" => TimeSystem::SuddenDeath { basic_minutes },
        "STDBYOYOMI" => TimeSystem::StandardByoyomi {
            basic_minutes,
            period_seconds: el.number(
                "stdByoYomiTime",
                Some("30"),
                1,
                u32::MAX,
                "whole seconds from 1",
            )?,
        },
        "CANBYOYOMI" => TimeSystem::CanadianByoyomi {
            basic_minutes,
            moves: el.number(
                "nbMovesCanTime",
                Some("15"),
                1,
                u32::MAX,
                "a number of moves from 1",
            )?,
            period_seconds: el.number(
                "canByoYomiTime",
                Some("300"),
                1,
                u32::MAX,
                "whole seconds from 1",
            )?,
        },
        "FISCHER" => TimeSystem::Fischer {
            basic_minutes,
            increment_seconds: el.number("fischerTime", Some("5"), 0, u32::MAX, "whole seconds")?,
        },
        other => {
            return Err(el.invalid(
                "complementaryTimeSystem",
                other,
                "SUDDENDEATH, STDBYOYOMI, CANBYOYOMI or FISCHER",
            ))
        }
    };
    let komi_text = el.or_default("komi", "7.5");
    let komi = komi_text
        .parse::<f64>()
        .ok()
        .filter(|k| {
            k.is_finite()
                && komi_text
                    .bytes()
                    .all(|b| b.is_ascii_digit() || b == b'.' || b == b'-')
        })
        .ok_or_else(|| el.invalid("komi", komi_text, "a number of points such as 7.5"))?;
    Ok(General {
        name: el.or_default("name", "defaultname").to_string(),
        short_name: el.or_default("shortName", "defaultshortname").to_string(),
        location: el.or_default("location", "location").to_string(),
        director: el.or_default("director", "director").to_string(),
        begin_date: el.or_default("beginDate", "2009-01-01").to_string(),
        end_date: el.or_default("endDate", "2009-01-01").to_string(),
        time,
        komi,
        size: el.number("size", Some("19"), 2, 52, "a board size from 2 to 52")?,
        number_of_rounds: el.number(
            "numberOfRounds",
            Some("5"),
            1,
            u32::MAX,
            "a number of rounds from 1",
        )?,
    })
}
