//! The boards as the broker tells of them: the hall's state, one board's views, the MQTT client.

pub(crate) mod archive;
pub(crate) mod board_filter;
pub(crate) mod board_view;
pub(crate) mod broadcast_delay;
pub(crate) mod command_ask;
pub(crate) mod command_log;
pub(crate) mod fleet_watch;
pub(crate) mod frames_archive;
pub(crate) mod hall_state;
pub(crate) mod labels;
pub(crate) mod mqtt_client;
pub(crate) mod snapshot_watch;
