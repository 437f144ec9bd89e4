//! A player display's picture: [`MonoFrame`], 128x64 pixels of one bit, stored the way an
//! SSD1306 holds them (GDDRAM pages), an embedded-graphics draw target, and its PNG.

use std::fmt;
use std::io::Cursor;

use embedded_graphics::pixelcolor::BinaryColor;
use embedded_graphics::prelude::{DrawTarget, OriginDimensions, Pixel, Size};
use embedded_graphics::primitives::Rectangle;
use thiserror::Error;

/// Width of a frame, in pixels.
pub const WIDTH: u32 = 128;
/// Height of a frame, in pixels.
pub const HEIGHT: u32 = 64;
/// Bytes of a frame: 8 pages of 128 columns, one byte per column and page.
pub const BYTES: usize = (WIDTH * HEIGHT / 8) as usize;
/// The largest scale [`MonoFrame::to_png`] writes and [`MonoFrame::from_png`] reads.
pub const MAX_SCALE: u32 = 16;

/// Why a PNG is not a frame.
#[derive(Debug, Error)]
pub enum FrameError {
    /// The bytes are not a PNG that can be decoded (corrupt, truncated, not a PNG).
    #[error("not a readable PNG: {0}")]
    Png(#[source] png::DecodingError),
    /// The image is not 128x64 or a whole multiple of it (up to [`MAX_SCALE`]).
    #[error(
        "a {width}x{height} image is not a 128x64 frame (nor one scaled up to {MAX_SCALE} times)"
    )]
    Size {
        /// The image's width.
        width: u32,
        /// The image's height.
        height: u32,
    },
}

/// 128x64 one-bit pixels in SSD1306 GDDRAM layout: byte `page * 128 + column`, bit `k`
/// of it is the pixel in row `page * 8 + k` (bit 0 at the top). `true` (on) is a lit pixel.
///
/// Its `Debug` form is the picture, one text line per row (`#` on, `.` off), so a failed
/// comparison shows what differs.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct MonoFrame {
    pages: [u8; BYTES],
}

impl Default for MonoFrame {
    fn default() -> MonoFrame {
        MonoFrame::new()
    }
}

impl MonoFrame {
    /// A dark frame.
    pub const fn new() -> MonoFrame {
        MonoFrame { pages: [0; BYTES] }
    }

    /// A frame from the display's memory, as [`MonoFrame::pages`] gives it.
    pub const fn from_pages(pages: [u8; BYTES]) -> MonoFrame {
        MonoFrame { pages }
    }

    /// The display's memory: what an SSD1306 in horizontal addressing mode is sent, from
    /// page 0, column 0.
    pub fn pages(&self) -> &[u8; BYTES] {
        &self.pages
    }

    /// True when the pixel at column `x`, row `y` is lit (false off the frame).
    pub fn pixel(&self, x: u32, y: u32) -> bool {
        if x >= WIDTH || y >= HEIGHT {
            return false;
        }
        self.pages[index(x, y)] & (1 << (y % 8)) != 0
    }

    /// Lights (`on`) or darkens the pixel at column `x`, row `y`; nothing off the frame.
    pub fn set_pixel(&mut self, x: u32, y: u32, on: bool) {
        if x >= WIDTH || y >= HEIGHT {
            return;
        }
        let bit = 1 << (y % 8);
        let byte = &mut self.pages[index(x, y)];
        if on {
            *byte |= bit;
        } else {
            *byte &= !bit;
        }
    }

    /// How many pixels are lit.
    pub fn lit(&self) -> u32 {
        self.pages.iter().map(|b| b.count_ones()).sum()
    }

    /// The frame as a PNG, each pixel a `scale` x `scale` square (`scale` taken in
    /// 1..=[`MAX_SCALE`]), 1-bit greyscale: lit pixels white on black, as on the OLED.
    pub fn to_png(&self, scale: u32) -> Vec<u8> {
        let scale = scale.clamp(1, MAX_SCALE);
        let (w, h) = (WIDTH * scale, HEIGHT * scale);
        let row_bytes = w.div_ceil(8) as usize;
        let mut data = vec![0u8; row_bytes * h as usize];
        for (y, row) in (0..h).zip(data.chunks_exact_mut(row_bytes)) {
            for x in 0..w {
                if self.pixel(x / scale, y / scale) {
                    row[(x / 8) as usize] |= 0x80 >> (x % 8);
                }
            }
        }
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, w, h);
        encoder.set_color(png::ColorType::Grayscale);
        encoder.set_depth(png::BitDepth::One);
        encoder.set_compression(png::Compression::Fast);
        // Writing a well-formed image into memory does not fail; should the encoder ever
        // refuse, the caller gets an empty file rather than a panic.
        let written = encoder.write_header().and_then(|mut writer| {
            writer
                .write_image_data(&data)
                .and_then(|()| writer.finish())
        });
        if written.is_err() {
            return Vec::new();
        }
        out
    }

    /// Reads a frame back from a PNG as [`MonoFrame::to_png`] writes it, at any scale up to
    /// [`MAX_SCALE`], in any colour type and depth: a pixel is lit where the centre of its
    /// square is light (luma at least half).
    pub fn from_png(bytes: &[u8]) -> Result<MonoFrame, FrameError> {
        // The largest image accepted, 2048x1024 RGBA, is 8 MiB; a header claiming more is
        // refused before anything that size is allocated.
        let limits = png::Limits { bytes: 1 << 25 };
        let mut decoder = png::Decoder::new_with_limits(Cursor::new(bytes), limits);
        decoder.set_transformations(png::Transformations::normalize_to_color8());
        let mut reader = decoder.read_info().map_err(FrameError::Png)?;
        let (width, height) = reader.info().size();
        let scale = width / WIDTH;
        if scale == 0 || scale > MAX_SCALE || width != WIDTH * scale || height != HEIGHT * scale {
            return Err(FrameError::Size { width, height });
        }
        let (color, _) = reader.output_color_type();
        let channels = color.samples();
        let size = reader
            .output_buffer_size()
            .ok_or(FrameError::Size { width, height })?;
        let mut buf = vec![0; size];
        let info = reader.next_frame(&mut buf).map_err(FrameError::Png)?;
        let line = info.line_size;
        let mut frame = MonoFrame::new();
        for y in 0..HEIGHT {
            for x in 0..WIDTH {
                let (px, py) = (x * scale + scale / 2, y * scale + scale / 2);
                let at = py as usize * line + px as usize * channels;
                let sample = |i: usize| u32::from(buf.get(at + i).copied().unwrap_or(0));
                let luma = match color {
                    png::ColorType::Rgb | png::ColorType::Rgba => {
                        (299 * sample(0) + 587 * sample(1) + 114 * sample(2)) / 1000
                    }
                    _ => sample(0),
                };
                frame.set_pixel(x, y, luma >= 128);
            }
        }
        Ok(frame)
    }

    /// Sets every pixel of `area` (clipped to the frame) to `on`.
    fn fill(&mut self, area: &Rectangle, on: bool) {
        let Some(bottom_right) = area.bottom_right() else {
            return;
        };
        let x0 = area.top_left.x.max(0);
        let y0 = area.top_left.y.max(0);
        let x1 = bottom_right.x.min(WIDTH as i32 - 1);
        let y1 = bottom_right.y.min(HEIGHT as i32 - 1);
        for y in y0..=y1 {
            for x in x0..=x1 {
                self.set_pixel(x as u32, y as u32, on);
            }
        }
    }
}

/// The byte holding pixel (`x`, `y`).
fn index(x: u32, y: u32) -> usize {
    (y / 8 * WIDTH + x) as usize
}

impl fmt::Debug for MonoFrame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "MonoFrame (# lit):")?;
        for y in 0..HEIGHT {
            for x in 0..WIDTH {
                f.write_str(if self.pixel(x, y) { "#" } else { "." })?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

impl OriginDimensions for MonoFrame {
    fn size(&self) -> Size {
        Size::new(WIDTH, HEIGHT)
    }
}

impl DrawTarget for MonoFrame {
    type Color = BinaryColor;
    type Error = core::convert::Infallible;

    fn draw_iter<I>(&mut self, pixels: I) -> Result<(), Self::Error>
    where
        I: IntoIterator<Item = Pixel<Self::Color>>,
    {
        for Pixel(point, color) in pixels {
            if let (Ok(x), Ok(y)) = (u32::try_from(point.x), u32::try_from(point.y)) {
                self.set_pixel(x, y, color.is_on());
            }
        }
        Ok(())
    }

    fn fill_solid(&mut self, area: &Rectangle, color: Self::Color) -> Result<(), Self::Error> {
        self.fill(area, color.is_on());
        Ok(())
    }

    fn clear(&mut self, color: Self::Color) -> Result<(), Self::Error> {
        self.pages = [if color.is_on() { 0xff } else { 0 }; BYTES];
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use embedded_graphics::prelude::*;
    use embedded_graphics::primitives::{PrimitiveStyle, Rectangle};

    use super::*;

    #[test]
    fn pixels_are_stored_as_the_ssd1306_pages() {
        let mut f = MonoFrame::new();
        f.set_pixel(0, 0, true);
        f.set_pixel(5, 9, true);
        f.set_pixel(127, 63, true);
        assert_eq!(f.pages()[0], 0b1);
        assert_eq!(f.pages()[128 + 5], 0b10);
        assert_eq!(f.pages()[7 * 128 + 127], 0b1000_0000);
        assert!(f.pixel(5, 9) && !f.pixel(5, 8) && !f.pixel(200, 9));
        assert_eq!(f.lit(), 3);
        f.set_pixel(5, 9, false);
        assert_eq!(f.lit(), 2);
    }

    #[test]
    fn draws_with_embedded_graphics_clipped_to_the_frame() {
        let mut f = MonoFrame::new();
        Rectangle::new(Point::new(120, 60), Size::new(20, 20))
            .into_styled(PrimitiveStyle::with_fill(BinaryColor::On))
            .draw(&mut f)
            .unwrap();
        assert_eq!(f.lit(), 8 * 4);
        Pixel(Point::new(-1, 3), BinaryColor::On)
            .draw(&mut f)
            .unwrap();
        assert_eq!(f.lit(), 8 * 4);
        f.clear(BinaryColor::On).unwrap();
        assert_eq!(f.lit(), 128 * 64);
    }

    #[test]
    fn png_round_trip_at_any_scale() {
        let mut f = MonoFrame::new();
        for i in 0..64 {
            f.set_pixel(i * 2, i, true);
            f.set_pixel(3, i, i % 3 == 0);
        }
        for scale in [1, 2, 4, 16] {
            let png = f.to_png(scale);
            assert_eq!(MonoFrame::from_png(&png).unwrap(), f, "scale {scale}");
        }
    }

    proptest::proptest! {
        /// Any damage to a PNG is an error or some frame, never a panic.
        #[test]
        fn damaged_pngs_never_panic(
            flips in proptest::collection::vec((0usize..4096, 1u8..=255), 1..8),
            cut in 0usize..4096,
        ) {
            let mut f = MonoFrame::new();
            f.set_pixel(7, 7, true);
            let mut png = f.to_png(2);
            for (at, x) in flips {
                let n = png.len();
                png[at % n] ^= x;
            }
            let n = png.len();
            png.truncate(n - cut % n);
            let _ = MonoFrame::from_png(&png);
        }
    }

    #[test]
    fn a_corrupt_or_wrong_png_is_an_error() {
        let png = MonoFrame::new().to_png(1);
        for cut in [0, 8, 20, 40, png.len() - 13] {
            let e = MonoFrame::from_png(&png[..cut]).unwrap_err();
            assert!(matches!(e, FrameError::Png(_)), "{cut}: {e}");
        }
        let mut flipped = png.clone();
        let n = flipped.len();
        flipped[n - 20] ^= 0x55;
        assert!(MonoFrame::from_png(&flipped).is_err());
        assert!(MonoFrame::from_png(b"not a png at all").is_err());

        let mut out = Vec::new();
        let mut enc = png::Encoder::new(&mut out, 100, 50);
        enc.set_color(png::ColorType::Grayscale);
        let mut w = enc.write_header().unwrap();
        w.write_image_data(&[0; 5000]).unwrap();
        w.finish().unwrap();
        let e = MonoFrame::from_png(&out).unwrap_err();
        assert_eq!(
            e.to_string(),
            "a 100x50 image is not a 128x64 frame (nor one scaled up to 16 times)"
        );
    }
}
