//! The real SSD1306 driver (`tengen_hal::driver::Ssd1306Display`) over the emulated bus:
//! what the player sees is the frame shown, pixel for pixel, for both mountings and two
//! displays on one bus; plus the emulator's own decoding (control bytes, addressing modes,
//! remap timing, unknown commands, absent and unplugged displays, traffic counters).

use std::cell::RefCell;

use embedded_hal::i2c::{ErrorKind, I2c, NoAcknowledgeSource};
use embedded_hal_bus::i2c::RefCellDevice;
use proptest::prelude::*;
use tengen_hal::display::{
    pixel, rotate_180, set_pixel, DisplayFrame, Rotation, FRAME_BYTES, HEIGHT, WIDTH,
};
use tengen_hal::driver::{SharedI2c, Ssd1306Config, Ssd1306Display, Ssd1306Error};
use tengen_hal::PlayerDisplay;
use tengen_sim::ssd1306_emulator::{
    AddressingMode, Ssd1306Bus, Ssd1306BusError, Ssd1306SetupError,
};

const BLACK: u8 = 0x3C;
const WHITE: u8 = 0x3D;
const ROTATIONS: [Rotation; 2] = [Rotation::Upright, Rotation::UpsideDown];

fn checkerboard() -> DisplayFrame {
    let mut f = [0u8; FRAME_BYTES];
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            set_pixel(&mut f, x, y, (x + y) % 2 == 0);
        }
    }
    f
}

fn corners() -> DisplayFrame {
    let mut f = [0u8; FRAME_BYTES];
    for (x, y) in [
        (0, 0),
        (WIDTH - 1, 0),
        (0, HEIGHT - 1),
        (WIDTH - 1, HEIGHT - 1),
    ] {
        set_pixel(&mut f, x, y, true);
    }
    f
}

/// Not symmetric in any way: a 180-degree turn or a mirror shows.
fn arrow() -> DisplayFrame {
    let mut f = [0u8; FRAME_BYTES];
    for x in 0..40 {
        set_pixel(&mut f, x + 3, 5, true); // a bar near the top left
    }
    for y in 0..30 {
        set_pixel(&mut f, 3, y + 5, true); // down the left side
    }
    set_pixel(&mut f, 100, 50, true);
    f
}

fn patterns() -> Vec<(&'static str, DisplayFrame)> {
    let mut inverse = checkerboard();
    for b in inverse.iter_mut() {
        *b = !*b;
    }
    vec![
        ("checkerboard", checkerboard()),
        ("inverse checkerboard", inverse),
        ("corners", corners()),
        ("arrow", arrow()),
        ("all on", [0xFF; FRAME_BYTES]),
        ("all off", [0x00; FRAME_BYTES]),
    ]
}

/// Where two frames differ, for a readable failure.
fn first_difference(a: &DisplayFrame, b: &DisplayFrame) -> Option<(usize, usize)> {
    (0..HEIGHT)
        .flat_map(|y| (0..WIDTH).map(move |x| (x, y)))
        .find(|&(x, y)| pixel(a, x, y) != pixel(b, x, y))
}

fn assert_sees(bus: &Ssd1306Bus, address: u8, expected: &DisplayFrame, what: &str) {
    let seen = bus.frame(address).expect("a display at this address");
    assert!(
        first_difference(&seen, expected).is_none(),
        "{what}: at {address:#04x} the player sees a different pixel at {:?}",
        first_difference(&seen, expected)
    );
}

#[test]
fn each_pattern_is_seen_as_shown_for_both_mountings() {
    for rotation in ROTATIONS {
        let bus = SharedI2c::new(Ssd1306Bus::players(rotation, rotation));
        let mut display = Ssd1306Display::new(bus.clone(), Ssd1306Config::new(BLACK, rotation));
        for (name, frame) in patterns() {
            display.show(&frame).unwrap();
            assert_sees(&bus.lock(), BLACK, &frame, &format!("{name}, {rotation:?}"));
        }
        let b = bus.lock();
        let d = b.display(BLACK).unwrap();
        assert!(d.is_lit());
        assert_eq!(d.addressing_mode(), AddressingMode::Horizontal);
        assert_eq!(
            d.remap(),
            (rotation == Rotation::Upright, rotation == Rotation::Upright)
        );
        assert_eq!(d.stats().unknown_commands, 0);
        // The other display was never spoken to: dark.
        assert_eq!(b.is_on(WHITE), Some(false));
        assert_eq!(b.frame(WHITE), Some([0; FRAME_BYTES]));
    }
}

#[test]
fn the_rotation_commands_really_turn_the_image() {
    // Driver and mounting disagree: the player sees the frame upside down.
    for rotation in ROTATIONS {
        let other = match rotation {
            Rotation::Upright => Rotation::UpsideDown,
            Rotation::UpsideDown => Rotation::Upright,
        };
        let bus = SharedI2c::new(Ssd1306Bus::players(other, other));
        let mut display = Ssd1306Display::new(bus.clone(), Ssd1306Config::new(BLACK, rotation));
        let frame = arrow();
        display.show(&frame).unwrap();
        assert_sees(
            &bus.lock(),
            BLACK,
            &rotate_180(&frame),
            "mismatched mounting",
        );
        // And the bare panel, in the module's own orientation, is the frame turned by the
        // driver's rotation.
        let panel = bus.lock().display(BLACK).unwrap().panel();
        let expected = match rotation {
            Rotation::Upright => frame,
            Rotation::UpsideDown => rotate_180(&frame),
        };
        assert_eq!(panel, expected);
    }
}

#[test]
fn two_displays_on_one_shared_bus_each_show_their_own_frame() {
    // As on the Pi: `pair` shares one bus between Black's and White's drivers.
    let (mut black, mut white) = Ssd1306Display::pair(
        Ssd1306Bus::players(Rotation::Upright, Rotation::UpsideDown),
        Ssd1306Config::new(BLACK, Rotation::Upright),
        Ssd1306Config::new(WHITE, Rotation::UpsideDown),
    );
    for (name, frame) in patterns() {
        let other = rotate_180(&frame);
        black.show(&frame).unwrap();
        white.show(&other).unwrap();
        let bus = white.release();
        assert_sees(&bus.lock(), BLACK, &frame, name);
        assert_sees(&bus.lock(), WHITE, &other, name);
        white = Ssd1306Display::new(bus, Ssd1306Config::new(WHITE, Rotation::UpsideDown));
    }
    let (b, w) = (arrow(), corners());
    black.show(&b).unwrap();
    white.show(&w).unwrap();
    // Either driver's handle reaches the one bus.
    let shared: SharedI2c<Ssd1306Bus> = black.release();
    let emulated = shared.lock();
    assert_sees(&emulated, BLACK, &b, "black");
    assert_sees(&emulated, WHITE, &w, "white");
    assert_eq!(emulated.stats().nacks, 0);
}

#[test]
fn two_displays_on_one_bus_with_embedded_hal_bus() {
    let bus = RefCell::new(Ssd1306Bus::players(Rotation::UpsideDown, Rotation::Upright));
    let mut black = Ssd1306Display::new(
        RefCellDevice::new(&bus),
        Ssd1306Config::new(BLACK, Rotation::UpsideDown),
    );
    let mut white = Ssd1306Display::new(
        RefCellDevice::new(&bus),
        Ssd1306Config::new(WHITE, Rotation::Upright),
    );
    for (i, (_, frame)) in patterns().into_iter().enumerate() {
        // Interleaved writes, different frames on the two displays.
        let other = rotate_180(&frame);
        black.show(&frame).unwrap();
        white.show(&other).unwrap();
        assert_sees(&bus.borrow(), BLACK, &frame, &format!("black, pattern {i}"));
        assert_sees(&bus.borrow(), WHITE, &other, &format!("white, pattern {i}"));
    }
}

#[test]
fn dark_until_the_first_frame_and_while_blanked() {
    let bus = SharedI2c::new(Ssd1306Bus::players(Rotation::Upright, Rotation::Upright));
    let mut display =
        Ssd1306Display::new(bus.clone(), Ssd1306Config::new(BLACK, Rotation::Upright));
    // Power-on memory is noise, but nothing is lit before a frame is written.
    assert_ne!(
        bus.lock().display(BLACK).unwrap().gddram(),
        &[0u8; FRAME_BYTES]
    );
    display.init().unwrap();
    assert_eq!(bus.lock().is_on(BLACK), Some(false));
    assert_eq!(bus.lock().frame(BLACK), Some([0; FRAME_BYTES]));
    assert_eq!(bus.lock().display(BLACK).unwrap().contrast(), 0x7F);
    display.show(&corners()).unwrap();
    assert_eq!(bus.lock().is_on(BLACK), Some(true));
    display.blank().unwrap();
    assert_eq!(bus.lock().frame(BLACK), Some([0; FRAME_BYTES]));
    display.show(&corners()).unwrap();
    assert_sees(&bus.lock(), BLACK, &corners(), "after blanking");
    display.set_contrast(0x20).unwrap();
    assert_eq!(bus.lock().display(BLACK).unwrap().contrast(), 0x20);
}

#[test]
fn the_same_frame_again_costs_no_bus_traffic_and_a_frame_costs_1096_bytes() {
    let bus = SharedI2c::new(Ssd1306Bus::players(Rotation::Upright, Rotation::Upright));
    let mut display =
        Ssd1306Display::new(bus.clone(), Ssd1306Config::new(BLACK, Rotation::Upright));
    display.show(&checkerboard()).unwrap();
    bus.lock().reset_stats();
    for _ in 0..10 {
        display.show(&checkerboard()).unwrap();
    }
    assert_eq!(bus.lock().stats().bytes, 0);
    display.show(&arrow()).unwrap();
    let stats = bus.lock().stats();
    // Two windows (control + 3 bytes each), 64 data writes (control + 16 bytes each).
    assert_eq!(stats.bytes, 2 * 4 + 64 * 17);
    assert_eq!(stats.transactions, 66);
    let d = bus.lock().display(BLACK).unwrap().stats();
    assert_eq!(d.data_bytes, FRAME_BYTES as u64);
    assert_eq!(d.command_bytes, 6);
    assert_eq!(d.control_bytes, 66);
    // About 10,600 bit times: 27 ms at 400 kHz, 106 ms at 100 kHz.
    assert_eq!(stats.bit_times(), 66 * 11 + 1096 * 9);
    let fast = stats.busy_time(400_000);
    assert!(fast.as_millis() >= 26 && fast.as_millis() <= 28, "{fast:?}");
}

#[test]
fn an_absent_display_is_not_acknowledged() {
    let bus = SharedI2c::new(Ssd1306Bus::new(&[(BLACK, Rotation::Upright)]).unwrap());
    let mut white = Ssd1306Display::new(bus.clone(), Ssd1306Config::new(WHITE, Rotation::Upright));
    let err = white.show(&corners()).unwrap_err();
    match err {
        Ssd1306Error::Bus {
            address,
            kind,
            detail,
        } => {
            assert_eq!(address, WHITE);
            assert_eq!(kind, ErrorKind::NoAcknowledge(NoAcknowledgeSource::Address));
            assert!(detail.contains("NoAcknowledge"), "{detail}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(bus.lock().stats().nacks, 1);
    assert_eq!(
        bus.lock().write(0x50, &[0x00]),
        Err(Ssd1306BusError::NoAcknowledge { address: 0x50 })
    );
}

#[test]
fn an_unplugged_display_comes_back_by_itself() {
    let bus = SharedI2c::new(Ssd1306Bus::players(Rotation::Upright, Rotation::Upright));
    let mut display =
        Ssd1306Display::new(bus.clone(), Ssd1306Config::new(BLACK, Rotation::Upright));
    display.show(&arrow()).unwrap();
    assert!(bus.lock().set_connected(BLACK, false));
    assert!(display.show(&corners()).is_err());
    assert!(display.show(&corners()).is_err());
    // Plugged back: powered on afresh (noise in memory, off), and the driver starts over.
    assert!(bus.lock().set_connected(BLACK, true));
    assert_eq!(bus.lock().is_on(BLACK), Some(false));
    display.show(&corners()).unwrap();
    assert_sees(&bus.lock(), BLACK, &corners(), "after replugging");
    // The first init, one attempt during the second failed show, the one that worked.
    assert_eq!(display.stats().inits, 3);
    assert!(!bus.lock().set_connected(0x50, true));
}

#[test]
fn setup_errors() {
    assert_eq!(
        Ssd1306Bus::new(&[(BLACK, Rotation::Upright), (BLACK, Rotation::Upright)]).unwrap_err(),
        Ssd1306SetupError::DuplicateAddress(BLACK)
    );
    assert_eq!(
        Ssd1306Bus::new(&[(0x78, Rotation::Upright)]).unwrap_err(),
        Ssd1306SetupError::InvalidAddress(0x78)
    );
}

/// Raw bytes to the emulator, as other drivers send them.
#[test]
fn decoding_control_bytes_split_parameters_and_unknown_commands() {
    let mut bus = Ssd1306Bus::players(Rotation::Upright, Rotation::Upright);
    // Co set: one command per control byte, several in one message.
    bus.write(BLACK, &[0x80, 0x8D, 0x80, 0x14, 0x80, 0xAF])
        .unwrap();
    // A parameter in its own message (as drivers that send byte by byte do).
    bus.write(BLACK, &[0x00, 0x81]).unwrap();
    bus.write(BLACK, &[0x00, 0x33]).unwrap();
    // Unknown command bytes are skipped and counted; what follows still decodes.
    bus.write(BLACK, &[0x00, 0xFF, 0xB8, 0xA7]).unwrap();
    let d = bus.display(BLACK).unwrap();
    assert!(d.is_lit());
    assert_eq!(d.contrast(), 0x33);
    assert_eq!(d.stats().unknown_commands, 2);
    assert_eq!(d.stats().messages, 4);
    assert_eq!(d.stats().control_bytes, 6);
    // 0xA7: inverted. Memory is noise, so the panel shows its inverse.
    let ram = *d.gddram();
    let panel = d.panel();
    // Reset mapping (no remap, normal scan): panel (x, y) is segment 127 - x, row 63 - y.
    for (x, y) in [(0, 0), (5, 9), (127, 63), (64, 31)] {
        let stored = ram[((63 - y) / 8) * WIDTH + (127 - x)] & (1 << ((63 - y) % 8)) != 0;
        assert_eq!(pixel(&panel, x, y), !stored, "({x}, {y})");
    }
    // Status read: bit 6 clear while on.
    let mut status = [0xAA];
    bus.read(BLACK, &mut status).unwrap();
    assert_eq!(status, [0x00]);
    bus.write(BLACK, &[0x00, 0xAE]).unwrap();
    bus.read(BLACK, &mut status).unwrap();
    assert_eq!(status, [0x40]);
}

#[test]
fn page_and_vertical_addressing_and_remap_timing() {
    let mut bus = Ssd1306Bus::players(Rotation::Upright, Rotation::Upright);
    // The ssd1306 crate's orientation, display on, charge pump.
    bus.write(BLACK, &[0x00, 0xA1, 0xC8, 0x8D, 0x14, 0xAF])
        .unwrap();
    let frame = arrow();
    // Page mode (the reset mode): each page on its own, column pointer from 0x00/0x10.
    for page in 0..8u8 {
        bus.write(BLACK, &[0x00, 0xB0 | page, 0x00, 0x10]).unwrap();
        let mut msg = vec![0x40];
        msg.extend_from_slice(&frame[usize::from(page) * WIDTH..][..WIDTH]);
        bus.write(BLACK, &msg).unwrap();
    }
    assert_sees(&bus, BLACK, &frame, "page mode");

    // Vertical mode: page by page down each column.
    let other = checkerboard();
    bus.write(BLACK, &[0x00, 0x20, 0x01, 0x21, 0, 127, 0x22, 0, 7])
        .unwrap();
    let mut msg = vec![0x40];
    for x in 0..WIDTH {
        for page in 0..8 {
            msg.push(other[page * WIDTH + x]);
        }
    }
    bus.write(BLACK, &msg).unwrap();
    assert_eq!(
        bus.display(BLACK).unwrap().addressing_mode(),
        AddressingMode::Vertical
    );
    assert_sees(&bus, BLACK, &other, "vertical mode");

    // Segment remap only affects data written afterwards; COM direction is immediate.
    bus.write(BLACK, &[0x00, 0xA0]).unwrap();
    assert_sees(
        &bus,
        BLACK,
        &other,
        "remap alone moves nothing already written",
    );
    bus.write(BLACK, &[0x00, 0xC0]).unwrap();
    let mut flipped = [0u8; FRAME_BYTES];
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            set_pixel(&mut flipped, x, HEIGHT - 1 - y, pixel(&other, x, y));
        }
    }
    assert_sees(&bus, BLACK, &flipped, "COM direction flips at once");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Any frame, any mounting, either display: seen exactly as shown.
    #[test]
    fn any_frame_is_seen_as_shown(
        bytes in proptest::collection::vec(any::<u8>(), FRAME_BYTES),
        black_up in any::<bool>(),
        white_up in any::<bool>(),
        second in proptest::collection::vec(any::<u8>(), FRAME_BYTES),
    ) {
        let black_rot = Rotation::from_upside_down(black_up);
        let white_rot = Rotation::from_upside_down(white_up);
        let bus = SharedI2c::new(Ssd1306Bus::players(black_rot, white_rot));
        let mut black = Ssd1306Display::new(bus.clone(), Ssd1306Config::new(BLACK, black_rot));
        let mut white = Ssd1306Display::new(bus.clone(), Ssd1306Config::new(WHITE, white_rot));
        let mut a = [0u8; FRAME_BYTES];
        a.copy_from_slice(&bytes);
        let mut b = [0u8; FRAME_BYTES];
        b.copy_from_slice(&second);
        black.show(&a).unwrap();
        white.show(&b).unwrap();
        prop_assert_eq!(bus.lock().frame(BLACK).unwrap(), a);
        prop_assert_eq!(bus.lock().frame(WHITE).unwrap(), b);
        black.show(&b).unwrap();
        prop_assert_eq!(bus.lock().frame(BLACK).unwrap(), b);
    }
}
