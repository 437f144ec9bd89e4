//! Many venues, one broadcast (docs/venues.md): a venue's hall and broker push its boards
//! outward to a hub over a mosquitto bridge the venue dials; the hub follows every board
//! by `(board, seq)` and asks the venue, over the same bridge, for whatever the brokers on
//! the way lost. Nothing from the hub reaches a board.
//!
//! - `wire`: the topics and payloads that cross (heads, asks, fills);
//! - `hub`: the hub's side (`[hall] venues`): each venue believed for its own boards only,
//!   what the boards miss asked of their venue, the answers taken;
//! - `link`: each venue's link for the broadcast's director (up, lagging, down since);
//! - `venue_side`: a venue hall's side (`[venue]`): its heads, its answers;
//! - `inbox`: both as the MQTT client's [`Inbox`](crate::boards::mqtt_client::Inbox);
//! - the director's view, `/console/venues` and `/api/console/venues`, is with the other
//!   handlers in `routes/venues_view`.
//!
//! The rest of the hall is reached through a few [`HallState`] methods (a hub's strict
//! boards, `on_board_message`, `on_filled`, `on_head`, `take_wanted`; a venue's `heads`,
//! `answer`, `republish`), so this wing can move as a whole.
//!
//! [`HallState`]: crate::boards::hall_state::HallState

pub(crate) mod hub;
pub(crate) mod inbox;
pub(crate) mod link;
pub(crate) mod venue_side;
pub(crate) mod wire;
