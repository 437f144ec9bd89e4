//! The players' side of the board (Art. 12.1): the two displays and the voice, each on its
//! own thread, following what the outputs say. The scan loop decides what to show and say
//! and when (the table's [`tengen_table::Schedule`], polled once per turn); these threads
//! only do the slow I/O, so a display that takes 27 ms per frame on its bus or a sound card
//! never holds up a scan.
//!
//! - **Displays** (`[display] driver = "ssd1306"`): each changed face is drawn with the
//!   table's one renderer, in `[display] lang`, and written to its SSD1306. On the `rpi` backend (and on the
//!   `serial` backend of a `--features rpi` build) they are on the Pi's I2C bus; on the
//!   `sim` backend they are two emulated SSD1306 on a simulated bus, driven by the same
//!   driver. A display that is missing or fails is logged (once a minute at most) and
//!   tried again every `RETRY`; the game never waits for it.
//! - **Voice** (`[voice] style = "voice"`, a build with `--features audio`): the clips in
//!   `voice.dir`, played through the default audio output; a new call cuts the one playing.
//!   `style = "beep"` is played by the backend on the buzzer pin instead.

use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::watch;

use tengen_hal::driver::ssd1306::{SharedI2c, Ssd1306Config, Ssd1306Display, Ssd1306Error};
use tengen_hal::{PlayerDisplay, Rotation};
use tengen_rules::Color;
use tengen_sim::ssd1306_emulator::{Ssd1306Bus, Ssd1306SetupError};
use tengen_table::{Face, Lang, VoiceStyle};

use super::outputs::{Outputs, PlayerFaces};
use crate::config::{Backend as BackendKind, Config, DisplayDriver};

/// How often a display that failed is tried again.
const RETRY: Duration = Duration::from_secs(5);

/// A display as the thread drives it.
type Display = Box<dyn PlayerDisplay<Error = Ssd1306Error> + Send>;

/// The running threads of the players' side.
#[derive(Debug)]
pub struct PlayerOutputs {
    stop: watch::Sender<bool>,
    displays: Option<JoinHandle<()>>,
}

impl PlayerOutputs {
    /// Starts the displays and the voice as `config` says, following `outputs`. Never
    /// fails: a display bus or a sound card that cannot be opened is logged and left out,
    /// so the board still referees and keeps time.
    pub fn start(config: &Config, outputs: &Outputs) -> PlayerOutputs {
        let (stop, stopped) = watch::channel(false);
        let lang = config.display.lang;
        let displays = open_displays(config).and_then(|pair| {
            let faces = outputs.subscribe_faces();
            std::thread::Builder::new()
                .name("tengen-displays".into())
                .spawn(move || drive_displays(pair, lang, faces, stopped, RETRY))
                .map_err(|e| tracing::warn!("player displays: no thread: {e}"))
                .ok()
        });
        start_voice(config, outputs);
        PlayerOutputs { stop, displays }
    }

    /// Stops the display thread (the voice ends with the outputs).
    pub fn stop(mut self) {
        let _ = self.stop.send(true);
        if let Some(t) = self.displays.take() {
            let _ = t.join();
        }
    }
}

/// Black's and White's displays as the config and the backend have them, if any.
fn open_displays(config: &Config) -> Option<[Display; 2]> {
    let d = &config.display;
    if d.driver == DisplayDriver::None {
        return None;
    }
    let black = Ssd1306Config::new(d.black_address, Rotation::from_upside_down(d.rotate_black));
    let white = Ssd1306Config::new(d.white_address, Rotation::from_upside_down(d.rotate_white));
    match config.hardware.backend {
        BackendKind::Sim => match emulated_displays(black, white) {
            Ok((pair, _bus)) => Some(pair),
            Err(e) => {
                tracing::warn!("player displays (emulated): {e}");
                None
            }
        },
        BackendKind::Rpi | BackendKind::Serial => pi_displays(d.i2c_bus, black, white),
    }
}

/// Two emulated SSD1306 on a simulated bus, mounted as configured (so each shows its frame
/// upright), driven by the real driver; and the bus, to look at what they show.
fn emulated_displays(
    black: Ssd1306Config,
    white: Ssd1306Config,
) -> Result<([Display; 2], SharedI2c<Ssd1306Bus>), Ssd1306SetupError> {
    let bus = SharedI2c::new(Ssd1306Bus::new(&[
        (black.address, black.rotation),
        (white.address, white.rotation),
    ])?);
    let b = Ssd1306Display::new(bus.clone(), black);
    let w = Ssd1306Display::new(bus.clone(), white);
    Ok(([Box::new(b), Box::new(w)], bus))
}

#[cfg(feature = "rpi")]
fn pi_displays(bus: u8, black: Ssd1306Config, white: Ssd1306Config) -> Option<[Display; 2]> {
    match tengen_hal::rpi::open_displays(bus, black, white) {
        Ok((b, w)) => Some([Box::new(b), Box::new(w)]),
        Err(e) => {
            tracing::warn!("player displays: {e}");
            None
        }
    }
}

#[cfg(not(feature = "rpi"))]
fn pi_displays(bus: u8, _black: Ssd1306Config, _white: Ssd1306Config) -> Option<[Display; 2]> {
    tracing::info!(
        "player displays on I2C bus {bus} need a build with `--features rpi`; none driven \
         (set [display] driver = \"none\" to say so)"
    );
    None
}

/// One display's state in the thread.
struct Driven {
    display: Display,
    color: Color,
    /// The language of the display's words.
    lang: Lang,
    /// The face on the glass (`None`: nothing yet, or the last write failed).
    shown: Option<Face>,
    /// The last failed write, to retry and to log at most once a minute.
    failed_at: Option<Instant>,
    logged_at: Option<Instant>,
    /// How long after a failed write it is tried again.
    retry: Duration,
}

impl Driven {
    fn update(&mut self, face: Option<&Face>) {
        let Some(face) = face else { return };
        let retry = self.failed_at.is_some_and(|t| t.elapsed() >= self.retry);
        if self.shown.as_ref() == Some(face) || (self.failed_at.is_some() && !retry) {
            return;
        }
        let frame = tengen_table::render_in(face, self.lang);
        match self.display.show(frame.pages()) {
            Ok(()) => {
                if self.failed_at.take().is_some() {
                    tracing::info!("{:?}'s display is back", self.color);
                }
                self.shown = Some(face.clone());
            }
            Err(e) => {
                self.shown = None;
                self.failed_at = Some(Instant::now());
                if self
                    .logged_at
                    .is_none_or(|t| t.elapsed() >= Duration::from_secs(60))
                {
                    tracing::warn!("{:?}'s display: {e}", self.color);
                    self.logged_at = Some(Instant::now());
                }
            }
        }
    }
}

/// The display thread: writes each changed face, in `lang`, until told to stop (or until the outputs or
/// the [`PlayerOutputs`] are gone); a display whose write failed is tried again `retry`
/// later. Between changes it sleeps: an idle board costs nothing here.
fn drive_displays(
    pair: [Display; 2],
    lang: Lang,
    mut faces: watch::Receiver<PlayerFaces>,
    mut stop: watch::Receiver<bool>,
    retry: Duration,
) {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            tracing::warn!("player displays: no timer: {e}");
            return;
        }
    };
    let [black, white] = pair;
    let driven = |display, color| Driven {
        display,
        color,
        lang,
        shown: None,
        failed_at: None,
        logged_at: None,
        retry,
    };
    let mut driven = [driven(black, Color::Black), driven(white, Color::White)];
    while !*stop.borrow() {
        let now = faces.borrow_and_update().clone();
        for d in &mut driven {
            d.update(now.get(d.color));
        }
        // Sleep until a face changes, the stop, or the next retry of a failed display.
        let retry_in = driven
            .iter()
            .filter_map(|d| d.failed_at.map(|t| retry.saturating_sub(t.elapsed())))
            .min();
        let go_on = runtime.block_on(async {
            let retried = async {
                match retry_in {
                    Some(wait) => tokio::time::sleep(wait).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                changed = faces.changed() => changed.is_ok(),
                _ = stop.changed() => false,
                () = retried => true,
            }
        });
        if !go_on {
            break;
        }
    }
}

#[cfg(feature = "audio")]
fn start_voice(config: &Config, outputs: &Outputs) {
    if config.voice.style != VoiceStyle::Voice {
        return;
    }
    let v = config.voice.clone();
    let sounds = outputs.subscribe_sounds();
    let spawned = std::thread::Builder::new()
        .name("tengen-voice".into())
        .spawn(move || voice::run(&v, sounds));
    if let Err(e) = spawned {
        tracing::warn!("voice: no thread: {e}");
    }
}

#[cfg(not(feature = "audio"))]
fn start_voice(config: &Config, _outputs: &Outputs) {
    if config.voice.style == VoiceStyle::Voice {
        tracing::info!(
            "voice: this build has no audio output (`--features audio`): the count is \
             published as byoyomi events and shown on the displays, not spoken"
        );
    }
}

#[cfg(feature = "audio")]
mod voice {
    //! The voice thread: each call's clips through the default audio output.

    use tokio::sync::broadcast;

    use tengen_table::clips::ClipSet;
    use tengen_table::Sound;

    use crate::config::VoiceConfig;

    /// The rate the clips are played at (what `tengen voice` renders).
    const RATE: u32 = 22_050;

    pub(super) fn run(v: &VoiceConfig, mut sounds: broadcast::Receiver<Sound>) {
        let clips = match ClipSet::load(&v.dir, RATE) {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!("voice: {e}; the board stays silent");
                return;
            }
        };
        let stream = match rodio::OutputStreamBuilder::open_default_stream() {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!("voice: no audio output: {e}; the board stays silent");
                return;
            }
        };
        let volume = v.volume as f32;
        let mut playing: Option<rodio::Sink> = None;
        loop {
            let sound = match sounds.blocking_recv() {
                Ok(s) => s,
                // A call missed while this thread lagged is not said late.
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return,
            };
            // A new call cuts the one playing: dropping its sink stops it.
            drop(playing.take());
            let pcm = clips.pcm_for(&sound);
            let samples: Vec<f32> = pcm
                .samples
                .iter()
                .map(|&s| f32::from(s) / 32_768.0 * volume)
                .collect();
            let sink = rodio::Sink::connect_new(stream.mixer());
            sink.append(rodio::buffer::SamplesBuffer::new(1, pcm.rate, samples));
            playing = Some(sink);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_protocol::event::GameSetup;
    use tengen_protocol::{Event, GameView, Timestamp};

    fn faces(view: &GameView, ms: u64) -> PlayerFaces {
        let at = Timestamp::from_millis(ms);
        PlayerFaces {
            black: Some(Face::of(view, Color::Black, at)),
            white: Some(Face::of(view, Color::White, at)),
        }
    }

    /// The retry period in the test: short, so the wait does not race the real one.
    const TEST_RETRY: Duration = Duration::from_millis(50);

    fn wait_for(what: &str, ok: impl Fn() -> bool) {
        let start = Instant::now();
        while !ok() {
            assert!(start.elapsed() < Duration::from_secs(30), "{what}");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// The display thread through the real driver and the emulated SSD1306: each display
    /// shows its player's face exactly as the renderer draws it (the White one mounted
    /// upside down and driven so), follows a change, and comes back after being unplugged.
    #[test]
    fn the_display_thread_shows_each_face_and_survives_an_unplugged_display() {
        let black = Ssd1306Config::new(0x3C, Rotation::Upright);
        let white = Ssd1306Config::new(0x3D, Rotation::UpsideDown);
        let (pair, bus) = emulated_displays(black, white).unwrap();
        let (tx, rx) = watch::channel(PlayerFaces::default());
        let (stop, stopped) = watch::channel(false);
        let thread =
            std::thread::spawn(move || drive_displays(pair, Lang::En, rx, stopped, TEST_RETRY));
        let shows = |address: u8, face: &Face| {
            bus.lock().frame(address).as_ref() == Some(tengen_table::render(face).pages())
        };
        let mut view = GameView::new();
        let before = faces(&view, 0);
        tx.send(before.clone()).unwrap();
        wait_for("the idle faces", || {
            shows(0x3C, before.black.as_ref().unwrap())
                && shows(0x3D, before.white.as_ref().unwrap())
        });
        view.apply(
            &Event::GameStarted(GameSetup::default()),
            Timestamp::from_millis(1_000),
        )
        .unwrap();
        let game = faces(&view, 2_000);
        assert_ne!(game, before);
        bus.lock().set_connected(0x3D, false);
        tx.send(game.clone()).unwrap();
        wait_for("Black's display follows", || {
            shows(0x3C, game.black.as_ref().unwrap())
        });
        bus.lock().set_connected(0x3D, true);
        // Tried again within TEST_RETRY (and the wait allows a loaded CI machine).
        wait_for("White's display is back", || {
            shows(0x3D, game.white.as_ref().unwrap())
        });
        stop.send(true).unwrap();
        thread.join().unwrap();
    }

    /// `[display] lang = "zh"`: both displays show their faces in Chinese, Chinese names
    /// drawn, through the real driver on the emulated SSD1306; not the English frames.
    #[test]
    fn the_displays_speak_the_configured_language() {
        let black = Ssd1306Config::new(0x3C, Rotation::Upright);
        let white = Ssd1306Config::new(0x3D, Rotation::Upright);
        let (pair, bus) = emulated_displays(black, white).unwrap();
        let (tx, rx) = watch::channel(PlayerFaces::default());
        let (stop, stopped) = watch::channel(false);
        let thread =
            std::thread::spawn(move || drive_displays(pair, Lang::Zh, rx, stopped, TEST_RETRY));
        let mut view = GameView::new();
        let setup = GameSetup {
            black: "柯洁".into(),
            white: "芈昱廷".into(),
            time_control: tengen_rules::clock::TimeControl::parse("byoyomi 60m 5x60s").unwrap(),
            ..GameSetup::default()
        };
        view.apply(&Event::GameStarted(setup), Timestamp::from_millis(1_000))
            .unwrap();
        let game = faces(&view, 2_000);
        tx.send(game.clone()).unwrap();
        for (address, face) in [(0x3C, &game.black), (0x3D, &game.white)] {
            let face = face.as_ref().unwrap();
            let zh = tengen_table::render_in(face, Lang::Zh);
            assert!(zh != tengen_table::render(face));
            wait_for("the Chinese face", || {
                bus.lock().frame(address).as_ref() == Some(zh.pages())
            });
        }
        stop.send(true).unwrap();
        thread.join().unwrap();
    }
}
