//! tengen's scanning firmware on the RP2040: the portable core (`tengen-firmware`) wired
//! to the chip. The pins are in `docs/hardware.md`; in short:
//!
//! | GPIO | use |
//! |---|---|
//! | 0 | UART0 TX to the Pi (1 000 000 baud, 8N1) |
//! | 2..5 | `address` S0..S3: every first-level multiplexer |
//! | 6..9 | `adc_address` T0..T3: the two second-level multiplexers |
//! | 10, 11 | the board size, read at reset: both open 19x19, GPIO 10 to ground 13x13, GPIO 11 to ground 9x9 |
//! | 14, 15 | `black_button`, `white_button`: switches to ground, pull-ups |
//! | 25 | `led`: blinks, on and off about every second, while the firmware runs |
//! | 26, 27 | ADC inputs 0 and 1: the second-level multiplexers' outputs |
//!
//! The main loop calls `Firmware::poll`, which scans when a slot has come and samples the
//! buttons, then sleeps (WFI) until the time it asked for, woken by timer alarm 0. Each
//! conversion sleeps too, woken by the ADC's interrupt. Frames go into a transmit queue
//! that the UART's interrupt empties into its FIFO. Nothing calls the boot ROM.

#![no_std]
#![no_main]

use core::cell::RefCell;
use core::sync::atomic::{AtomicU32, Ordering};

use critical_section::Mutex;
use rp2040_hal as hal;

use hal::clocks::init_clocks_and_plls;
use hal::fugit::RateExtU32;
use hal::pac;
use hal::pac::interrupt;
use hal::uart::{DataBits, StopBits, UartConfig, UartPeripheral};
use hal::Clock;

use tengen_firmware::{Board, Config, Firmware, Link, ScanBus, TxQueue};

/// The second stage boot loader (flash set-up) in the first 256 bytes of flash. An
/// emulator that has no boot ROM starts at the vector table after it instead.
#[link_section = ".boot2"]
#[used]
pub static BOOT2_FIRMWARE: [u8; 256] = rp2040_boot2::BOOT_LOADER_W25Q080;

/// The crystal on a Pico (and most RP2040 boards).
const XTAL_HZ: u32 = 12_000_000;
/// `[hardware.serial] baud` on the Pi: 12-bit scans at 100 Hz need 564 kbit/s
/// (`hal/PROTOCOL.md`, section 4).
const BAUD: u32 = 1_000_000;
/// `address`: the first-level multiplexers' S0 (S1..S3 on the next three GPIOs).
const ADDRESS: u32 = 2;
/// `adc_address`: the second-level multiplexers' S0 (S1..S3 on the next three GPIOs).
const ADC_ADDRESS: u32 = 6;
/// The eight address lines' mask.
const ADDRESS_MASK: u32 = (0xF << ADDRESS) | (0xF << ADC_ADDRESS);
/// `black_button`: a switch to ground, with the pin's pull-up.
const BLACK_BUTTON: u32 = 14;
/// `white_button`: a switch to ground, with the pin's pull-up.
const WHITE_BUTTON: u32 = 15;
/// The 13x13 strap (`[board] size`): a jumper to ground selects it.
const SIZE_13: u32 = 10;
/// The 9x9 strap.
const SIZE_9: u32 = 11;
/// `led`: the Pico's own.
const LED: u32 = 25;
/// Bytes the transmit queue holds: seven 19x19 scans.
const QUEUE_BYTES: usize = 4096;

/// The last conversion's result with bit 31 set, put there by the ADC's interrupt; 0 while
/// a conversion runs.
static ADC_RESULT: AtomicU32 = AtomicU32::new(0);
/// The bit that says a result is there.
const ADC_DONE: u32 = 1 << 31;

/// The transmit queue, shared with the UART's interrupt.
static QUEUE: Mutex<RefCell<TxQueue<QUEUE_BYTES>>> = Mutex::new(RefCell::new(TxQueue::new()));

/// The registers this firmware drives directly on its hot path.
fn sio() -> &'static pac::sio::RegisterBlock {
    // SAFETY: SIO's GPIO registers are single-cycle and only this firmware's main loop
    // uses them (the set/clear/xor aliases make each write atomic).
    unsafe { &*pac::SIO::ptr() }
}

fn adc() -> &'static pac::adc::RegisterBlock {
    // SAFETY: the ADC is used by the main loop only, after `hal::adc::Adc::new` set it up.
    unsafe { &*pac::ADC::ptr() }
}

fn timer() -> &'static pac::timer::RegisterBlock {
    // SAFETY: the raw time registers are read-only; alarm 0 belongs to the main loop and
    // its interrupt handler, which only clears it.
    unsafe { &*pac::TIMER::ptr() }
}

fn uart() -> &'static pac::uart0::RegisterBlock {
    // SAFETY: after set-up, UART0's data, flag and mask registers are only touched inside
    // critical sections (`pump`).
    unsafe { &*pac::UART0::ptr() }
}

/// The free-running 64-bit microsecond timer, read without tearing.
fn now_us() -> u64 {
    let t = timer();
    loop {
        let hi = t.timerawh().read().bits();
        let lo = t.timerawl().read().bits();
        if t.timerawh().read().bits() == hi {
            return (u64::from(hi) << 32) | u64::from(lo);
        }
    }
}

/// Moves bytes from the queue into the UART's FIFO while it has room; keeps the transmit
/// interrupt on while bytes wait, off once the queue is empty.
fn pump(queue: &mut TxQueue<QUEUE_BYTES>) {
    let u = uart();
    loop {
        let waiting = queue.peek();
        let mut sent = 0;
        for &b in waiting {
            if u.uartfr().read().txff().bit_is_set() {
                break;
            }
            // SAFETY: any byte is a valid DATA value.
            u.uartdr().write(|w| unsafe { w.data().bits(b) });
            sent += 1;
        }
        let all = sent == waiting.len();
        queue.consume(sent);
        if !all || queue.is_empty() {
            break;
        }
    }
    let waiting = !queue.is_empty();
    u.uartimsc().modify(|_, w| w.txim().bit(waiting));
}

/// The link: whole frames into the queue, then as much as fits into the FIFO.
struct UartLink;

impl Link for UartLink {
    fn send(&mut self, frame: &[u8]) -> bool {
        critical_section::with(|cs| {
            let mut queue = QUEUE.borrow_ref_mut(cs);
            let queued = queue.push(frame);
            pump(&mut queue);
            queued
        })
    }
}

/// The board: address lines, ADC, buttons and clock, on registers.
struct Rp2040Board;

impl ScanBus for Rp2040Board {
    fn select(&mut self, address: u8, adc_address: u8) {
        let want = u32::from(address) << ADDRESS | u32::from(adc_address) << ADC_ADDRESS;
        let now = sio().gpio_out().read().bits() & ADDRESS_MASK;
        // SAFETY: only the address lines' bits are flipped.
        sio()
            .gpio_out_xor()
            .write(|w| unsafe { w.bits(now ^ want) });
    }

    /// One conversion thrown away: its 2 µs are the settle time after switching the
    /// address lines (the multiplexers switch in well under 1 µs; the Pi's direct driver
    /// waits `settle_ns` = 2000), and it leaves the ADC's sampling capacitor charged from
    /// the new point rather than the last one.
    fn settle(&mut self) {
        let _ = self.convert(0);
    }

    /// One conversion, the core asleep (WFI) until the ADC's interrupt brings the result.
    fn convert(&mut self, input: u8) -> u16 {
        ADC_RESULT.store(0, Ordering::Relaxed);
        // SAFETY: inputs 0..=3 are the ADC pins (the schedule uses 0 and 1).
        adc()
            .cs()
            .modify(|_, w| unsafe { w.ainsel().bits(input).start_once().set_bit() });
        loop {
            // Masked from the look to the WFI, as in `sleep_until`: a result that comes in
            // between leaves the interrupt pending, which ends the WFI.
            cortex_m::interrupt::disable();
            let result = ADC_RESULT.load(Ordering::Relaxed);
            if result & ADC_DONE == 0 {
                cortex_m::asm::wfi();
            }
            // SAFETY: interrupts are on everywhere else in the main loop.
            unsafe { cortex_m::interrupt::enable() };
            let result = ADC_RESULT.load(Ordering::Relaxed);
            if result & ADC_DONE != 0 {
                return result as u16 & 0x0FFF;
            }
        }
    }
}

impl Board for Rp2040Board {
    fn now_us(&mut self) -> u64 {
        now_us()
    }

    fn buttons(&mut self) -> [bool; 2] {
        let levels = sio().gpio_in().read().bits();
        // Pull-ups, switches to ground: closed reads low.
        [
            levels & (1 << BLACK_BUTTON) == 0,
            levels & (1 << WHITE_BUTTON) == 0,
        ]
    }
}

/// Sleeps until the timer reaches `until` (µs): alarm 0 wakes the core from WFI.
///
/// Interrupts are masked from the last look at the clock to the WFI: an alarm that fires
/// in between stays pending and ends the WFI at once, instead of being handled just
/// before a WFI that nothing would then end. (rp2040js fires an alarm set less than 1 µs
/// ahead at once, which made this race happen within a few milliseconds of boot.)
fn sleep_until(until: u64) {
    let t = timer();
    loop {
        cortex_m::interrupt::disable();
        if now_us() >= until {
            // SAFETY: interrupts were enabled before this function masked them.
            unsafe { cortex_m::interrupt::enable() };
            return;
        }
        // SAFETY: any value arms alarm 0 for that low word of the time.
        t.alarm0().write(|w| unsafe { w.bits(until as u32) });
        if now_us() < until {
            cortex_m::asm::wfi();
        }
        // The pending alarm's (or UART's) handler runs here.
        // SAFETY: as above.
        unsafe { cortex_m::interrupt::enable() };
    }
}

#[interrupt]
fn TIMER_IRQ_0() {
    // Clears alarm 0's interrupt; the main loop checks the time itself.
    // SAFETY: writing 1 to bit 0 of INTR clears alarm 0's interrupt only.
    timer().intr().write(|w| unsafe { w.bits(1) });
}

#[interrupt]
fn ADC_IRQ_FIFO() {
    let a = adc();
    let value = a.fifo().read().val().bits();
    // Writing FCS (its flags are write-one-to-clear) makes the ADC look at its FIFO level
    // again; the real chip drops the interrupt when the FIFO empties, rp2040js only then.
    a.fcs().modify(|_, w| w);
    ADC_RESULT.store(ADC_DONE | u32::from(value), Ordering::Relaxed);
}

#[interrupt]
fn UART0_IRQ() {
    critical_section::with(|cs| pump(&mut QUEUE.borrow_ref_mut(cs)));
}

#[hal::entry]
fn main() -> ! {
    let Some(mut pac) = pac::Peripherals::take() else {
        panic!("peripherals taken twice");
    };
    let mut watchdog = hal::Watchdog::new(pac.WATCHDOG);
    let Ok(clocks) = init_clocks_and_plls(
        XTAL_HZ,
        pac.XOSC,
        pac.CLOCKS,
        pac.PLL_SYS,
        pac.PLL_USB,
        &mut pac.RESETS,
        &mut watchdog,
    ) else {
        panic!("clocks did not start");
    };
    let hal_sio = hal::Sio::new(pac.SIO);
    let pins = hal::gpio::Pins::new(
        pac.IO_BANK0,
        pac.PADS_BANK0,
        hal_sio.gpio_bank0,
        &mut pac.RESETS,
    );

    // The eight address lines, low; the buttons with pull-ups; the LED.
    let _address = (
        pins.gpio2.into_push_pull_output(),
        pins.gpio3.into_push_pull_output(),
        pins.gpio4.into_push_pull_output(),
        pins.gpio5.into_push_pull_output(),
        pins.gpio6.into_push_pull_output(),
        pins.gpio7.into_push_pull_output(),
        pins.gpio8.into_push_pull_output(),
        pins.gpio9.into_push_pull_output(),
    );
    let _buttons = (
        pins.gpio14.into_pull_up_input(),
        pins.gpio15.into_pull_up_input(),
    );
    let _led = pins.gpio25.into_push_pull_output();
    let _straps = (
        pins.gpio10.into_pull_up_input(),
        pins.gpio11.into_pull_up_input(),
    );

    // The ADC on GPIO 26 and 27 (digital side of the pads off); each result through the
    // FIFO (threshold 1) and its interrupt.
    let _adc = hal::Adc::new(pac.ADC, &mut pac.RESETS);
    // SAFETY: threshold 1 of the FIFO's 4 entries.
    adc()
        .fcs()
        .write(|w| unsafe { w.en().set_bit().thresh().bits(1) });
    adc().inte().write(|w| w.fifo().set_bit());
    let (Ok(_adc0), Ok(_adc1)) = (
        hal::adc::AdcPin::new(pins.gpio26.into_floating_input()),
        hal::adc::AdcPin::new(pins.gpio27.into_floating_input()),
    ) else {
        panic!("ADC pins");
    };

    // UART0 on GPIO 0 (TX) and 1 (RX, unused: the link is one-way).
    let uart_pins = (
        pins.gpio0.into_function::<hal::gpio::FunctionUart>(),
        pins.gpio1.into_function::<hal::gpio::FunctionUart>(),
    );
    let Ok(_uart) = UartPeripheral::new(pac.UART0, uart_pins, &mut pac.RESETS).enable(
        UartConfig::new(BAUD.Hz(), DataBits::Eight, None, StopBits::One),
        clocks.peripheral_clock.freq(),
    ) else {
        panic!("UART");
    };

    // The microsecond timer, alarm 0's interrupt on.
    let _timer = hal::Timer::new(pac.TIMER, &mut pac.RESETS, &clocks);
    // SAFETY: bit 0 enables alarm 0's interrupt only.
    timer().inte().write(|w| unsafe { w.bits(1) });
    // SAFETY: both handlers above are ready and use only critical sections and registers
    // of their own.
    unsafe {
        pac::NVIC::unmask(pac::Interrupt::TIMER_IRQ_0);
        pac::NVIC::unmask(pac::Interrupt::UART0_IRQ);
        pac::NVIC::unmask(pac::Interrupt::ADC_IRQ_FIFO);
    }

    // The pull-ups have had the whole set-up to charge the straps' wiring.
    let straps = sio().gpio_in().read().bits();
    let size = if straps & (1 << SIZE_9) == 0 {
        9
    } else if straps & (1 << SIZE_13) == 0 {
        13
    } else {
        19
    };
    let Ok(mut firmware) = Firmware::new(Config {
        size,
        ..Config::standard()
    }) else {
        panic!("firmware configuration");
    };
    let mut board = Rp2040Board;
    let mut link = UartLink;
    loop {
        let next = firmware.poll(&mut board, &mut link);
        // The LED: on and off about every second (2^20 µs), a sign of life a board maker
        // can see (no 64-bit division on this core).
        let led_on = (now_us() >> 20) & 1 == 0;
        let bit = 1 << LED;
        if led_on {
            // SAFETY: only the LED's bit.
            sio().gpio_out_set().write(|w| unsafe { w.bits(bit) });
        } else {
            // SAFETY: only the LED's bit.
            sio().gpio_out_clr().write(|w| unsafe { w.bits(bit) });
        }
        sleep_until(next);
    }
}

/// A panic resets the chip: the Pi sees a boot hello and the board goes on within
/// milliseconds, rather than a silent board.
#[panic_handler]
fn panic(_info: &core::panic::PanicInfo<'_>) -> ! {
    cortex_m::peripheral::SCB::sys_reset()
}
