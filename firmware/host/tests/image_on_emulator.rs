//! The RP2040 image alone on the emulator, as fast as it runs (no board service): a 19x19
//! game read back with the Pi's decoder from the UART, the full 361-point scan on the
//! RP2040's clock, the firmware's own counters.
//!
//! `TENGEN_FIRMWARE_IMAGE` names the image (CI sets it; `firmware/build-image` makes it);
//! without it the test skips with one line.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use tengen_firmware_host::emulated_board::{run, BoardOptions, Pace};
use tengen_firmware_host::EmulatorPaths;
use tengen_sim::{FrameKind, RawModel, SimOptions, Simulation};

/// Black and White each set two stones down and press; White captures nothing, Black then
/// plays a stone that captures White's corner stone at A19, lifts it and presses.
const SCRIPT: &str = "size 19\nseed 3\n\
    place B B19 1s\npress B 500ms\nplace W A19 1s\npress W 500ms\n\
    place B Q16 1s\npress B 500ms\nplace W D4 1s\npress W 500ms\n\
    place B A18 1s\nlift A19 600ms\npress B 500ms\n";

fn image() -> Option<PathBuf> {
    let Some(image) = std::env::var_os("TENGEN_FIRMWARE_IMAGE").filter(|v| !v.is_empty()) else {
        eprintln!("skipping: TENGEN_FIRMWARE_IMAGE is not set (firmware/build-image)");
        return None;
    };
    let image = PathBuf::from(image);
    Some(if image.is_absolute() || image.is_file() {
        image
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(image)
    })
}

#[test]
fn the_image_scans_a_19x19_board_every_10_ms_and_the_pis_decoder_reads_every_frame() {
    let Some(image) = image() else {
        return;
    };
    let paths = EmulatorPaths::find(Some(&image)).unwrap_or_else(|e| panic!("{e}"));
    let options = SimOptions {
        frames: FrameKind::Raw,
        raw: RawModel::adc12(),
        ..SimOptions::seeded(3)
    };
    let sim = Simulation::from_script(SCRIPT, &options).expect("the script");
    let dir = tempfile::tempdir().expect("temp dir");
    let report = run(
        sim,
        &paths,
        BoardOptions {
            pace: Pace::Free,
            extra_ms: 500,
            power_on_ms: 0,
            ..BoardOptions::default()
        },
        &mut std::io::sink(),
        &AtomicBool::new(false),
        dir.path(),
    )
    .unwrap_or_else(|e| panic!("the emulated board: {e}"));
    println!(
        "{}",
        serde_json::to_string_pretty(&report.to_json()).unwrap_or_default()
    );

    // The line: every frame good, none missing, one boot.
    assert_eq!(report.frames_bad(), 0, "{:?}", report.decoder);
    assert_eq!(report.boot_hellos, 1);
    assert!(report.hellos >= 8, "a hello a second");
    assert_eq!(report.buttons.len(), 10, "5 presses and their releases");
    let status = report.status.expect("the firmware's status");
    assert_eq!(status.overruns, 0);
    assert_eq!(status.dropped, 0);
    assert_eq!(report.moves_read, 5, "every stone set down was read");
    assert_eq!(report.moves_unread, 0);

    // The RP2040's own clock: a scan every 10 ms to the microsecond, each well inside it.
    let period = report.scan_period_us;
    assert!((period.median - 10_000.0).abs() < 1.0, "{period:?}");
    assert!(period.min > 9_900.0 && period.max < 10_100.0, "{period:?}");
    let scan = report.scan_time_us;
    assert!(scan.max < 2_000.0, "a 361-point scan: {scan:?}");
    // Stone settled to the last byte of the first frame with it: at most a period to the
    // next scan, the scan, and 564 bytes at 1 Mbaud (5.64 ms).
    assert!(
        report.latency_ms.max < 10.0 + 2.0 + 6.0,
        "{:?}",
        report.latency_ms
    );

    // The emulator: the UART at the link's rate, the stack small, and every reading the
    // firmware kept taken after its settle (the conversions started within 1 µs of a
    // change of the address lines are the one thrown away after each of the 256 selects).
    let e = &report.emulator;
    assert_eq!(e["uart_baud"], 1_000_000);
    assert_eq!(e["size"], 19);
    let stack = e["stack_bytes"].as_u64().expect("stack_bytes");
    assert!(stack > 0 && stack < 16 * 1024, "stack {stack} bytes");
    let conversions = e["conversions"].as_u64().expect("conversions");
    let unsettled = e["unsettled_conversions"].as_u64().expect("unsettled");
    let scans = scan.count as u64;
    assert!(
        conversions.abs_diff(scans * (361 + 256)) <= 617,
        "{conversions} in {scans} scans"
    );
    assert!(
        unsettled.abs_diff(scans * 256) <= 256,
        "{unsettled} in {scans} scans"
    );
}
