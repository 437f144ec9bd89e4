//! The board service's and the hall's integration tests that finish in seconds, in one test
//! binary: each file below was a binary of its own, and linking 25 copies of the service took
//! minutes of CI on two cores. The tests that run for tens of seconds in real time (browsers,
//! fault campaigns, qemu, kills and restarts) are the other binary, `realtime/`.

// Helpers shared with the other test binaries (`tests/support/`).
#[path = "../support/board.rs"]
mod board;
#[path = "../support/broker.rs"]
mod broker;
#[path = "../support/cli.rs"]
mod cli;
#[path = "../support/http.rs"]
mod http;
#[path = "../support/signed.rs"]
mod signed;
#[path = "../support/small_fs.rs"]
mod small_fs;
#[path = "../support/virtual_time.rs"]
mod virtual_time;

mod black_box;
mod black_box_service;
mod board_reopen;
mod cli_config;
mod cli_replay;
mod cli_score;
mod cli_tournament;
mod cli_voice;
mod clock_start;
mod command_limits;
mod command_replay;
mod command_senders;
mod config;
mod config_risks;
mod config_rpi;
mod example_configs;
mod fuzz_inputs;
mod gtp;
mod hall;
mod hall_analysis;
mod hall_archive;
mod hall_clock;
mod hall_labels;
mod hall_private;
mod hall_security;
mod hall_trust;
mod http_view;
mod journal;
mod journal_fixture;
mod journal_full_disk;
mod mqtt;
mod mqtt_bridge;
mod mqtt_link_errors;
mod mqtt_service;
mod mqtt_sim;
mod mqtt_tls;
mod open_files;
mod rehearsal;
mod round_confirm_delay;
mod round_feed;
mod round_records;
mod serial_wrong_size;
mod service;
mod service_calibrate;
mod service_run;
mod sim_cli;
mod sim_clock_outputs;
mod voice_schedule;
