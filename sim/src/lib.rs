//! # tengen-sim
//!
//! A simulated tengen board on virtual time: it implements the `tengen-hal` traits, and
//! turns an SGF game or a script (the script language of sim/README.md) into physical actions.
//!
//! ## The loop API
//!
//! ```
//! use tengen_sim::{Simulation, SimOptions, FrameKind};
//!
//! let script = "size 9\nplace B C3\npress B\nplace W G7\npress W\n";
//! let mut sim = Simulation::from_script(script, &SimOptions::seeded(7)).unwrap();
//! let mut presses = 0;
//! while let Some((frame, buttons)) = sim.next_scan() {
//!     // frame.time advances 10 ms per scan at 100 Hz; frame.data is
//!     // FrameData::Classified (or Raw with `SimOptions { frames: FrameKind::Raw, .. }`).
//!     presses += buttons.iter().filter(|b| b.action == tengen_hal::ButtonAction::Press).count();
//! }
//! assert_eq!(presses, 2);
//! assert_eq!(sim.final_board().iter().flatten().count(), 2);
//! ```
//!
//! - [`Simulation::from_script`] / [`Simulation::from_parsed`] (a [`Script`] from
//!   [`Script::parse`]; its [`Setup`] tells size, komi, handicap, time control, seed and noise
//!   where the script gives them, `None` where the caller's config applies);
//!   [`Simulation::from_game`] for a game ([`GameInput`], e.g. from an SGF record via
//!   [`GameInput::from_record`], or directly [`Simulation::from_sgf`]) with [`GameOptions`] (thinking pace, injected
//!   [`Violation`]s, the ending); [`Simulation::from_steps`] for actions built in code.
//! - [`Simulation::next_scan`] advances virtual time by one scan period (100 Hz by default,
//!   scans at 0, 10, 20... ms) and returns the frame and the button events since the
//!   previous scan, until the actions and a tail ([`SimOptions::tail_ms`]) are over.
//! - In real time, or at any pace, use the hal traits instead: `SensorMatrix::scan(now)`
//!   and `ClockButtons::poll(now)` apply everything up to `now` (virtual ms; the service
//!   computes it as real elapsed time times `speed`). Do not mix the two styles.
//! - Ground truth: [`Simulation::truth`], [`Simulation::true_board`] (now),
//!   [`Simulation::final_board`], [`Simulation::actions`] (every action with its start and
//!   end time, script line, move number and injected violation).
//!
//! Same seed, same input, same options: the same frames and button events, bit for bit.
//! Human timing and sensor noise draw from separate ChaCha8 streams of the seed, so the
//! timing of a game does not change with the noise level.
//!
//! ## The physical model
//!
//! See [`physics`]: fields in stone units (+1 black, -1 white), 4% cross-talk per
//! neighbour, raw readings on `tengen_hal`'s default calibration (12-bit: baseline 2048,
//! black +614, white -614, ±8 counts of jitter). With noise `P` each point reads wrong in
//! each scan with probability `P` (as one of the three other states, uniformly); stuck
//! sensors read their state whatever is there; [`Flickers`] make single sensors read wrong
//! in some scans. Hands and stones in motion: see [`choreography`] (the human time of each
//! action is in the table there).
//!
//! ## Script language
//!
//! As `sim/README.md` writes it (see [`script`]), with these additions: an optional last time on
//! `place`, `press`, `lift`, `slide` and `knock` (`place B Q16 80ms`: the time from this
//! action's start to the next one's, the motion compressed if needed); an optional colour
//! on `hover` (`hover W Q15 R15 200ms`; default: the colour of the side to move, i.e. the
//! opposite of the last stone placed); `place B S1 T1` sets stones down together (the
//! resignation gesture); stuck states `B`, `W`, `E` (empty), `U` (unknown) and `off`.
//! `handicap N`: the simulator's Black sets the N handicap stones down (star points)
//! before the first action. `lift`, `slide` and `place` check the board: lifting an empty
//! point or placing on a stone is an error naming the line.
//!
//! ## Games
//!
//! Each move: think ([`ThinkTime`], log-normal), reach and place the stone (hover
//! transients on the way), lift each captured stone in a random order with 0.1-0.5 s
//! between, press the clock. A pass is a bare press. Two final passes: the dead stones
//! ([`GameInput::dead`]) are lifted, then the side to move and the other press to confirm.
//! `B+R`/`W+R`: the loser sets two stones down together on the two free points nearest
//! their own lower-right corner ([`side::lower_right_region`], which depends on
//! [`SimOptions::black_side`]), then presses their clock.
//!
//! ## The player displays
//!
//! [`ssd1306_emulator::Ssd1306Bus`] is an I2C bus with emulated SSD1306 displays on it: the
//! real driver (`tengen_hal::driver::Ssd1306Display`) writes to it, and
//! [`Ssd1306Bus::frame`](ssd1306_emulator::Ssd1306Bus::frame) gives what each player sees.

pub mod action;
pub mod choreography;
mod flicker;
pub mod game;
pub mod generated_game;
mod options;
pub mod physics;
pub mod script;
mod seeds;
pub mod sgf_input;
/// Where the players sit (the hal's: the referee and the config use the same).
pub use tengen_hal::side;
pub mod simulation;
pub mod ssd1306_emulator;
mod violation;

pub use action::{Action, Step, TimedAction};
pub use flicker::Flickers;
pub use game::{GameError, GameInput, GameOptions, ThinkTime};
pub use generated_game::{GeneratedSetup, GENERATED_MOVES};
pub use options::SimOptions;
pub use physics::{FrameKind, RawModel, World};
pub use script::{Script, ScriptError, Setup};
pub use side::Side;
pub use simulation::Simulation;
pub use violation::{Violation, ViolationKind};
