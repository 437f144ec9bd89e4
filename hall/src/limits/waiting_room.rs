//! The connections the hall is waiting on (issue 34): their TLS handshake, their first
//! request, the next on a kept-alive connection, or the body of a request whose head has
//! come. Each is counted against its address and against all, in the order it began to
//! wait. A new connection beyond its address's share is refused; one beyond the total
//! makes room: the connection that has waited longest, of the address waited on most, is
//! closed. So a crowd of addresses holding connections open cannot keep out one that asks
//! and goes (an arbiter's console): theirs go first. Sans-IO: the listener keeps one of
//! these and closes what it is told to.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;

use super::address_counts::client_key;

/// A new connection's address already holds its share of the room.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AddressFull;

/// One connection waited on: its id, and when it began to wait (an order, not a time).
struct Waiting<H> {
    id: u64,
    order: u64,
    handle: H,
}

/// The connections waited on, per address, oldest first; `H` closes one (the listener's
/// handle to it).
pub(crate) struct WaitingRoom<H> {
    per_address: usize,
    total: usize,
    by_address: HashMap<IpAddr, VecDeque<Waiting<H>>>,
    held: usize,
    next_order: u64,
}

impl<H: Clone> WaitingRoom<H> {
    /// No more than `per_address` from one address and `total` in all.
    pub(crate) fn new(per_address: usize, total: usize) -> WaitingRoom<H> {
        WaitingRoom {
            per_address,
            total: total.max(1),
            by_address: HashMap::new(),
            held: 0,
            next_order: 0,
        }
    }

    /// A new connection `id` of `ip`: refused beyond its address's share; beyond the total,
    /// let in and the handle of the one to close to make room returned (already counted
    /// out).
    pub(crate) fn enter(
        &mut self,
        ip: IpAddr,
        id: u64,
        handle: H,
    ) -> Result<Option<H>, AddressFull> {
        let ip = client_key(ip);
        if self.held_by(ip) >= self.per_address {
            return Err(AddressFull);
        }
        let made_room = if self.held >= self.total {
            self.longest_waiting()
        } else {
            None
        };
        self.push(ip, id, handle);
        Ok(made_room)
    }

    /// Connection `id` of `ip` waited on again (idle after its answer): counted whatever
    /// the caps, as the newest (it said `Connection: close` if there was no room).
    pub(crate) fn come_back(&mut self, ip: IpAddr, id: u64, handle: H) {
        let ip = client_key(ip);
        self.leave(ip, id);
        self.push(ip, id, handle);
    }

    /// Connection `id` of `ip` began again to wait (a request's body after a long idle
    /// time): the newest now, if it is counted.
    pub(crate) fn renew(&mut self, ip: IpAddr, id: u64) {
        let ip = client_key(ip);
        let order = self.next_order;
        let Some(queue) = self.by_address.get_mut(&ip) else {
            return;
        };
        let Some(at) = queue.iter().position(|w| w.id == id) else {
            return;
        };
        if let Some(mut w) = queue.remove(at) {
            w.order = order;
            queue.push_back(w);
            self.next_order += 1;
        }
    }

    /// Connection `id` of `ip` is no longer waited on (being answered, or closed); nothing
    /// if it was not counted.
    pub(crate) fn leave(&mut self, ip: IpAddr, id: u64) {
        let ip = client_key(ip);
        let Some(queue) = self.by_address.get_mut(&ip) else {
            return;
        };
        if let Some(at) = queue.iter().position(|w| w.id == id) {
            queue.remove(at);
            self.held -= 1;
        }
        if queue.is_empty() {
            self.by_address.remove(&ip);
        }
    }

    /// Whether one more for `ip` would be within its address's share (the total aside).
    pub(crate) fn address_has_room(&self, ip: IpAddr) -> bool {
        self.held_by(client_key(ip)) < self.per_address
    }

    fn held_by(&self, ip: IpAddr) -> usize {
        self.by_address.get(&ip).map_or(0, VecDeque::len)
    }

    fn push(&mut self, ip: IpAddr, id: u64, handle: H) {
        let order = self.next_order;
        self.next_order += 1;
        self.by_address
            .entry(ip)
            .or_default()
            .push_back(Waiting { id, order, handle });
        self.held += 1;
    }

    /// Counts out and returns the connection waited on longest of the address waited on
    /// most.
    fn longest_waiting(&mut self) -> Option<H> {
        let ip = self
            .by_address
            .iter()
            .filter_map(|(ip, q)| q.front().map(|w| (*ip, q.len(), w.order)))
            .max_by_key(|&(_, len, order)| (len, std::cmp::Reverse(order)))?
            .0;
        let queue = self.by_address.get_mut(&ip)?;
        let w = queue.pop_front()?;
        self.held -= 1;
        if queue.is_empty() {
            self.by_address.remove(&ip);
        }
        Some(w.handle)
    }

    /// How many are waited on in all.
    #[cfg(test)]
    pub(crate) fn held(&self) -> usize {
        self.held
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn an_address_beyond_its_share_is_refused_and_the_total_makes_room() {
        let mut room = WaitingRoom::new(2, 4);
        let a = ip("10.0.0.1");
        let b = ip("10.0.0.2");
        assert_eq!(room.enter(a, 1, "a1"), Ok(None));
        assert_eq!(room.enter(a, 2, "a2"), Ok(None));
        assert_eq!(room.enter(a, 3, "a3"), Err(AddressFull));
        assert_eq!(room.enter(b, 4, "b4"), Ok(None));
        assert_eq!(room.enter(b, 5, "b5"), Ok(None));
        // Full: a newcomer gets in, and the longest waiting of the biggest holders goes
        // (a and b hold two each; a's first is older).
        assert_eq!(room.enter(ip("10.0.0.3"), 6, "c6"), Ok(Some("a1")));
        assert_eq!(room.held(), 4);
        // Now b holds the most.
        assert_eq!(room.enter(ip("10.0.0.4"), 7, "d7"), Ok(Some("b4")));
        // a1 is gone already: leaving it again changes nothing.
        room.leave(a, 1);
        assert_eq!(room.held(), 4);
        assert!(room.address_has_room(a));
    }

    #[test]
    fn a_connection_waited_on_again_is_the_newest() {
        let mut room = WaitingRoom::new(8, 3);
        let a = ip("10.0.0.1");
        room.enter(a, 1, 1).unwrap();
        room.enter(a, 2, 2).unwrap();
        room.enter(a, 3, 3).unwrap();
        // 1 was answered and is idle again; 2 began a request's body.
        room.leave(a, 1);
        room.come_back(a, 1, 1);
        room.renew(a, 2);
        assert_eq!(room.enter(ip("10.0.0.2"), 4, 4), Ok(Some(3)));
        assert_eq!(room.enter(ip("10.0.0.2"), 5, 5), Ok(Some(1)));
        // Counted whatever the caps when it comes back.
        room.come_back(a, 9, 9);
        assert_eq!(room.held(), 4);
    }

    #[test]
    fn an_ipv4_client_on_a_dual_stack_socket_is_its_ipv4_address() {
        let mut room = WaitingRoom::new(1, 10);
        room.enter(ip("192.168.1.20"), 1, ()).unwrap();
        assert_eq!(
            room.enter(ip("::ffff:192.168.1.20"), 2, ()),
            Err(AddressFull)
        );
        room.leave(ip("::ffff:192.168.1.20"), 1);
        assert_eq!(room.held(), 0);
    }
}
