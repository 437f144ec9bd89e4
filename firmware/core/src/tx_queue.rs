//! The transmit queue: a ring of bytes between the main loop, which puts whole frames in,
//! and the UART, which takes bytes out as its FIFO has room. A frame goes in whole or not
//! at all (`hal/PROTOCOL.md`: drop a whole scan rather than send part of one).

/// A ring buffer of `N` bytes.
#[derive(Debug, Clone)]
pub struct TxQueue<const N: usize> {
    buf: [u8; N],
    head: usize,
    len: usize,
    high_water: usize,
}

impl<const N: usize> Default for TxQueue<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> TxQueue<N> {
    /// An empty queue.
    pub const fn new() -> Self {
        TxQueue {
            buf: [0; N],
            head: 0,
            len: 0,
            high_water: 0,
        }
    }

    /// Bytes waiting.
    pub const fn len(&self) -> usize {
        self.len
    }

    /// True when nothing waits.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes that can still go in.
    pub const fn free(&self) -> usize {
        N - self.len
    }

    /// The most bytes that have waited at once.
    pub const fn high_water(&self) -> usize {
        self.high_water
    }

    /// Puts `frame` in whole and returns true, or leaves the queue as it was and returns
    /// false when it does not fit.
    pub fn push(&mut self, frame: &[u8]) -> bool {
        if frame.len() > self.free() {
            return false;
        }
        let tail = (self.head + self.len) % N;
        let first = frame.len().min(N - tail);
        self.buf[tail..tail + first].copy_from_slice(&frame[..first]);
        self.buf[..frame.len() - first].copy_from_slice(&frame[first..]);
        self.len += frame.len();
        self.high_water = self.high_water.max(self.len);
        true
    }

    /// The oldest bytes waiting that lie in one piece (empty when nothing waits).
    pub fn peek(&self) -> &[u8] {
        let first = self.len.min(N - self.head);
        &self.buf[self.head..self.head + first]
    }

    /// Drops the `n` oldest bytes (those the UART took).
    pub fn consume(&mut self, n: usize) {
        let n = n.min(self.len);
        self.head = (self.head + n) % N;
        self.len -= n;
    }

    /// Takes the oldest byte.
    pub fn pop(&mut self) -> Option<u8> {
        let b = *self.peek().first()?;
        self.consume(1);
        Some(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_go_in_whole_and_come_out_in_order_across_the_wrap() {
        let mut q = TxQueue::<8>::new();
        assert!(q.push(&[1, 2, 3, 4, 5]));
        assert!(!q.push(&[6, 7, 8, 9]), "does not fit: nothing goes in");
        assert_eq!(q.len(), 5);
        assert_eq!(q.peek(), &[1, 2, 3, 4, 5]);
        q.consume(4);
        assert!(q.push(&[6, 7, 8, 9, 10, 11]));
        assert_eq!(q.peek(), &[5, 6, 7, 8], "up to the end of the ring");
        let mut out = [0u8; 7];
        for o in &mut out {
            *o = q.pop().unwrap();
        }
        assert_eq!(out, [5, 6, 7, 8, 9, 10, 11]);
        assert!(q.is_empty());
        assert_eq!(q.pop(), None);
        assert_eq!(q.high_water(), 7);
    }
}
