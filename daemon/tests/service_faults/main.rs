//! The board service under faults, in real time, in one test binary: kills and restarts
//! of `tengen run` against a real mosquitto (`service_kill`, `service_restart`) and the
//! fault campaign of the service (`fault_service`). Their tests spend their time waiting
//! on processes, not on the CPU, so two run side by side; they were three binaries.

#[path = "../support/board.rs"]
mod board;
#[path = "../support/broker.rs"]
mod broker;

mod fault_service;
mod service_kill;
mod service_restart;
