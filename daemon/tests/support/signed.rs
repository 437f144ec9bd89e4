//! Signed commands for tests: the key the tests' boards and halls share, a command stamped
//! and signed for one board, a `tengen run` config that takes only signed commands, and
//! asking a board over MQTT until it answers.
//!
//! Include with `#[path = "../support/signed.rs"] mod signed;` next to `support/broker.rs`.
#![allow(dead_code)]

use std::path::Path;
use std::time::Duration;

use rumqttc::QoS;
use serde_json::{json, Value};
use tengen_protocol::signing::{sign_for, Stamp};
use tengen_protocol::Timestamp;

use crate::broker::Subscriber;

/// The command key of the tests' boards and halls.
pub(crate) const KEY: &str = "the-hall-and-its-boards-share-this";

/// `body` stamped for `board` of `tournament` at `at` (ms since the epoch), signed with
/// [`KEY`].
pub(crate) fn signed(body: Value, tournament: &str, board: &str, at: u64) -> String {
    let Value::Object(mut c) = body else {
        unreachable!("test commands are objects")
    };
    sign_for(KEY.as_bytes(), &Stamp::new(tournament, board, at), &mut c);
    Value::Object(c).to_string()
}

/// The wall clock, ms since the epoch.
pub(crate) fn now_ms() -> u64 {
    Timestamp::now().millis()
}

/// Makes the `tengen run` config at `config` take only commands signed with [`KEY`]
/// (written to `command.key` beside it).
pub(crate) fn sign_commands(config: &Path) {
    let dir = config.parent().expect("config dir");
    std::fs::write(dir.join("command.key"), format!("{KEY}\n")).unwrap();
    let text = std::fs::read_to_string(config).unwrap();
    assert!(text.contains("[mqtt]\n"), "the config has an [mqtt] table");
    let text = text.replacen(
        "[mqtt]\n",
        "[mqtt]\ncommand_key_file = \"command.key\"\n",
        1,
    );
    std::fs::write(config, text).unwrap();
}

/// Publishes `payload` on `root/cmd` until a reply to `id` that `wanted` accepts arrives on
/// `root/cmd/reply` (the board subscribes once connected: until then a command is lost).
/// Other messages `sub` receives meanwhile are dropped.
pub(crate) async fn ask_until(
    sub: &mut Subscriber,
    root: &str,
    id: &str,
    payload: &str,
    wanted: impl Fn(&Value) -> bool,
) -> Value {
    let reply_topic = format!("{root}/cmd/reply");
    for _ in 0..100 {
        sub.client
            .publish(format!("{root}/cmd"), QoS::AtLeastOnce, false, payload)
            .await
            .unwrap();
        let deadline = tokio::time::Instant::now() + Duration::from_millis(300);
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let Some(m) = sub.next_on(&reply_topic, left).await else {
                break;
            };
            let r = m.json();
            if r["id"] == id && wanted(&r) {
                return r;
            }
        }
    }
    panic!("no reply to {payload} on {reply_topic}");
}

/// [`ask_until`] any reply.
pub(crate) async fn ask(sub: &mut Subscriber, root: &str, id: &str, payload: &str) -> Value {
    ask_until(sub, root, id, payload, |_| true).await
}

/// The error of a refusal (the reply must be one).
pub(crate) fn error(reply: &Value) -> &str {
    assert_eq!(reply["ok"], false, "{reply}");
    reply["error"].as_str().unwrap_or_default()
}

/// Waits until a board that takes only signed commands is up: an unsigned probe is
/// answered (refused).
pub(crate) async fn wait_up(sub: &mut Subscriber, root: &str, probe: &str) {
    let payload = json!({"id": probe, "type": "pause"}).to_string();
    let r = ask(sub, root, probe, &payload).await;
    assert!(error(&r).contains("not signed"), "{r}");
}
