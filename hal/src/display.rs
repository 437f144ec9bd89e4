//! The player displays: one 128x64 monochrome screen facing each player (Art. 12.1: the
//! players read their time), the trait every display backend implements, and the frame
//! format they all take.
//!
//! A frame is [`FRAME_BYTES`] bytes in the SSD1306's GDDRAM page layout, as the player sees
//! it upright: byte `page * WIDTH + x` holds the column `x` of the 8-pixel page `page`, and
//! its bit `k` is the pixel on row `page * 8 + k` (row 0 at the top, column 0 at the left).
//! A lit pixel is a 1. A driver sends it to the controller as it is; turning it for a screen
//! mounted upside down is the driver's business ([`Rotation`]), not the frame's.

use serde::{Deserialize, Serialize};

/// Width of a player display in pixels.
pub const WIDTH: usize = 128;

/// Height of a player display in pixels.
pub const HEIGHT: usize = 64;

/// Number of 8-pixel pages (rows of bytes) in a frame.
pub const PAGES: usize = HEIGHT / 8;

/// Size of one frame in bytes: one bit per pixel.
pub const FRAME_BYTES: usize = WIDTH * HEIGHT / 8;

/// One whole screen in GDDRAM page layout (see the module documentation).
pub type DisplayFrame = [u8; FRAME_BYTES];

/// How a display is mounted in the board (the `rotate_black` / `rotate_white` config keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Rotation {
    /// The module's normal orientation: the frame is sent as it is.
    #[default]
    Upright,
    /// Mounted upside down: the controller is told to turn the image by 180 degrees.
    UpsideDown,
}

impl Rotation {
    /// `UpsideDown` when `upside_down` (the config's boolean), else `Upright`.
    pub const fn from_upside_down(upside_down: bool) -> Rotation {
        if upside_down {
            Rotation::UpsideDown
        } else {
            Rotation::Upright
        }
    }

    /// Whether the display is mounted upside down.
    pub const fn is_upside_down(self) -> bool {
        matches!(self, Rotation::UpsideDown)
    }
}

/// A screen facing one player.
pub trait PlayerDisplay {
    /// The backend's error.
    type Error: std::error::Error + Send + Sync + 'static;
    /// Shows `frame` (upright as the player sees it). A backend may skip the work when the
    /// frame is the one it already shows, so calling this at a fixed rate is cheap.
    fn show(&mut self, frame: &DisplayFrame) -> Result<(), Self::Error>;
}

impl<D: PlayerDisplay + ?Sized> PlayerDisplay for &mut D {
    type Error = D::Error;

    fn show(&mut self, frame: &DisplayFrame) -> Result<(), D::Error> {
        (**self).show(frame)
    }
}

/// Whether the pixel at column `x`, row `y` (from the top left) is lit; `false` off the
/// screen.
pub fn pixel(frame: &DisplayFrame, x: usize, y: usize) -> bool {
    if x >= WIDTH || y >= HEIGHT {
        return false;
    }
    frame[(y / 8) * WIDTH + x] & (1 << (y % 8)) != 0
}

/// Lights (`on`) or clears the pixel at column `x`, row `y`; a pixel off the screen is
/// ignored.
pub fn set_pixel(frame: &mut DisplayFrame, x: usize, y: usize, on: bool) {
    if x >= WIDTH || y >= HEIGHT {
        return;
    }
    let byte = &mut frame[(y / 8) * WIDTH + x];
    let bit = 1 << (y % 8);
    if on {
        *byte |= bit;
    } else {
        *byte &= !bit;
    }
}

/// The frame turned by 180 degrees (what an upside-down screen shows of an unturned frame).
pub fn rotate_180(frame: &DisplayFrame) -> DisplayFrame {
    let mut out = [0u8; FRAME_BYTES];
    for (i, &byte) in frame.iter().enumerate() {
        // Column x of page p lands on column WIDTH-1-x of page PAGES-1-p, bits reversed.
        out[FRAME_BYTES - 1 - i] = byte.reverse_bits();
    }
    out
}
