//! The direct driver against `embedded-hal-mock`: the exact SPI transactions (MCP3008 and
//! MCP3208 command bytes), address-line changes and settle delays of whole scans, and the
//! order in which they happen.

use std::cell::RefCell;
use std::rc::Rc;

use embedded_hal::delay::DelayNs;
use embedded_hal::digital::{ErrorType as PinErrorType, OutputPin};
use embedded_hal::spi::{ErrorType as SpiErrorType, Operation, SpiDevice};
use embedded_hal_mock::eh1::delay::{CheckedDelay, Transaction as DelayTx};
use embedded_hal_mock::eh1::digital::{Mock as PinMock, State, Transaction as PinTx};
use embedded_hal_mock::eh1::spi::{Mock as SpiMock, Transaction as SpiTx};
use embedded_hal_mock::eh1::MockError;
use proptest::prelude::*;
use tengen_hal::driver::{AdcKind, DriverError, MuxAdcMatrix, MuxWiring, Wiring, WiringError};
use tengen_hal::{FrameData, SensorMatrix};
use tengen_rules::Point;

const SETTLE: u32 = 1_500;

/// A 3x3 board on two multiplexers and two ADCs, with unused mux inputs:
/// mux 0 -> ADC 0 channel 2, inputs 0..=4 = A3 B3 C3 A2 B2;
/// mux 1 -> ADC 1 channel 5, inputs 1, 3, 4, 5 = C2 A1 B1 C1.
fn small_wiring(adc: AdcKind) -> Wiring {
    let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect();
    Wiring {
        size: 3,
        adc,
        settle_ns: SETTLE,
        mux: vec![
            MuxWiring {
                adc: 0,
                channel: 2,
                points: names(&["A3", "B3", "C3", "A2", "B2"]),
            },
            MuxWiring {
                adc: 1,
                channel: 5,
                points: names(&["-", "C2", "-", "A1", "B1", "C1"]),
            },
        ],
    }
}

/// The reading the fake sensors give each point: distinct per point.
fn value(index: usize, adc: AdcKind) -> u16 {
    let v = 37 + 97 * index as u32;
    (match adc {
        AdcKind::Mcp3008 => v % 1024,
        AdcKind::Mcp3208 => (v * 4 + 3) % 4096,
    }) as u16
}

/// What the chip clocks back: undefined bits set to 1 before the data, as a floating MISO
/// would, so the decoder's masking is exercised.
fn response(v: u16, adc: AdcKind) -> Vec<u8> {
    match adc {
        AdcKind::Mcp3008 => vec![0xFF, 0xFC | (v >> 8) as u8, v as u8],
        AdcKind::Mcp3208 => vec![0xFF, 0xE0 | (v >> 8) as u8, v as u8],
    }
}

fn conversion(cmd: [u8; 3], v: u16, adc: AdcKind) -> Vec<SpiTx<u8>> {
    vec![
        SpiTx::transaction_start(),
        SpiTx::transfer(cmd.to_vec(), response(v, adc)),
        SpiTx::transaction_end(),
    ]
}

fn idx(name: &str) -> usize {
    Point::parse_gtp(name, 3).unwrap().index(3)
}

/// Scans the small wiring with mocks written out by hand: the command bytes are the
/// datasheets' (MCP3008: 01 1ccc0000 00; MCP3208: 0000011c cc000000 00).
fn scan_small(adc: AdcKind, ch2: [u8; 3], ch5: [u8; 3]) {
    // ADC 0 sees mux 0 at addresses 0..=4; ADC 1 sees mux 1 at addresses 1, 3, 4, 5.
    let spi0: Vec<SpiTx<u8>> = ["A3", "B3", "C3", "A2", "B2"]
        .iter()
        .flat_map(|p| conversion(ch2, value(idx(p), adc), adc))
        .collect();
    let spi1: Vec<SpiTx<u8>> = ["C2", "A1", "B1", "C1"]
        .iter()
        .flat_map(|p| conversion(ch5, value(idx(p), adc), adc))
        .collect();
    // Addresses 0..=5 are used (6..=15 see nothing and are skipped): S0..S3 per address.
    use State::{High as H, Low as L};
    let lines: [[State; 6]; 4] = [
        [L, H, L, H, L, H],
        [L, L, H, H, L, L],
        [L, L, L, L, H, H],
        [L, L, L, L, L, L],
    ];
    let pins: Vec<PinMock> = lines
        .iter()
        .map(|seq| PinMock::new(&seq.iter().map(|&s| PinTx::set(s)).collect::<Vec<_>>()))
        .collect();
    let delay = CheckedDelay::new(&vec![DelayTx::delay_ns(SETTLE); 6]);
    let spis = vec![SpiMock::new(&spi0), SpiMock::new(&spi1)];
    let address: [PinMock; 4] = pins.try_into().unwrap();

    let mut m = MuxAdcMatrix::new(&small_wiring(adc), spis, address, delay).unwrap();
    assert_eq!(m.size(), 3);
    let frame = m.scan(4242).unwrap();
    assert_eq!(frame.time, 4242);
    let expected: Vec<u16> = (0..9).map(|i| value(i, adc)).collect();
    assert_eq!(frame.data, FrameData::Raw(expected));

    all_done(m);
}

/// Releases the driver and checks every mock saw exactly the transactions it expected.
fn all_done(m: MuxAdcMatrix<SpiMock<u8>, PinMock, CheckedDelay>) {
    let (spis, address, mut delay) = m.release();
    for mut s in spis {
        s.done();
    }
    for mut p in address {
        p.done();
    }
    delay.done();
}

#[test]
fn mcp3008_scan_is_exactly_the_expected_transactions() {
    scan_small(AdcKind::Mcp3008, [0x01, 0xA0, 0x00], [0x01, 0xD0, 0x00]);
}

#[test]
fn mcp3208_scan_is_exactly_the_expected_transactions() {
    scan_small(AdcKind::Mcp3208, [0x06, 0x80, 0x00], [0x07, 0x40, 0x00]);
}

/// A full 19x19 board on the standard wiring: 23 multiplexers on 3 MCP3208s. Every point
/// must come back with its own reading, with 16 address changes, 16 settles and 361
/// conversions.
#[test]
fn full_board_on_23_muxes() {
    let adc = AdcKind::Mcp3208;
    let wiring = Wiring::standard(19, adc);
    assert_eq!(wiring.mux.len(), 23);
    let mut spi: Vec<Vec<SpiTx<u8>>> = vec![Vec::new(); 3];
    for address in 0..16 {
        for (k, mux) in wiring.mux.iter().enumerate() {
            if let Some(name) = mux.points.get(address) {
                let i = Point::parse_gtp(name, 19).unwrap().index(19);
                // The standard wiring: mux k sees points 16k..16k+15 in board order.
                assert_eq!(i, 16 * k + address);
                spi[k / 8].extend(conversion(adc.command((k % 8) as u8), value(i, adc), adc));
            }
        }
    }
    assert_eq!(spi.iter().map(|s| s.len()).sum::<usize>(), 361 * 3);
    let pins: Vec<PinMock> = (0..4)
        .map(|line| {
            PinMock::new(
                &(0..16)
                    .map(|a| {
                        PinTx::set(if a & (1 << line) != 0 {
                            State::High
                        } else {
                            State::Low
                        })
                    })
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    let delay = CheckedDelay::new(&vec![DelayTx::delay_ns(2_000); 16]);
    let spis = spi.iter().map(SpiMock::new).collect();
    let mut m = MuxAdcMatrix::new(&wiring, spis, pins.try_into().unwrap(), delay).unwrap();
    let frame = m.scan(7).unwrap();
    let expected: Vec<u16> = (0..361).map(|i| value(i, adc)).collect();
    assert_eq!(frame.data, FrameData::Raw(expected));
    all_done(m);
}

#[test]
fn too_few_spi_devices_is_an_error() {
    let log: Log = Rc::default();
    let r = MuxAdcMatrix::new(
        &small_wiring(AdcKind::Mcp3008),
        vec![FakeAdc(0, log.clone())],
        [0, 1, 2, 3].map(|l| FakePin(l, log.clone())),
        FakeDelay(log.clone()),
    );
    let Err(e) = r else {
        panic!("a wiring on 2 ADCs accepted 1 SPI device")
    };
    assert_eq!(
        e,
        WiringError::AdcCount {
            needed: 2,
            given: 1
        }
    );
    assert_eq!(
        e.to_string(),
        "wiring uses 2 ADC(s) but 1 SPI device(s) were given"
    );
    assert!(log.borrow().is_empty());
}

#[test]
fn a_failing_address_line_is_reported() {
    let err = MockError::Io(std::io::ErrorKind::Other);
    let mut pins: Vec<PinMock> = vec![PinMock::new(&[PinTx::set(State::Low)])];
    pins.push(PinMock::new(&[PinTx::set(State::Low).with_error(err)]));
    pins.push(PinMock::new(&[]));
    pins.push(PinMock::new(&[]));
    let address: [PinMock; 4] = pins.try_into().unwrap();
    let spis = vec![SpiMock::<u8>::new(&[]), SpiMock::<u8>::new(&[])];
    let mut m = MuxAdcMatrix::new(
        &small_wiring(AdcKind::Mcp3008),
        spis,
        address,
        CheckedDelay::new(&[]),
    )
    .unwrap();
    let e = m.scan(0).unwrap_err();
    assert!(matches!(e, DriverError::Pin { line: 1, .. }), "{e:?}");
    assert!(e.to_string().starts_with("mux address line S1: "));
    all_done(m);
}

/// Everything the fakes below see, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Ev {
    Pin(usize, bool),
    Delay(u32),
    Spi(usize, Vec<u8>),
}

type Log = Rc<RefCell<Vec<Ev>>>;

struct FakePin(usize, Log);
impl PinErrorType for FakePin {
    type Error = std::convert::Infallible;
}
impl OutputPin for FakePin {
    fn set_low(&mut self) -> Result<(), Self::Error> {
        self.1.borrow_mut().push(Ev::Pin(self.0, false));
        Ok(())
    }
    fn set_high(&mut self) -> Result<(), Self::Error> {
        self.1.borrow_mut().push(Ev::Pin(self.0, true));
        Ok(())
    }
}

struct FakeDelay(Log);
impl DelayNs for FakeDelay {
    fn delay_ns(&mut self, ns: u32) {
        self.0.borrow_mut().push(Ev::Delay(ns));
    }
}

struct FakeAdc(usize, Log);
impl SpiErrorType for FakeAdc {
    type Error = embedded_hal::spi::ErrorKind;
}
impl SpiDevice<u8> for FakeAdc {
    fn transaction(&mut self, ops: &mut [Operation<'_, u8>]) -> Result<(), Self::Error> {
        for op in ops {
            if let Operation::Transfer(read, write) = op {
                self.1.borrow_mut().push(Ev::Spi(self.0, write.to_vec()));
                read.fill(0);
            } else {
                return Err(embedded_hal::spi::ErrorKind::Other);
            }
        }
        Ok(())
    }
}

/// The address lines are all set, then the settle delay, then the conversions, for each
/// address in turn: no conversion ever runs on a half-switched multiplexer.
#[test]
fn address_then_settle_then_conversions() {
    let log: Log = Rc::default();
    let address = [0, 1, 2, 3].map(|l| FakePin(l, log.clone()));
    let adcs = vec![FakeAdc(0, log.clone()), FakeAdc(1, log.clone())];
    let mut m = MuxAdcMatrix::new(
        &small_wiring(AdcKind::Mcp3008),
        adcs,
        address,
        FakeDelay(log.clone()),
    )
    .unwrap();
    m.scan(0).unwrap();
    let c2 = vec![0x01, 0xA0, 0x00];
    let c5 = vec![0x01, 0xD0, 0x00];
    let mut expected = Vec::new();
    for a in 0..6usize {
        for line in 0..4 {
            expected.push(Ev::Pin(line, a & (1 << line) != 0));
        }
        expected.push(Ev::Delay(SETTLE));
        if a <= 4 {
            expected.push(Ev::Spi(0, c2.clone()));
        }
        if [1, 3, 4, 5].contains(&a) {
            expected.push(Ev::Spi(1, c5.clone()));
        }
    }
    assert_eq!(*log.borrow(), expected);
}

/// A zero settle time makes no delay call at all.
#[test]
fn zero_settle_skips_the_delay() {
    let log: Log = Rc::default();
    let mut w = small_wiring(AdcKind::Mcp3208);
    w.settle_ns = 0;
    let address = [0, 1, 2, 3].map(|l| FakePin(l, log.clone()));
    let adcs = vec![FakeAdc(0, log.clone()), FakeAdc(1, log.clone())];
    let mut m = MuxAdcMatrix::new(&w, adcs, address, FakeDelay(log.clone())).unwrap();
    let mut readings = vec![1u16; 3];
    m.scan_into(&mut readings).unwrap();
    assert_eq!(readings, vec![0; 9]);
    assert!(!log.borrow().iter().any(|e| matches!(e, Ev::Delay(_))));
}

/// The wiring round-trips through TOML, and a file error names its line.
#[test]
fn wiring_from_toml() {
    let w = Wiring::standard(9, AdcKind::Mcp3008);
    let text = toml::to_string(&w).unwrap();
    assert_eq!(Wiring::from_toml_str(&text).unwrap(), w);
    let bad = "size = 9\nadc = \"mcp3009\"\nmux = []\n";
    let e = Wiring::from_toml_str(bad).unwrap_err().to_string();
    assert!(e.starts_with("wiring file line 2: "), "{e}");
    assert!(!e.contains('\n'));
}

/// A simulated board behind the driver: the address pins set a shared address; each ADC
/// channel reads the sensor its multiplexer connects at that address.
struct Board {
    address: u8,
    /// (adc, channel, mux input) -> the reading of the point wired there.
    sensors: std::collections::HashMap<(usize, u8, u8), u16>,
}

struct BoardPin(u8, Rc<RefCell<Board>>);
impl PinErrorType for BoardPin {
    type Error = std::convert::Infallible;
}
impl OutputPin for BoardPin {
    fn set_low(&mut self) -> Result<(), Self::Error> {
        self.1.borrow_mut().address &= !(1 << self.0);
        Ok(())
    }
    fn set_high(&mut self) -> Result<(), Self::Error> {
        self.1.borrow_mut().address |= 1 << self.0;
        Ok(())
    }
}

struct BoardAdc(usize, Rc<RefCell<Board>>);
impl SpiErrorType for BoardAdc {
    type Error = embedded_hal::spi::ErrorKind;
}
impl SpiDevice<u8> for BoardAdc {
    fn transaction(&mut self, ops: &mut [Operation<'_, u8>]) -> Result<(), Self::Error> {
        for op in ops {
            let Operation::Transfer(read, write) = op else {
                return Err(embedded_hal::spi::ErrorKind::Other);
            };
            // MCP3208 command: 0000011c cc000000 00.
            let channel = ((write[0] & 1) << 2) | (write[1] >> 6);
            let board = self.1.borrow();
            let v = board
                .sensors
                .get(&(self.0, channel, board.address))
                .copied()
                .unwrap_or(0xFFF);
            read.copy_from_slice(&[0, (v >> 8) as u8, v as u8]);
        }
        Ok(())
    }
}

proptest! {
    /// Any valid wiring (points shuffled over muxes and inputs, muxes on any ADC
    /// channels) reads every point's own sensor into its own place in the frame.
    #[test]
    fn any_wiring_reads_every_point_in_place(
        order in Just((0usize..25).collect::<Vec<_>>()).prop_shuffle(),
        slots in Just((0usize..3 * 8).collect::<Vec<_>>()).prop_shuffle(),
        holes in prop::collection::vec(prop::bool::weighted(0.2), 48),
    ) {
        let size = 5u8;
        // Spread 25 points over 3 muxes (48 inputs), leaving random inputs unused.
        let mut mux: Vec<MuxWiring> = (0..3)
            .map(|k| MuxWiring {
                adc: (slots[k] / 8) as u8,
                channel: (slots[k] % 8) as u8,
                points: vec!["-".to_string(); 16],
            })
            .collect();
        let mut next = order.iter();
        let free: Vec<usize> = (0..48).filter(|&i| !holes[i]).collect();
        let used: Vec<usize> = if free.len() >= 25 { free } else { (0..48).collect() };
        let mut sensors = std::collections::HashMap::new();
        for &slot in used.iter().take(25) {
            let Some(&p) = next.next() else { break };
            let (k, input) = (slot / 16, slot % 16);
            mux[k].points[input] = Point::from_index(p, size).to_gtp();
            sensors.insert(
                (usize::from(mux[k].adc), mux[k].channel, input as u8),
                value(p, AdcKind::Mcp3208),
            );
        }
        let wiring = Wiring { size, adc: AdcKind::Mcp3208, settle_ns: 0, mux };
        let board = Rc::new(RefCell::new(Board { address: 0, sensors }));
        let adcs = (0..3).map(|a| BoardAdc(a, board.clone())).collect();
        let pins = [0, 1, 2, 3].map(|l| BoardPin(l, board.clone()));
        let mut m = MuxAdcMatrix::new(&wiring, adcs, pins, FakeDelay(Rc::default())).unwrap();
        let frame = m.scan(1).unwrap();
        let expected: Vec<u16> = (0..25).map(|i| value(i, AdcKind::Mcp3208)).collect();
        prop_assert_eq!(frame.data, FrameData::Raw(expected));
    }
}
