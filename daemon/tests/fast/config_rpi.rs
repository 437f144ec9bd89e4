//! `tengen check-config` checks `[hardware.rpi]` on any machine (this build need not have
//! the `rpi` feature): pins on the header and distinct, SPI devices that exist, a wiring
//! that covers the board, one SPI device per ADC; each problem names its key path.

use std::process::Command;

fn check(text: &str) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("board.toml");
    std::fs::write(&path, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["check-config", path.to_str().unwrap()])
        .output()
        .expect("run tengen");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const HEAD: &str = "[board]\nid = \"b1\"\nsize = 9\n[hardware]\nbackend = \"rpi\"\n";

#[test]
fn the_defaults_and_a_custom_layout_pass() {
    let (code, stdout, stderr) = check(HEAD);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("backend rpi"), "{stdout}");
    let custom = format!(
        "{HEAD}[hardware.rpi.pins]\nspi = [{{ bus = 0, cs = 0 }}]\naddress = [2, 3, 4, 14]\n\
         black_button = 22\nwhite_button = 27\nled = false\n\
         [hardware.rpi.wiring]\nsize = 9\nadc = \"mcp3008\"\nmux = [\n{}]\n",
        (0..6)
            .map(|k| {
                let pts: Vec<String> = (k * 16..((k + 1) * 16).min(81))
                    .map(|i| {
                        let (row, col) = (i / 9, i % 9);
                        format!("\"{}{}\"", b"ABCDEFGHJ"[col] as char, 9 - row)
                    })
                    .collect();
                format!(
                    "{{ adc = 0, channel = {k}, points = [{}] }},\n",
                    pts.join(", ")
                )
            })
            .collect::<String>()
    );
    let (code, stdout, stderr) = check(&custom);
    assert_eq!(code, 0, "{custom}\n{stdout}{stderr}");
}

#[test]
fn every_pin_problem_names_its_key() {
    let cases = [
        (
            "[hardware.rpi.pins]\nwhite_button = 5\n",
            "hardware.rpi.pins.white_button: GPIO 5 is used for both address line S0 and the White button",
        ),
        (
            "[hardware.rpi.pins]\nled = 40\n",
            "hardware.rpi.pins.led: the LED is GPIO 40, the header has GPIO 0..=27",
        ),
        (
            "[hardware.rpi.pins]\naddress = [5, 6, 12, 10]\n",
            "hardware.rpi.pins.address[3]: address line S3 is GPIO 10, which SPI0 uses",
        ),
        (
            "[hardware.rpi.pins]\nspi = [{ bus = 0, cs = 0 }, { bus = 7, cs = 0 }]\n",
            "hardware.rpi.pins.spi[1]: SPI7 CE0 does not exist (bus 0..=6, CE 0..=2)",
        ),
        (
            "[hardware.rpi.pins]\nspi = [{ bus = 0, cs = 1 }, { bus = 0, cs = 1 }]\n",
            "hardware.rpi.pins.spi[1]: SPI0 CE1 is given for two ADCs",
        ),
        (
            "[hardware.rpi.pins]\nspi = [{ bus = 0, cs = 0 }, { bus = 0, cs = 1, speed = 3 }]\n",
            "hardware.rpi.pins.spi[1]: unknown field `speed`",
        ),
        (
            "[hardware.rpi.pins]\nspi_clock_hz = 0\n",
            "hardware.rpi.pins.spi_clock_hz: spi_clock_hz must be above 0",
        ),
        (
            "[hardware.rpi.pins]\nblack_button = 300\n",
            "hardware.rpi.pins.black_button:",
        ),
        (
            "[hardware.rpi.pins]\nbuzzer = 4\n",
            "hardware.rpi.pins.buzzer: unknown key",
        ),
        ("[hardware.rpi]\nwires = 1\n", "hardware.rpi.wires: unknown key"),
    ];
    for (extra, want) in cases {
        let (code, stdout, stderr) = check(&format!("{HEAD}{extra}"));
        assert_eq!(code, 2, "{extra}: {stdout}{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{extra}: {stderr}");
        assert!(
            stderr.contains(want),
            "{extra}: wanted {want:?}, got {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn wiring_problems_name_the_mux_and_input() {
    let mux = |points: &str| {
        format!("{HEAD}[hardware.rpi.wiring]\nsize = 9\nadc = \"mcp3208\"\nmux = [{points}]\n")
    };
    let cases = [
        (
            mux("{ adc = 0, channel = 9, points = [\"A9\"] }"),
            "hardware.rpi.wiring.mux[0].channel: mux 0 feeds ADC channel 9, the ADC has channels 0..=7",
        ),
        (
            mux("{ adc = 0, channel = 0, points = [\"A9\", \"Z3\"] }"),
            "hardware.rpi.wiring.mux[0].points[1]: mux 0 input 1:",
        ),
        (
            mux("{ adc = 0, channel = 0, points = [\"A9\", \"A9\"] }"),
            "hardware.rpi.wiring.mux[0].points[1]: point A9 is on mux 0 input 0 and again on mux 0 input 1",
        ),
        (
            mux("{ adc = 0, channel = 0, points = [\"A9\"] }"),
            "hardware.rpi.wiring.mux: 80 point(s) not wired:",
        ),
        (
            mux("{ adc = 0, channnel = 0, points = [\"A9\"] }"),
            "hardware.rpi.wiring.mux[0]: unknown field `channnel`",
        ),
        (
            format!("{HEAD}[hardware.rpi.wiring]\nsize = 13\nmux = []\n"),
            "hardware.rpi.wiring.size: 13 but board.size is 9",
        ),
        (
            format!("{HEAD}[hardware.rpi.wiring]\nadc = \"ads1115\"\nmux = []\n"),
            "hardware.rpi.wiring.adc: unknown variant `ads1115`",
        ),
    ];
    for (text, want) in cases {
        let (code, stdout, stderr) = check(&text);
        assert_eq!(code, 2, "{text}: {stdout}{stderr}");
        assert!(
            stderr.contains(want),
            "{text}\nwanted {want:?}, got {stderr}"
        );
    }
}

#[test]
fn the_default_wiring_of_a_25x25_board_needs_more_spi_devices() {
    // 625 points take 40 multiplexers, 5 ADCs of 8 channels; the default pins give 3.
    let (code, _, stderr) =
        check("[board]\nid = \"b1\"\nsize = 25\n[hardware]\nbackend = \"rpi\"\n");
    assert_eq!(code, 2);
    assert!(
        stderr.contains(
            "hardware.rpi.pins.spi: the wiring uses 5 ADC(s) but 3 SPI device(s) are given"
        ),
        "{stderr}"
    );
    // On another backend an absent [hardware.rpi] is not checked.
    let (code, stdout, stderr) =
        check("[board]\nid = \"b1\"\nsize = 25\n[hardware]\nbackend = \"serial\"\n");
    assert_eq!(code, 0, "{stdout}{stderr}");
}
