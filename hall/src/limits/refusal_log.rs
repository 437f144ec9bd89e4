//! What the hall logs when it closes connections or refuses streams by its caps: the first
//! refusal at once, then at most one line a minute counting the others, so that a flood
//! does not flood the log too. Sans-IO: time is passed in.

use std::net::IpAddr;
use std::time::{Duration, Instant};

/// How often a line is written while refusals go on.
const EVERY: Duration = Duration::from_secs(60);

/// Refusals of one kind (connections, or streams), counted between log lines.
#[derive(Debug, Default)]
pub(crate) struct RefusalLog {
    /// When the last line was written.
    said: Option<Instant>,
    /// Refusals since then.
    unsaid: u64,
}

impl RefusalLog {
    /// Counts a refusal of `ip` for `why`; the line to log, if one is due.
    pub(crate) fn refused(&mut self, now: Instant, ip: IpAddr, why: &str) -> Option<String> {
        match self.said {
            Some(at) if now.duration_since(at) < EVERY => {
                self.unsaid += 1;
                None
            }
            Some(at) => {
                let others = self.unsaid;
                self.said = Some(now);
                self.unsaid = 0;
                Some(format!(
                    "{why} (from {ip}; {others} more refused in the {} s before)",
                    now.duration_since(at).as_secs()
                ))
            }
            None => {
                self.said = Some(now);
                Some(format!(
                    "{why} (from {ip}; more are counted in one line a minute)"
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flood_is_one_line_a_minute() {
        let t0 = Instant::now();
        let ip: IpAddr = "10.0.0.7".parse().unwrap();
        let mut log = RefusalLog::default();
        let first = log.refused(t0, ip, "too many").expect("the first is said");
        assert_eq!(
            first,
            "too many (from 10.0.0.7; more are counted in one line a minute)"
        );
        let said: Vec<String> = (1..=6000)
            .filter_map(|i| log.refused(t0 + Duration::from_millis(10 * i), ip, "too many"))
            .collect();
        assert_eq!(
            said,
            ["too many (from 10.0.0.7; 5999 more refused in the 60 s before)"]
        );
    }
}
