//! `tengen broker-config` for many venues, one broadcast (docs/venues.md):
//!
//! - the hub's broker (`--venues paris,lyon --out DIR`): an account `venue-{id}` per venue
//!   that may write only its own tree `venues/{id}/...` (its boards' `events` and `status`,
//!   its hall's heads and answers, its bridge's state) and read only the hub's asks to it;
//!   `hub-hall`, the hub's hall, reads every venue's tree and writes only the asks and the
//!   public tree; `viewer` reads the public tree;
//! - a venue's broker (the usual hall files with `--venue ID --hub HOST:PORT
//!   --hub-password-file FILE [--hub-ca FILE]`): its `mosquitto.conf` ends with the bridge
//!   the venue dials out to the hub over TLS, carrying its boards' `events` and `status`
//!   and its hall's `venue/heads` and `venue/fill` out, and only the hub's asks
//!   (`venue/ask`) in; `hall-desk` may publish the heads and answers and read the asks.
//!   Nothing else comes in from the hub: no command reaches a board.

use std::collections::BTreeSet;
use std::path::PathBuf;

use tengen_net::secrets::read_password_file;
use tengen_protocol::topics::is_valid_id;

use super::{accounts, conf_for, out_dir, passwd_file, write_files, PREFIX};
use crate::cli::args::BrokerConfigArgs;
use crate::cli::CliError;

/// Where a venue's bridge looks for the hub's CA certificate by default.
const HUB_CA: &str = "/etc/mosquitto/tengen/certs/hub-ca.pem";

/// The most venues one hub's broker is written for.
const MAX_VENUES: usize = 64;

/// A venue's bridge to its hub, checked.
#[derive(Debug)]
pub(super) struct Bridge {
    /// The venue's id.
    pub(super) venue: String,
    /// The hub's broker, `HOST:PORT`.
    pub(super) hub: String,
    /// The venue's password on the hub.
    password: String,
    /// The hub's CA certificate.
    ca: PathBuf,
}

/// A venue id as the hub knows it: an id of at most 32 characters.
fn venue_id(id: &str, flag: &str) -> Result<String, CliError> {
    if is_valid_id(id) && id.len() <= 32 {
        Ok(id.to_string())
    } else {
        Err(CliError::input(format!(
            "{flag}: {id:?} is not a venue id: use 1 to 32 lower-case letters, digits and '-'"
        )))
    }
}

/// `--venue` and its companions, when given: the bridge to write.
pub(super) fn check_venue(args: &BrokerConfigArgs) -> Result<Option<Bridge>, CliError> {
    let Some(venue) = &args.venue else {
        if args.hub.is_some() || args.hub_password_file.is_some() || args.hub_ca.is_some() {
            return Err(CliError::input(
                "--hub: give --venue ID too (the venue's id on the hub)",
            ));
        }
        return Ok(None);
    };
    let venue = venue_id(venue, "--venue")?;
    let hub = args
        .hub
        .clone()
        .ok_or_else(|| CliError::input("--hub: required with --venue: the hub's HOST:PORT"))?;
    let port_ok = hub.rsplit_once(':').is_some_and(|(host, port)| {
        !host.is_empty()
            && !host.contains(char::is_whitespace)
            && port.parse::<u16>().is_ok_and(|p| p > 0)
    });
    if !port_ok {
        return Err(CliError::input(format!(
            "--hub: {hub:?} is not HOST:PORT (hub.example.org:8883)"
        )));
    }
    let file = args.hub_password_file.as_ref().ok_or_else(|| {
        CliError::input(
            "--hub-password-file: required with --venue: the file holding this venue's \
             password on the hub (its broker-config printed it)",
        )
    })?;
    let password = read_password_file(file)
        .map_err(|e| CliError::input(format!("--hub-password-file: {e}")))?;
    if password.is_empty() || password.contains(char::is_whitespace) {
        return Err(CliError::input(format!(
            "--hub-password-file: {}: one line, the password alone",
            file.display()
        )));
    }
    Ok(Some(Bridge {
        venue,
        hub,
        password,
        ca: args.hub_ca.clone().unwrap_or_else(|| PathBuf::from(HUB_CA)),
    }))
}

/// The hall ACL with `hall-desk` also telling and answering the hub.
pub(super) fn with_venue_desk(acl: &str) -> String {
    acl.replacen(
        "topic readwrite public/#\n",
        "topic readwrite public/#\n\
         # Its hub (docs/venues.md): what it holds, its answers, the hub's asks.\n\
         topic write venue/heads\n\
         topic write venue/fill\n\
         topic read venue/ask\n",
        1,
    )
}

/// The bridge section the venue's `mosquitto.conf` ends with.
pub(super) fn bridge_section(b: &Bridge) -> String {
    let v = &b.venue;
    format!(
        "\n\
         # The bridge to the hub (docs/venues.md): this venue dials out, the hub never dials\n\
         # in. Out: the boards' events and status, the hall's heads and answers. In: only\n\
         # the hub's asks, to the hall; no command comes in. QoS 1 and a kept session, but\n\
         # the hub trusts the boards' sequence numbers, not this queue: what it loses, the\n\
         # hub asks the hall for. Back within 1 to 5 s of the hub (or the link) returning.\n\
         connection hub\n\
         address {hub}\n\
         bridge_protocol_version mqttv311\n\
         bridge_cafile {ca}\n\
         bridge_insecure false\n\
         remote_clientid venue-{v}\n\
         remote_username venue-{v}\n\
         remote_password {password}\n\
         cleansession false\n\
         start_type automatic\n\
         restart_timeout 1 5\n\
         keepalive_interval 10\n\
         try_private true\n\
         notifications true\n\
         notification_topic venues/{v}/bridge\n\
         topic +/+/events out 1 {PREFIX}/ venues/{v}/boards/\n\
         topic +/+/status out 1 {PREFIX}/ venues/{v}/boards/\n\
         topic heads out 0 venue/ venues/{v}/hall/\n\
         topic fill out 1 venue/ venues/{v}/hall/\n\
         topic ask in 1 venue/ venues/{v}/hub/\n",
        hub = b.hub,
        ca = b.ca.display(),
        password = b.password,
    )
}

/// The hub's ACL for `venues`.
pub(super) fn hub_acl(venues: &[String]) -> String {
    let mut text = format!(
        "# Access control for the hub's mosquitto (acl_file), written by\n\
         # `tengen broker-config` for {count} venues. Each venue may write only its own\n\
         # tree and read only the hub's asks to it; no `pattern` line.\n\
         \n\
         # The hub's hall: every venue's tree, the asks, the public (delayed) tree.\n\
         user hub-hall\n\
         topic read venues/#\n\
         topic write venues/+/hub/ask\n\
         topic readwrite public/#\n\
         \n\
         # Commentators, the broadcast site, overlays: the public tree only.\n\
         user viewer\n\
         topic read public/#\n",
        count = venues.len()
    );
    for v in venues {
        text.push_str(&format!(
            "\n# Venue {v}: its bridge writes its own tree, reads the hub's asks to it.\n\
             user venue-{v}\n\
             topic write venues/{v}/boards/+/+/events\n\
             topic write venues/{v}/boards/+/+/status\n\
             topic write venues/{v}/hall/heads\n\
             topic write venues/{v}/hall/fill\n\
             topic readwrite venues/{v}/bridge\n\
             topic read venues/{v}/hub/ask\n"
        ));
    }
    text
}

/// `--venues ID,...`: the venues' ids, each once.
fn check_hub(args: &BrokerConfigArgs) -> Result<(Vec<String>, PathBuf), CliError> {
    for (given, flag) in [
        (args.boards.is_some(), "--boards"),
        (args.count.is_some(), "--count"),
        (args.tournament.is_some(), "--tournament"),
        (args.venue.is_some(), "--venue"),
        (args.hub.is_some(), "--hub"),
    ] {
        if given {
            return Err(CliError::input(format!(
                "{flag}: not with --venues (the hub's broker has no board of its own)"
            )));
        }
    }
    let list = args.venues.clone().unwrap_or_default();
    let mut seen = BTreeSet::new();
    let mut venues = Vec::new();
    for id in list.split(',').map(str::trim) {
        let id = venue_id(id, "--venues")?;
        if !seen.insert(id.clone()) {
            return Err(CliError::input(format!("--venues: {id:?} is given twice")));
        }
        venues.push(id);
    }
    if venues.len() > MAX_VENUES {
        return Err(CliError::input(format!(
            "--venues: at most {MAX_VENUES} venues"
        )));
    }
    let out = args
        .out
        .clone()
        .ok_or_else(|| CliError::input("--out: required: the folder the files go to"))?;
    Ok((venues, out))
}

/// Writes the hub's broker files.
pub(super) fn run_hub(args: &BrokerConfigArgs) -> Result<(), CliError> {
    let (venues, out) = check_hub(args)?;
    let names: Vec<String> = ["hub-hall", "viewer"]
        .iter()
        .map(|s| s.to_string())
        .chain(venues.iter().map(|v| format!("venue-{v}")))
        .collect();
    let accounts = accounts(&names)?;
    let out = out_dir(&out)?;
    let files = [
        ("passwd", passwd_file(&accounts)),
        ("acl", hub_acl(&venues)),
        ("mosquitto.conf", conf_for("the hub of many venues", &out)),
    ];
    write_files(&out, &files, &accounts)?;
    eprintln!(
        "tengen: wrote {0}/passwd, {0}/acl and {0}/mosquitto.conf (mode 0600) for the hub of \
         venues {1}: give each venue its password (its broker-config's --hub-password-file); \
         each is shown only now (docs/venues.md)",
        out.display(),
        venues.join(", ")
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    /// The path of the file a test writes a password to.
    fn password_file(dir: &Path, text: &str) -> PathBuf {
        let p = dir.join("hub-password");
        std::fs::write(&p, text).expect("write");
        p
    }

    fn venue_args(dir: &Path) -> BrokerConfigArgs {
        BrokerConfigArgs {
            boards: Some("paris-{table:02}".into()),
            count: Some("2".into()),
            tournament: Some("league".into()),
            out: Some(dir.join("out")),
            venue: Some("paris".into()),
            hub: Some("hub.example.org:8883".into()),
            hub_password_file: Some(password_file(dir, "Secret1234\n")),
            ..BrokerConfigArgs::default()
        }
    }

    #[test]
    fn a_venue_bridges_its_boards_out_and_only_the_asks_in() {
        let dir = tempfile::tempdir().unwrap();
        let b = check_venue(&venue_args(dir.path()))
            .unwrap()
            .expect("a bridge");
        let text = bridge_section(&b);
        let topics: Vec<&str> = text.lines().filter(|l| l.starts_with("topic ")).collect();
        assert_eq!(
            topics,
            [
                "topic +/+/events out 1 tengen/ venues/paris/boards/",
                "topic +/+/status out 1 tengen/ venues/paris/boards/",
                "topic heads out 0 venue/ venues/paris/hall/",
                "topic fill out 1 venue/ venues/paris/hall/",
                "topic ask in 1 venue/ venues/paris/hub/",
            ]
        );
        assert!(text.contains("remote_password Secret1234\n"));
        assert!(text.contains("bridge_cafile /etc/mosquitto/tengen/certs/hub-ca.pem\n"));
        let desk = with_venue_desk("user hall-desk\ntopic readwrite public/#\n");
        assert!(desk.ends_with("topic read venue/ask\n"), "{desk}");
    }

    #[test]
    fn each_venue_writes_only_its_own_tree_on_the_hub() {
        let acl = hub_acl(&["paris".into(), "lyon".into()]);
        assert!(!acl.lines().any(|l| l.starts_with("pattern")));
        let block: Vec<&str> = acl
            .split("\n\n")
            .find(|b| b.contains("user venue-lyon\n"))
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with('#'))
            .collect();
        assert!(
            block.iter().skip(1).all(|l| l.contains(" venues/lyon/")),
            "{block:?}"
        );
        assert!(block.contains(&"topic read venues/lyon/hub/ask"));
        assert!(
            !block.iter().any(|l| l.contains("tengen/")),
            "no board topic"
        );
    }

    #[test]
    fn bad_venue_arguments_are_one_line_each() {
        let dir = tempfile::tempdir().unwrap();
        let mut cases = Vec::new();
        let mut a = venue_args(dir.path());
        a.venue = Some("Paris".into());
        cases.push((a, "--venue: \"Paris\" is not a venue id"));
        let mut a = venue_args(dir.path());
        a.hub = Some("hub.example.org".into());
        cases.push((a, "--hub: \"hub.example.org\" is not HOST:PORT"));
        let mut a = venue_args(dir.path());
        a.hub_password_file = None;
        cases.push((a, "--hub-password-file: required"));
        let mut a = venue_args(dir.path());
        a.hub_password_file = Some(dir.path().join("missing"));
        cases.push((a, "--hub-password-file: "));
        let mut a = venue_args(dir.path());
        a.venue = None;
        cases.push((a, "--hub: give --venue ID too"));
        for (a, says) in cases {
            let e = check_venue(&a).unwrap_err();
            assert_eq!(e.code, 2);
            assert!(e.message.starts_with(says), "{}", e.message);
            assert!(!e.message.contains('\n'));
        }
        let hub = |venues: &str| BrokerConfigArgs {
            venues: Some(venues.into()),
            out: Some(dir.path().join("hub")),
            ..BrokerConfigArgs::default()
        };
        assert!(check_hub(&hub("a,b,a"))
            .unwrap_err()
            .message
            .contains("twice"));
        assert!(check_hub(&hub("a,,b"))
            .unwrap_err()
            .message
            .starts_with("--venues: \"\""));
        let mut h = hub("a");
        h.count = Some("3".into());
        assert!(check_hub(&h)
            .unwrap_err()
            .message
            .starts_with("--count: not with --venues"));
        assert_eq!(check_hub(&hub("paris, lyon")).unwrap().0, ["paris", "lyon"]);
    }
}
