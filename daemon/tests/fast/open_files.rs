//! `tengen run` and `tengen hall` raise their open-files soft limit to the hard one at
//! start and say so once (issue 21, item 4): started as systemd starts a service without
//! `LimitNOFILE=` (a soft limit of 1,024 under a higher hard one), each runs with the hard
//! limit (read back from `/proc/PID/limits`) and logs `open files: soft limit raised from
//! 1024 to 4096 (the hard limit)`; the hall also logs the caps it sized on it.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::board;

/// `tengen ARGS` with its open-files limit set to `soft`/`hard` before it runs, its
/// standard error to `log`.
fn tengen_limited(args: &[&str], soft: u64, hard: u64, log: &Path) -> Child {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tengen"));
    cmd.args(args)
        .env("RUST_LOG", "info")
        .env("NO_COLOR", "1")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).expect("the log file"));
    // SAFETY: setrlimit is async-signal-safe; nothing else runs in the child before exec.
    unsafe {
        cmd.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: soft as libc::rlim_t,
                rlim_max: hard as libc::rlim_t,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.spawn().expect("run tengen")
}

/// The soft open-files limit of process `pid`.
fn soft_limit_of(pid: u32) -> Option<u64> {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

/// Waits (at most 20 s) until `log` has a line holding `needle`; the whole log.
fn wait_for(log: &Path, needle: &str) -> String {
    let start = Instant::now();
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        if text.contains(needle) || start.elapsed() > Duration::from_secs(20) {
            return text;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn stop(mut child: Child) {
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let _ = child.wait();
}

#[test]
fn tengen_run_and_tengen_hall_start_with_the_hard_open_files_limit() {
    let dir = tempfile::tempdir().unwrap();
    let raised = "open files: soft limit raised from 1024 to 4096 (the hard limit)";

    let config = board::write_config(dir.path(), "mqtt://127.0.0.1:1", 1.0);
    let log = dir.path().join("run.log");
    let run = tengen_limited(
        &["run", "--config", config.to_str().unwrap()],
        1024,
        4096,
        &log,
    );
    let text = wait_for(&log, raised);
    let soft = soft_limit_of(run.id());
    stop(run);
    assert_eq!(text.matches("open files:").count(), 1, "{text}");
    assert!(text.contains(raised), "{text}");
    assert_eq!(soft, Some(4096));

    let log = dir.path().join("hall.log");
    let args = [
        "hall",
        "--broker",
        "mqtt://127.0.0.1:1",
        "--http",
        "127.0.0.1:0",
    ];
    let hall = tengen_limited(&args, 1024, 4096, &log);
    let text = wait_for(&log, "tengen hall: http://");
    let soft = soft_limit_of(hall.id());
    stop(hall);
    assert_eq!(text.matches("open files:").count(), 1, "{text}");
    assert!(text.contains(raised), "{text}");
    assert!(
        text.contains(
            "hall: at most 2944 public event streams (32 from one address), 512 idle \
             connections (8 from one address) and 512 public requests answered at once (32 \
             from one address), for an open-files limit of 4096"
        ),
        "{text}"
    );
    assert_eq!(soft, Some(4096));
}
