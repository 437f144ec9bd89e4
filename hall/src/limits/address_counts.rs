//! How many of something (public requests being answered, event streams) each client
//! address holds, with a cap per address and one in total. Sans-IO: the public caps' layer
//! counts here and acts on the answer.

use std::collections::HashMap;
use std::net::IpAddr;

/// Which cap a new one would pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Over {
    /// The address already holds its share.
    Address,
    /// The hall holds as many as it takes.
    Total,
}

/// Counts per address and in total, against two caps.
#[derive(Debug)]
pub(crate) struct AddressCounts {
    per_address: usize,
    total: usize,
    by_address: HashMap<IpAddr, usize>,
    held: usize,
}

/// The address a client is counted under: an IPv4 client reaching a dual-stack socket
/// (`::ffff:a.b.c.d`) is the IPv4 address it is.
pub(crate) fn client_key(ip: IpAddr) -> IpAddr {
    ip.to_canonical()
}

impl AddressCounts {
    /// No more than `per_address` from one address and `total` in all.
    pub(crate) fn new(per_address: usize, total: usize) -> AddressCounts {
        AddressCounts {
            per_address,
            total,
            by_address: HashMap::new(),
            held: 0,
        }
    }

    /// Counts one more for `ip` if both caps allow it.
    pub(crate) fn take(&mut self, ip: IpAddr) -> Result<(), Over> {
        let ip = client_key(ip);
        let mine = self.by_address.get(&ip).copied().unwrap_or(0);
        if mine >= self.per_address {
            return Err(Over::Address);
        }
        if self.held >= self.total {
            return Err(Over::Total);
        }
        self.count(ip);
        Ok(())
    }

    /// Counts one more for `ip` whatever the caps.
    fn count(&mut self, ip: IpAddr) {
        *self.by_address.entry(client_key(ip)).or_insert(0) += 1;
        self.held += 1;
    }

    /// One fewer for `ip` (nothing if it held none).
    pub(crate) fn give_back(&mut self, ip: IpAddr) {
        let ip = client_key(ip);
        if let Some(n) = self.by_address.get_mut(&ip) {
            *n -= 1;
            self.held -= 1;
            if *n == 0 {
                self.by_address.remove(&ip);
            }
        }
    }

    /// How many are held in all.
    #[cfg(test)]
    pub(crate) fn held(&self) -> usize {
        self.held
    }

    /// How many `ip` holds.
    #[cfg(test)]
    pub(crate) fn held_by(&self, ip: IpAddr) -> usize {
        self.by_address.get(&client_key(ip)).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn each_address_gets_its_share_and_the_total_bounds_them_all() {
        let mut c = AddressCounts::new(2, 3);
        assert_eq!(c.take(ip("10.0.0.1")), Ok(()));
        assert_eq!(c.take(ip("10.0.0.1")), Ok(()));
        assert_eq!(c.take(ip("10.0.0.1")), Err(Over::Address));
        assert_eq!(c.take(ip("10.0.0.2")), Ok(()));
        assert_eq!(c.take(ip("10.0.0.3")), Err(Over::Total));
        c.give_back(ip("10.0.0.1"));
        assert_eq!(c.held_by(ip("10.0.0.1")), 1);
        assert_eq!(c.take(ip("10.0.0.3")), Ok(()));
        assert_eq!(c.held(), 3);
    }

    #[test]
    fn a_counted_return_may_pass_the_caps_and_giving_back_never_underflows() {
        let mut c = AddressCounts::new(1, 1);
        c.take(ip("10.0.0.1")).unwrap();
        c.count(ip("10.0.0.1"));
        assert_eq!(c.held_by(ip("10.0.0.1")), 2);
        c.give_back(ip("10.0.0.1"));
        c.give_back(ip("10.0.0.1"));
        c.give_back(ip("10.0.0.1"));
        c.give_back(ip("10.0.0.9"));
        assert_eq!(c.held(), 0);
        assert_eq!(c.take(ip("10.0.0.1")), Ok(()));
    }

    #[test]
    fn an_ipv4_client_on_a_dual_stack_socket_is_its_ipv4_address() {
        let mut c = AddressCounts::new(1, 10);
        c.take(ip("192.168.1.20")).unwrap();
        assert_eq!(c.take(ip("::ffff:192.168.1.20")), Err(Over::Address));
        assert_eq!(c.take(ip("fe80::1")), Ok(()));
    }
}
