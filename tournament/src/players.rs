//! Players as OpenGotha registers them, and the key that games use to name them.

/// One `Player` element of the tournament file.
///
/// The strings are the attribute values as in the file (entities resolved, nothing
/// trimmed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Player {
    /// Family name (`name`).
    pub name: String,
    /// Given name (`firstName`).
    pub first_name: String,
    /// Rank as written, e.g. `4K`, `1D` (`rank`; not the declared `grade`).
    pub rank: String,
    /// Club code (`club`), possibly empty.
    pub club: String,
    /// Country code (`country`), possibly empty.
    pub country: String,
    /// EGD PIN (`egfPin`), possibly empty.
    pub egf_pin: String,
    /// AGA id (`agaId`), possibly empty.
    pub aga_id: String,
    /// OpenGotha's key for the player, see [`player_key`].
    pub key: String,
}

impl Player {
    /// The name shown to people: `name`, a space, `firstName` (the wire contract's `Vannier Luc`).
    pub fn display_name(&self) -> String {
        format!("{} {}", self.name, self.first_name)
    }
}

/// OpenGotha's key of a player, used by `Game`'s `blackPlayer`/`whitePlayer` and
/// `ByePlayer`'s `player`: `name` and `firstName` joined, every space (U+0020 only, as
/// Java's `replaceAll(" ", "")`) removed, upper-cased (`Player.computeKeyString`).
///
/// `Nemo` + `André` is `NEMOANDRÉ`; `高` + `传德` is `高传德` (no case to change).
pub fn player_key(name: &str, first_name: &str) -> String {
    let mut joined = String::with_capacity(name.len() + first_name.len());
    joined.push_str(name);
    joined.push_str(first_name);
    joined.replace(' ', "").to_uppercase()
}
