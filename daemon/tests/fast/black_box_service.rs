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
