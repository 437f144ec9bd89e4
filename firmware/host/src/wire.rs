//! The UART line: rp2040js hands over each byte as the firmware writes it to the
//! transmit register, with no FIFO or baud timing; the line below puts each byte on the
//! wire at the configured rate (10 bits a byte, 8N1) after the ones before it, which is
//! when the real chip's UART would finish sending it while the firmware keeps its FIFO fed.

/// The line at `baud`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UartLine {
    byte_ns: u64,
    free_at: u64,
    busiest_backlog_ns: u64,
}

impl UartLine {
    /// A line at `baud` bits per second, idle.
    pub fn new(baud: u32) -> UartLine {
        UartLine {
            byte_ns: 10 * 1_000_000_000 / u64::from(baud.max(1)),
            free_at: 0,
            busiest_backlog_ns: 0,
        }
    }

    /// A byte written at `ns`: when its stop bit ends.
    pub fn send(&mut self, ns: u64) -> u64 {
        let start = self.free_at.max(ns);
        self.busiest_backlog_ns = self.busiest_backlog_ns.max(start - ns);
        self.free_at = start + self.byte_ns;
        self.free_at
    }

    /// The longest a byte has waited for the line (ns): how full the UART's FIFO and the
    /// firmware's queue got.
    pub fn busiest_backlog_ns(&self) -> u64 {
        self.busiest_backlog_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_queue_behind_each_other_at_ten_bits_each() {
        let mut line = UartLine::new(1_000_000);
        assert_eq!(line.send(0), 10_000);
        assert_eq!(line.send(0), 20_000);
        assert_eq!(line.send(100_000), 110_000);
        assert_eq!(line.busiest_backlog_ns(), 10_000);
    }
}
