//! The SSD1306 display driver against `embedded-hal-mock`: the exact initialisation, one
//! frame's transactions, the skipped repeat, a bus error as a typed error naming the
//! address, and the recovery that follows it.

use embedded_hal::i2c::{ErrorKind, NoAcknowledgeSource};
use embedded_hal_mock::eh1::i2c::{Mock as I2cMock, Transaction as I2cTx};
use tengen_hal::display::{rotate_180, set_pixel, DisplayFrame, Rotation, FRAME_BYTES};
use tengen_hal::driver::{
    SharedI2c, Ssd1306Config, Ssd1306Display, Ssd1306Error, BLACK_ADDRESS, WHITE_ADDRESS,
};
use tengen_hal::PlayerDisplay;

/// One command transaction: control byte 0x00, then the command bytes.
fn cmd(address: u8, bytes: &[u8]) -> I2cTx {
    let mut v = vec![0x00];
    v.extend_from_slice(bytes);
    I2cTx::write(address, v)
}

/// The whole initialisation at `address`: the `ssd1306` crate's sequence, then the panel
/// off again and the contrast.
fn init(address: u8, rotation: Rotation, contrast: u8) -> Vec<I2cTx> {
    let (remap, com) = match rotation {
        Rotation::Upright => (0xA1, 0xC8),
        Rotation::UpsideDown => (0xA0, 0xC0),
    };
    vec![
        cmd(address, &[0xAE]),       // display off
        cmd(address, &[0xD5, 0x80]), // clock divide / oscillator
        cmd(address, &[0xA8, 0x3F]), // multiplex ratio 64
        cmd(address, &[0xD3, 0x00]), // display offset 0
        cmd(address, &[0x40]),       // start line 0
        cmd(address, &[0x8D, 0x14]), // charge pump on
        cmd(address, &[0x20, 0x00]), // horizontal addressing
        cmd(address, &[0xDA, 0x12]), // COM pins: alternative (128x64)
        cmd(address, &[remap]),      // segment remap
        cmd(address, &[com]),        // COM scan direction
        cmd(address, &[0xD9, 0x21]), // pre-charge (crate default brightness)
        cmd(address, &[0x81, 0x5F]), // contrast (crate default brightness)
        cmd(address, &[0xDB, 0x40]), // VCOMH deselect
        cmd(address, &[0xA4]),       // display follows RAM
        cmd(address, &[0xA6]),       // not inverted
        cmd(address, &[0x2E]),       // no scrolling
        cmd(address, &[0xAF]),       // display on (the crate's last step)
        cmd(address, &[0xAE]),       // ours: off until the first frame is in RAM
        cmd(address, &[0xD9, 0x21]), // ours: pre-charge
        cmd(address, &[0x81, contrast]),
    ]
}

/// One whole frame: the column and page windows, 64 data writes of 16 bytes.
fn frame_writes(address: u8, frame: &DisplayFrame) -> Vec<I2cTx> {
    let mut v = vec![
        cmd(address, &[0x21, 0x00, 0x7F]),
        cmd(address, &[0x22, 0x00, 0x07]),
    ];
    for chunk in frame.chunks(16) {
        let mut data = vec![0x40];
        data.extend_from_slice(chunk);
        v.push(I2cTx::write(address, data));
    }
    v
}

fn pattern(seed: u8) -> DisplayFrame {
    let mut f = [0u8; FRAME_BYTES];
    for (i, b) in f.iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(37).wrapping_add(seed);
    }
    f
}

#[test]
fn init_sequence_is_exact() {
    for (rotation, contrast) in [(Rotation::Upright, 0x7F), (Rotation::UpsideDown, 0xC0)] {
        let expected = init(BLACK_ADDRESS, rotation, contrast);
        let mut i2c = I2cMock::new(&expected);
        let mut config = Ssd1306Config::new(BLACK_ADDRESS, rotation);
        config.contrast = contrast;
        let mut display = Ssd1306Display::new(i2c.clone(), config);
        display.init().unwrap();
        assert!(!display.is_on(), "dark until the first frame");
        assert_eq!(display.stats().inits, 1);
        i2c.done();
    }
}

#[test]
fn first_show_initialises_then_writes_the_whole_frame_and_turns_the_panel_on() {
    let frame = pattern(1);
    let mut expected = init(BLACK_ADDRESS, Rotation::Upright, 0x7F);
    expected.extend(frame_writes(BLACK_ADDRESS, &frame));
    expected.push(cmd(BLACK_ADDRESS, &[0xAF]));
    let mut i2c = I2cMock::new(&expected);
    let mut display = Ssd1306Display::new(i2c.clone(), Ssd1306Config::new(0x3C, Rotation::Upright));
    display.show(&frame).unwrap();
    assert!(display.is_on());
    assert_eq!(display.stats().frames_written, 1);
    i2c.done();
}

#[test]
fn one_frame_after_init_and_nothing_for_the_same_frame_again() {
    let first = pattern(1);
    let mut second = first;
    set_pixel(
        &mut second,
        127,
        63,
        !tengen_hal::display::pixel(&first, 127, 63),
    );
    let mut expected = init(BLACK_ADDRESS, Rotation::Upright, 0x7F);
    expected.extend(frame_writes(BLACK_ADDRESS, &first));
    expected.push(cmd(BLACK_ADDRESS, &[0xAF]));
    // One changed pixel: the whole frame again, the panel already on.
    expected.extend(frame_writes(BLACK_ADDRESS, &second));
    let mut i2c = I2cMock::new(&expected);
    let mut display = Ssd1306Display::new(i2c.clone(), Ssd1306Config::new(0x3C, Rotation::Upright));
    display.init().unwrap();
    display.show(&first).unwrap();
    for _ in 0..10 {
        display.show(&first).unwrap(); // 10 Hz of the same frame: no bus traffic
    }
    display.show(&second).unwrap();
    display.show(&second).unwrap();
    let stats = display.stats();
    assert_eq!(stats.frames_written, 2);
    assert_eq!(stats.frames_skipped, 11);
    assert_eq!(stats.inits, 1);
    i2c.done();
}

#[test]
fn the_frame_goes_out_unturned_whatever_the_rotation() {
    // Turning is the controller's job (segment remap, COM direction), not the driver's.
    let frame = pattern(9);
    assert_ne!(rotate_180(&frame), frame);
    let mut expected = init(WHITE_ADDRESS, Rotation::UpsideDown, 0x7F);
    expected.extend(frame_writes(WHITE_ADDRESS, &frame));
    expected.push(cmd(WHITE_ADDRESS, &[0xAF]));
    let mut i2c = I2cMock::new(&expected);
    let mut display = Ssd1306Display::new(
        i2c.clone(),
        Ssd1306Config::new(WHITE_ADDRESS, Rotation::UpsideDown),
    );
    display.show(&frame).unwrap();
    i2c.done();
}

#[test]
fn blank_then_the_same_frame_only_turns_the_panel_on() {
    let frame = pattern(3);
    let mut expected = init(BLACK_ADDRESS, Rotation::Upright, 0x7F);
    expected.extend(frame_writes(BLACK_ADDRESS, &frame));
    expected.push(cmd(BLACK_ADDRESS, &[0xAF]));
    expected.push(cmd(BLACK_ADDRESS, &[0xAE])); // blank
    expected.push(cmd(BLACK_ADDRESS, &[0xAF])); // same frame: on again
    expected.push(cmd(BLACK_ADDRESS, &[0xD9, 0x21])); // a new contrast
    expected.push(cmd(BLACK_ADDRESS, &[0x81, 0x10]));
    let mut i2c = I2cMock::new(&expected);
    let mut display = Ssd1306Display::new(i2c.clone(), Ssd1306Config::new(0x3C, Rotation::Upright));
    display.show(&frame).unwrap();
    display.blank().unwrap();
    assert!(!display.is_on());
    display.blank().unwrap(); // already dark: nothing
    display.show(&frame).unwrap();
    assert!(display.is_on());
    display.set_contrast(0x10).unwrap();
    i2c.done();
}

#[test]
fn a_bus_error_is_typed_names_the_address_and_the_next_show_starts_over() {
    let nack = ErrorKind::NoAcknowledge(NoAcknowledgeSource::Address);
    let frame = pattern(5);
    let mut expected = init(BLACK_ADDRESS, Rotation::Upright, 0x7F);
    expected.extend(frame_writes(BLACK_ADDRESS, &frame));
    expected.push(cmd(BLACK_ADDRESS, &[0xAF]));
    // The module is unplugged: the next frame's third data write is not acknowledged.
    let next = pattern(6);
    let writes = frame_writes(BLACK_ADDRESS, &next);
    expected.extend(writes[..4].iter().cloned());
    let failing = writes[4].clone().with_error(nack);
    expected.push(failing);
    // Plugged back in: the next show initialises again and writes the whole frame.
    expected.extend(init(BLACK_ADDRESS, Rotation::Upright, 0x7F));
    expected.extend(frame_writes(BLACK_ADDRESS, &next));
    expected.push(cmd(BLACK_ADDRESS, &[0xAF]));
    let mut i2c = I2cMock::new(&expected);
    let mut display = Ssd1306Display::new(i2c.clone(), Ssd1306Config::new(0x3C, Rotation::Upright));
    display.show(&frame).unwrap();
    let err = display.show(&next).unwrap_err();
    assert_eq!(
        err,
        Ssd1306Error::Bus {
            address: 0x3C,
            kind: nack,
            detail: format!("{nack:?}"),
        }
    );
    assert_eq!(err.address(), 0x3C);
    let text = err.to_string();
    assert!(text.starts_with("display at I2C address 0x3c: "), "{text}");
    assert!(!display.is_on());
    assert_eq!(display.stats().errors, 1);
    display.show(&next).unwrap();
    assert!(display.is_on());
    assert_eq!(display.stats().inits, 2);
    i2c.done();
}

#[test]
fn an_error_during_init_is_typed_too() {
    let expected = [cmd(WHITE_ADDRESS, &[0xAE]).with_error(ErrorKind::Bus)];
    let mut i2c = I2cMock::new(&expected);
    let mut display = Ssd1306Display::new(
        i2c.clone(),
        Ssd1306Config::new(WHITE_ADDRESS, Rotation::Upright),
    );
    let err = display.show(&pattern(0)).unwrap_err();
    assert!(matches!(
        err,
        Ssd1306Error::Bus {
            address: 0x3D,
            kind: ErrorKind::Bus,
            ..
        }
    ));
    i2c.done();
}

#[test]
fn two_displays_share_one_bus() {
    let black_frame = pattern(1);
    let white_frame = pattern(2);
    let mut expected = init(BLACK_ADDRESS, Rotation::Upright, 0x7F);
    expected.extend(init(WHITE_ADDRESS, Rotation::UpsideDown, 0x7F));
    expected.extend(frame_writes(BLACK_ADDRESS, &black_frame));
    expected.push(cmd(BLACK_ADDRESS, &[0xAF]));
    expected.extend(frame_writes(WHITE_ADDRESS, &white_frame));
    expected.push(cmd(WHITE_ADDRESS, &[0xAF]));
    let i2c = I2cMock::new(&expected);
    let (mut black, mut white) = Ssd1306Display::pair(
        i2c,
        Ssd1306Config::new(BLACK_ADDRESS, Rotation::Upright),
        Ssd1306Config::new(WHITE_ADDRESS, Rotation::UpsideDown),
    );
    black.init().unwrap();
    white.init().unwrap();
    black.show(&black_frame).unwrap();
    white.show(&white_frame).unwrap();
    black.show(&black_frame).unwrap();
    white.show(&white_frame).unwrap();
    let bus: SharedI2c<I2cMock> = black.release();
    drop(white);
    bus.lock().done();
}

#[test]
fn a_display_on_a_shared_bus_can_move_to_another_thread() {
    fn send<T: Send + 'static>(_: &T) {}
    let frame = pattern(4);
    let mut expected = init(BLACK_ADDRESS, Rotation::Upright, 0x7F);
    expected.extend(frame_writes(BLACK_ADDRESS, &frame));
    expected.push(cmd(BLACK_ADDRESS, &[0xAF]));
    let mut i2c = I2cMock::new(&expected);
    let mut display = Ssd1306Display::new(
        SharedI2c::new(i2c.clone()),
        Ssd1306Config::new(BLACK_ADDRESS, Rotation::Upright),
    );
    send(&display);
    std::thread::spawn(move || display.show(&frame))
        .join()
        .unwrap()
        .unwrap();
    i2c.done();
}

#[test]
fn frame_helpers_follow_the_page_layout() {
    use tengen_hal::display::{pixel, HEIGHT, WIDTH};
    let mut f = [0u8; FRAME_BYTES];
    set_pixel(&mut f, 5, 10, true); // page 1, bit 2
    assert_eq!(f[128 + 5], 0b100);
    assert!(pixel(&f, 5, 10));
    set_pixel(&mut f, WIDTH, 0, true); // off the screen: ignored
    assert!(!pixel(&f, 0, HEIGHT));
    let f = pattern(7);
    let r = rotate_180(&f);
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            assert_eq!(pixel(&r, WIDTH - 1 - x, HEIGHT - 1 - y), pixel(&f, x, y));
        }
    }
    assert_eq!(rotate_180(&r), f);
    assert_eq!(Rotation::from_upside_down(true), Rotation::UpsideDown);
    assert!(!Rotation::default().is_upside_down());
}
