//! What a valid config leaves open, said once by `tengen check-config` and by `tengen run`
//! at start: a board that takes commands from anyone who can write its `cmd` topic, or
//! arbiters' names without the key that proves them, a broker password sent in clear
//! text, and the live page (alerts included, no broadcast delay) open to the network.

use std::net::SocketAddr;

use super::{Config, MqttUrl, Problem};

impl Config {
    /// Every risk this config takes on purpose or by omission, one line each at its key
    /// path; empty for a board that is closed (signed commands, or only a loopback broker).
    pub fn warnings(&self) -> Vec<Problem> {
        let m = &self.mqtt;
        let mut out = Vec::new();
        let reachable = match &m.url {
            MqttUrl::Broker { .. } => true,
            MqttUrl::Embedded => !is_loopback(m.listen),
        };
        if reachable && m.arbiters.is_empty() && m.command_key_file.is_none() && !m.open_commands {
            out.push(Problem {
                path: "mqtt.command_key_file".into(),
                message: format!(
                    "not set, nor mqtt.arbiters: anyone who can write {}/{}/{}/cmd on {} can \
                     resign, score or restart this board's game (set command_key_file, or \
                     open_commands = true if that is meant)",
                    m.prefix,
                    self.board.tournament,
                    self.board.id,
                    broker_name(&m.url, m.listen)
                ),
            });
        }
        if reachable && !m.arbiters.is_empty() && m.command_key_file.is_none() {
            out.push(Problem {
                path: "mqtt.arbiters".into(),
                message: format!(
                    "set without mqtt.command_key_file: a command's \"by\" is not signed, so \
                     anyone who can write {}/{}/{}/cmd can send one in an arbiter's name \
                     (give the boards' command key)",
                    m.prefix, self.board.tournament, self.board.id
                ),
            });
        }
        if !is_loopback(self.http.listen) {
            out.push(Problem {
                path: "http.listen".into(),
                message: format!(
                    "{}: the live page (position, clocks and open alerts, with no broadcast \
                     delay) is open to the network, where players can follow their own game: \
                     listen on 127.0.0.1 unless that is meant",
                    self.http.listen
                ),
            });
        }
        if let MqttUrl::Broker { tls: false, .. } = &m.url {
            if m.password_file.is_some() {
                out.push(Problem {
                    path: "mqtt.password_file".into(),
                    message: format!(
                        "the password goes to {} in clear text, readable by anyone on that \
                         network: use an mqtts:// url",
                        m.url
                    ),
                });
            }
        }
        out
    }
}

fn is_loopback(addr: SocketAddr) -> bool {
    addr.ip().is_loopback()
}

fn broker_name(url: &MqttUrl, listen: SocketAddr) -> String {
    match url {
        MqttUrl::Embedded => format!("the embedded broker on {listen}"),
        broker => broker.to_string(),
    }
}
