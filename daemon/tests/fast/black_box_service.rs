//! The black box of a running board (issue 23): a `tengen run` board on the sim backend
//! keeps `frames/{game}.frames` beside its journal and serves it at `/api/frames`; the hall
//! fetches a window from it with a signed `frames` command for arbiters only
//! (`/api/console/board/{t}/{b}/frames`), by times or around a moment. A real mosquitto,
//! the real hall.

use std::net::SocketAddr;
use std::path::Path;

use crate::board::{self, BoardProcess, BOARD};
use crate::broker::{free_port, wait_listening, Mosquitto};
use crate::http::{console_login, get, session_cookie, wait_for};
use crate::signed::sign_commands;

use tengen_hall::HallConfig;

const TOKEN: &str = "black-box-token-0123";

/// The board's config: the fixture game at real speed on a noisy board, HTTP on `port`,
/// signed commands.
fn board_config(dir: &Path, broker: &Mosquitto, port: u16) -> std::path::PathBuf {
    let path = board::write_config(dir, &broker.url(), 1.0);
    let text = std::fs::read_to_string(&path).expect("config");
    std::fs::write(
        &path,
        text.replace("127.0.0.1:0", &format!("127.0.0.1:{port}"))
            // Sensor noise: the sensors see changes from the first second.
            .replace("seed = 7\n", "seed = 7\nnoise = 0.001\n"),
    )
    .expect("config");
    sign_commands(&path);
    path
}

/// The JSON lines of a frames answer.
fn lines(body: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(body)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_board_keeps_its_frames_and_the_hall_shows_them_to_arbiters_only() {
    let Some(broker) = Mosquitto::start() else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let port = free_port();
    let config = board_config(dir.path(), &broker, port);
    let process = BoardProcess::start(&config);
    let board_addr = SocketAddr::from(([127, 0, 0, 1], port));
    assert!(
        wait_listening(port, std::time::Duration::from_secs(15)),
        "the board's HTTP"
    );

    // The board's own route: the first three seconds of its game, once they are written
    // (a block of changes is written and synced about a second after it starts).
    let window = "/api/frames?from=0&to=3000";
    tokio::time::sleep_until((process.started + std::time::Duration::from_secs(5)).into()).await;
    let mut last = String::new();
    let mut from_board = None;
    for _ in 0..100 {
        let r = get(board_addr, window, &[]).await;
        if r.status == 200 && lines(&r.body).len() > 1 {
            from_board = Some(r.body);
            break;
        }
        last = format!("{} {}", r.status, String::from_utf8_lossy(&r.body));
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let from_board = from_board.unwrap_or_else(|| panic!("the board's frames: {last}"));
    let first = &lines(&from_board)[0];
    assert_eq!(first["board"].as_str().map(str::len), Some(81), "{first}");
    // Beside the journal, one file for the game.
    let frames_dir = process.data().join("frames");
    let files: Vec<_> = std::fs::read_dir(&frames_dir)
        .expect("the frames folder")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files, vec!["g1.frames".to_string()], "{frames_dir:?}");
    // Bad windows: one line each.
    for bad in [
        "/api/frames?from=5&to=1",
        "/api/frames?from=x",
        "/api/frames",
    ] {
        let r = get(board_addr, bad, &[]).await;
        assert_eq!(r.status, 400, "{bad}: {}", String::from_utf8_lossy(&r.body));
        assert_eq!(String::from_utf8_lossy(&r.body).trim().lines().count(), 1);
    }

    // The hall, sharing the boards' command key, with one arbiter.
    let hall_file = dir.path().join("hall.toml");
    std::fs::write(
        &hall_file,
        format!(
            "[hall]\ntournaments = [\"faults\"]\nboards = [\"{BOARD}\"]\nidentity = \"hall\"\n\
             command_key_file = \"{}\"\n\
             [[arbiter]]\nname = \"chief\"\ntoken = \"{TOKEN}\"\n",
            dir.path().join("command.key").display()
        ),
    )
    .expect("hall.toml");
    let hall_config = HallConfig::load(&hall_file).expect("a valid hall.toml");
    let hall = tengen_hall::start(&broker.url(), "127.0.0.1:0", &hall_config)
        .await
        .expect("the hall starts");
    let cookie = session_cookie(&console_login(hall.addr, "chief", TOKEN).await);
    let auth = [("Cookie", cookie.as_str())];
    let route = format!("/api/console/board/faults/{BOARD}/frames");

    // Not for the public.
    let r = get(hall.addr, &format!("{route}?from=0&to=3000"), &[]).await;
    assert_eq!(r.status, 401);
    // An arbiter gets exactly what the board serves for the same window.
    let through_hall = wait_for("the frames through the hall", || async {
        let r = get(hall.addr, &format!("{route}?from=0&to=3000"), &auth).await;
        (r.status == 200).then_some(r.body)
    })
    .await;
    assert_eq!(lines(&through_hall), lines(&from_board));
    // Around a moment: ten seconds either side of now, the moment in a header.
    let now = tengen_protocol::Timestamp::now().to_string();
    let r = get(hall.addr, &format!("{route}?around={now}"), &auth).await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let centre: u64 = r
        .head
        .lines()
        .find_map(|l| l.strip_prefix("x-tengen-around-ms: "))
        .and_then(|v| v.trim().parse().ok())
        .expect("the moment in a header");
    assert!(centre > 2000, "{centre}");
    let around = lines(&r.body);
    assert!(!around.is_empty());
    assert!(around
        .iter()
        .all(|v| v["ms"].as_u64().is_some_and(|ms| ms + 10_000 >= centre)));
    // Bad requests: one line, no command sent.
    for bad in ["?from=0&to=400000", "?around=yesterday", "?to=5"] {
        let r = get(hall.addr, &format!("{route}{bad}"), &auth).await;
        assert_eq!(r.status, 400, "{bad}");
        assert_eq!(String::from_utf8_lossy(&r.body).trim().lines().count(), 1);
    }
    let r = get(
        hall.addr,
        "/api/console/board/faults/nobody/frames?from=0&to=10",
        &auth,
    )
    .await;
    assert_eq!(r.status, 404);
    drop(process);
}

/// The names in a zip and, extracted to `dir`, its `frames/` entries: Python's `zipfile`,
/// not the hall's zip writer, reads it.
fn unzip(zip: &[u8], dir: &Path) -> Vec<String> {
    let file = dir.join("round.zip");
    std::fs::write(&file, zip).expect("zip written");
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\n\
             [print(n) for n in z.namelist()]\nz.extractall(sys.argv[2])\n",
        ])
        .arg(&file)
        .arg(dir.join("unzipped"))
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// `tengen frames FILE --from 0 --to TO --json`.
fn every_line(file: &Path, to: u64) -> String {
    let out = crate::cli::tengen(&[
        "frames",
        file.to_str().expect("utf-8 path"),
        "--from",
        "0",
        "--to",
        &to.to_string(),
        "--json",
    ]);
    assert!(out.status.success(), "{}", crate::cli::stderr(&out));
    crate::cli::stdout(&out)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_arbiters_round_zip_holds_each_games_frames_and_the_publics_does_not() {
    let Some(broker) = Mosquitto::start() else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    // The fixture game at 20 times real speed, round 1, table 3.
    let config = board::write_config(dir.path(), &broker.url(), 20.0);
    let text = std::fs::read_to_string(&config).expect("config");
    std::fs::write(
        &config,
        text.replace("seed = 7\n", "seed = 7\nnoise = 0.001\n")
            + "[game]\nround = \"1\"\ntable = \"3\"\n",
    )
    .expect("config");
    sign_commands(&config);
    let hall_file = dir.path().join("hall.toml");
    std::fs::write(
        &hall_file,
        format!(
            "[hall]\ntournaments = [\"faults\"]\nboards = [\"{BOARD}\"]\nidentity = \"hall\"\n\
             command_key_file = \"{}\"\narchive_dir = \"{}\"\n\
             [[arbiter]]\nname = \"chief\"\ntoken = \"{TOKEN}\"\n",
            dir.path().join("command.key").display(),
            dir.path().join("archive").display()
        ),
    )
    .expect("hall.toml");
    let hall_config = HallConfig::load(&hall_file).expect("a valid hall.toml");
    let hall = tengen_hall::start(&broker.url(), "127.0.0.1:0", &hall_config)
        .await
        .expect("the hall starts");
    let process = BoardProcess::start(&config);

    // Once the game is over, the hall fetches its frames into the archive.
    let kept = dir.path().join(format!("archive/faults/{BOARD}/g1.frames"));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !kept.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "no frames in the archive; the board: {}",
            process.log()
        );
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    let cookie = session_cookie(&console_login(hall.addr, "chief", TOKEN).await);
    let auth = [("Cookie", cookie.as_str())];
    let zip = get(hall.addr, "/round/1.zip", &auth).await;
    assert_eq!(zip.status, 200);
    let names = unzip(&zip.body, dir.path());
    assert!(names.contains(&"frames/3.frames".to_string()), "{names:?}");
    assert!(names.iter().any(|n| n.ends_with(".sgf")), "{names:?}");
    // The same game as the board's own file, scan for scan, read without tengen too.
    let unzipped = dir.path().join("unzipped/frames/3.frames");
    let own = process.data().join("frames/g1.frames");
    // (The board's own file goes on after the game, the archive's stops with it.)
    let summary = crate::cli::tengen(&["frames", unzipped.to_str().expect("utf-8 path")]);
    let summary: serde_json::Value =
        serde_json::from_slice(&summary.stdout).expect("what the file holds");
    let end = summary["to"].as_u64().expect("its last time");
    assert!(end > 60_000, "{summary}");
    let (kept, theirs) = (every_line(&unzipped, end), every_line(&own, end));
    let first_difference = kept.lines().zip(theirs.lines()).position(|(a, b)| a != b);
    assert_eq!(first_difference, None, "the line at which they differ");
    assert_eq!(kept.lines().count(), theirs.lines().count());
    let python = std::process::Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/frames_reader.py"))
        .arg(&unzipped)
        .output()
        .expect("python3 runs");
    let summary: serde_json::Value =
        serde_json::from_slice(&python.stdout).expect("the reader's summary");
    assert_eq!(summary["board"], BOARD);
    assert_eq!(summary["game"], "g1");
    assert_eq!(summary["size"], 9);
    // Around a move of the game (the console's Board panel, "at move"): its time comes
    // from the hall's record of the game.
    let route = format!("/api/console/board/faults/{BOARD}/frames");
    let r = get(hall.addr, &format!("{route}?move=3"), &auth).await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert!(r.head.contains("x-tengen-around-ms: "), "{}", r.head);
    // With the position the board had to show at move 3 (issue 31: not the final one):
    // three stones on a 9x9 board.
    let expected = r
        .header("x-tengen-expected")
        .expect("the position at move 3");
    assert_eq!(expected.len(), 81, "{expected}");
    assert_eq!(
        expected.chars().filter(|c| *c == 'X' || *c == 'O').count(),
        3,
        "{expected}"
    );
    let r = get(hall.addr, &format!("{route}?move=999"), &auth).await;
    assert_eq!(r.status, 404);
    assert_eq!(String::from_utf8_lossy(&r.body).trim().lines().count(), 1);
    // The commands' log: the arbiter's look at the black box is there, the hall's own
    // fetch of the whole game (several windows) is not.
    let log = get(hall.addr, "/api/console/commands", &auth).await.json();
    let frames: Vec<&serde_json::Value> = log
        .as_array()
        .expect("the commands")
        .iter()
        .filter(|c| c["command"]["type"] == "frames")
        .collect();
    assert_eq!(frames.len(), 1, "{log}");
    assert_eq!(frames[0]["by"], "chief");
    // The public's zip: the records, not the black boxes.
    let public = get(hall.addr, "/round/1.zip", &[]).await;
    assert_eq!(public.status, 200);
    let public_dir = tempfile::tempdir().expect("tempdir");
    let names = unzip(&public.body, public_dir.path());
    assert!(!names.is_empty());
    assert!(names.iter().all(|n| !n.starts_with("frames/")), "{names:?}");
    drop(process);
}
