//! What a load bench reads of the processes it measures, from `/proc`: CPU time, resident
//! memory now and at peak, open files. Included by each bench with `#[path]`.

/// CPU time (ticks), resident memory now and at peak (kB), open files, of one process.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ProcSample {
    /// CPU time, user and system, in clock ticks.
    pub(crate) ticks: u64,
    /// Resident memory (kB).
    pub(crate) rss_kb: u64,
    /// Peak resident memory (kB).
    pub(crate) hwm_kb: u64,
    /// Open files.
    pub(crate) fds: usize,
}

/// The sum over the processes `pids` (`PID[,PID...]`), if any of them could be read.
pub(crate) fn sample(pids: &str) -> Option<ProcSample> {
    let each: Vec<ProcSample> = pids
        .split(',')
        .filter_map(|p| sample_one(p.trim()))
        .collect();
    (!each.is_empty()).then(|| ProcSample {
        ticks: each.iter().map(|s| s.ticks).sum(),
        rss_kb: each.iter().map(|s| s.rss_kb).sum(),
        hwm_kb: each.iter().map(|s| s.hwm_kb).sum(),
        fds: each.iter().map(|s| s.fds).sum(),
    })
}

fn sample_one(pid: &str) -> Option<ProcSample> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command name (which may hold spaces) start after the last ')'.
    let after = stat.rsplit_once(')')?.1;
    let f: Vec<&str> = after.split_whitespace().collect();
    let utime: u64 = f.get(11)?.parse().ok()?;
    let stime: u64 = f.get(12)?.parse().ok()?;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kb = |key: &str| {
        status
            .lines()
            .find(|l| l.starts_with(key))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or(0)
    };
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|d| d.count())
        .unwrap_or(0);
    Some(ProcSample {
        ticks: utime + stime,
        rss_kb: kb("VmRSS:"),
        hwm_kb: kb("VmHWM:"),
        fds,
    })
}

/// Clock ticks per second (`CLK_TCK`), for [`ProcSample::ticks`].
pub(crate) fn clock_ticks() -> f64 {
    // SAFETY: sysconf only reads a system constant.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as f64
    } else {
        100.0
    }
}
