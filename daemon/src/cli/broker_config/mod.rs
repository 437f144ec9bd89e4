//! `tengen broker-config --boards PATTERN --count N --tournament ID --out DIR` (docs/operating.md,
//! "The broker's trust boundary"): the mosquitto files of a hall of N boards, each account
//! given only its part (issue 21).
//!
//! - `DIR/passwd`: every account's password, hashed as `mosquitto_passwd` does;
//! - `DIR/acl`: a board (its account is its id, `hall1-07`) writes only the leaves it
//!   publishes under `tengen/ID/<its id>/` and reads only its own `cmd`; `hall` reads
//!   `tengen/#`; `hall-desk` reads `tengen/#` and writes the boards' `cmd` and `public/#`;
//!   `viewer` reads `public/#` only. No `pattern` line: nothing applies to every account;
//! - `DIR/mosquitto.conf`: no anonymous client, the files above, and client ids that are
//!   the user names (`use_username_as_clientid`), so no account can take a board's id and
//!   throw it off; listeners as `config/mosquitto/mosquitto.conf`.
//!
//! The passwords are generated and printed once, `NAME PASSWORD` a line; the files are
//! written with mode 0600 and never over existing ones.
//!
//! Many venues (`venues`, docs/venues.md): with `--venue ID --hub HOST:PORT
//! --hub-password-file FILE`, the venue's `mosquitto.conf` ends with the bridge the venue
//! dials out to the hub with, and `hall-desk` may tell and answer the hub; with `--venues
//! ID,...`, the hub's own files: one account per venue, allowed only its own tree.

mod passwd;
mod venues;

use std::collections::BTreeSet;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use ring::rand::SystemRandom;
use tengen_protocol::topics::is_valid_id;
use tengen_tournament::BoardPattern;

use super::args::BrokerConfigArgs;
use super::CliError;

/// The most boards one broker config is written for.
pub(crate) const MAX_COUNT: u32 = 9999;

/// The topic prefix the boards and the hall use by default.
const PREFIX: &str = "tengen";

/// The accounts that are not boards, with what each is for (the ACL's comments).
const OTHERS: [&str; 3] = ["hall", "hall-desk", "viewer"];

/// The leaves a board publishes under its own topics.
const BOARD_WRITES: [&str; 7] = [
    "status",
    "events",
    "alerts",
    "alerts/active",
    "state",
    "sgf",
    "cmd/reply",
];

/// What the command is asked for, checked.
#[derive(Debug)]
struct Request {
    boards: Vec<String>,
    tournament: String,
    out: PathBuf,
}

/// Runs `tengen broker-config`.
pub(super) fn run(args: BrokerConfigArgs) -> Result<(), CliError> {
    if args.venues.is_some() {
        return venues::run_hub(&args);
    }
    let request = check(&args)?;
    let bridge = venues::check_venue(&args)?;
    let names: Vec<String> = OTHERS
        .iter()
        .map(|s| s.to_string())
        .chain(request.boards.clone())
        .collect();
    let accounts = accounts(&names)?;
    let out = out_dir(&request.out)?;
    let mut acl = acl(&request.tournament, &request.boards);
    let mut conf = conf(&out);
    if let Some(b) = &bridge {
        acl = venues::with_venue_desk(&acl);
        conf.push_str(&venues::bridge_section(b));
    }
    let files = [
        ("passwd", passwd_file(&accounts)),
        ("acl", acl),
        ("mosquitto.conf", conf),
    ];
    write_files(&out, &files, &accounts)?;
    let venue = bridge
        .map(|b| format!(", bridged out to the hub {} as venue {}", b.hub, b.venue))
        .unwrap_or_default();
    eprintln!(
        "tengen: wrote {0}/passwd, {0}/acl and {0}/mosquitto.conf (mode 0600) for {1} boards \
         of {2}{venue}: each password above is shown only now (docs/operating.md, \"A \
         tournament: one mosquitto in the hall\")",
        out.display(),
        request.boards.len(),
        request.tournament
    );
    Ok(())
}

/// An account for each of `names`: its name, a new password and its `passwd` line.
fn accounts(names: &[String]) -> Result<Vec<(String, String, String)>, CliError> {
    let random = SystemRandom::new();
    let no_random = |e: passwd::NoRandom| CliError::work(e.to_string());
    let mut accounts = Vec::new();
    for name in names {
        let password = passwd::password(&random).map_err(no_random)?;
        let salt = passwd::salt(&random).map_err(no_random)?;
        let line = passwd::line(name, &password, &salt);
        accounts.push((name.clone(), password, line));
    }
    Ok(accounts)
}

/// `--out`, made absolute and created.
fn out_dir(out: &Path) -> Result<PathBuf, CliError> {
    let out = std::path::absolute(out)
        .map_err(|e| CliError::input(format!("--out: {}: {e}", out.display())))?;
    std::fs::create_dir_all(&out)
        .map_err(|e| CliError::work(format!("--out: {}: {e}", out.display())))?;
    Ok(out)
}

/// Writes `files` into `out` (none if any is there already) and prints each account's
/// `NAME PASSWORD`.
fn write_files(
    out: &Path,
    files: &[(&str, String)],
    accounts: &[(String, String, String)],
) -> Result<(), CliError> {
    for (name, _) in files {
        let path = out.join(name);
        if path.exists() {
            return Err(CliError::input(format!(
                "--out: {} exists already: remove it (the passwords in it stop working) or \
                 choose another folder",
                path.display()
            )));
        }
    }
    for (name, text) in files {
        write_private(&out.join(name), text)?;
    }
    let lines: Vec<String> = accounts
        .iter()
        .map(|(name, password, _)| format!("{name} {password}"))
        .collect();
    super::print_lines(&lines)
}

/// Checks the arguments; one line naming the one at fault (exit 2).
fn check(args: &BrokerConfigArgs) -> Result<Request, CliError> {
    let required = |value: &Option<String>, flag: &str, what: &str| {
        value
            .clone()
            .ok_or_else(|| CliError::input(format!("{flag}: required: {what}")))
    };
    let pattern = required(
        &args.boards,
        "--boards",
        "the board ids' pattern (hall1-{table:02})",
    )?;
    let pattern =
        BoardPattern::parse(&pattern).map_err(|e| CliError::input(format!("--boards: {e}")))?;
    let count = required(&args.count, "--count", "how many boards (1 to 9999)")?;
    let count = count
        .parse::<u32>()
        .ok()
        .filter(|n| (1..=MAX_COUNT).contains(n))
        .ok_or_else(|| {
            CliError::input(format!(
                "--count: {count:?} is not a number of boards from 1 to {MAX_COUNT}"
            ))
        })?;
    let tournament = required(
        &args.tournament,
        "--tournament",
        "the tournament id (open-2026)",
    )?;
    if !is_valid_id(&tournament) || tournament.len() > 64 {
        return Err(CliError::input(
            "--tournament: use 1 to 64 lower-case letters, digits and '-' (the boards' \
             [board] tournament)",
        ));
    }
    let out = args
        .out
        .clone()
        .ok_or_else(|| CliError::input("--out: required: the folder the files go to"))?;
    let mut seen = BTreeSet::new();
    let mut boards = Vec::new();
    for table in 1..=count {
        let id = pattern.board(table);
        if OTHERS.contains(&id.as_str()) || id.starts_with("arbiter-") || !seen.insert(id.clone()) {
            return Err(CliError::input(format!(
                "--boards: table {table}'s board {id:?} is another account's name"
            )));
        }
        boards.push(id);
    }
    Ok(Request {
        boards,
        tournament,
        out,
    })
}

/// The password file: one `user:$7$...` line each.
fn passwd_file(accounts: &[(String, String, String)]) -> String {
    accounts
        .iter()
        .map(|(_, _, line)| format!("{line}\n"))
        .collect()
}

/// The ACL for `boards` of `tournament`.
fn acl(tournament: &str, boards: &[String]) -> String {
    let mut text = format!(
        "# Access control for the hall's mosquitto (acl_file), written by\n\
         # `tengen broker-config` for {count} boards of tournament {tournament}.\n\
         # Each account may do its part and nothing else: no `pattern` line, which would\n\
         # apply to every account. Client ids are the user names (mosquitto.conf:\n\
         # use_username_as_clientid), so no account can take another's id.\n\
         \n\
         # A hall view for screens: reads every board, writes nothing.\n\
         user hall\n\
         topic read {PREFIX}/#\n\
         \n\
         # The hall at the arbiters' desk: the console's commands and republish requests,\n\
         # and the public (delayed) tree it writes with [broadcast] republish = true.\n\
         user hall-desk\n\
         topic read {PREFIX}/#\n\
         topic write {PREFIX}/+/+/cmd\n\
         topic readwrite public/#\n\
         \n\
         # Commentators, the tournament site, overlays: the public (delayed) tree only.\n\
         user viewer\n\
         topic read public/#\n",
        count = boards.len()
    );
    for board in boards {
        text.push_str(&format!(
            "\n# Board {board}: its own topics, its own commands.\nuser {board}\n"
        ));
        for leaf in BOARD_WRITES {
            text.push_str(&format!(
                "topic write {PREFIX}/{tournament}/{board}/{leaf}\n"
            ));
        }
        text.push_str(&format!("topic read {PREFIX}/{tournament}/{board}/cmd\n"));
    }
    text
}

/// The broker's config, naming the files in `dir`.
fn conf(dir: &Path) -> String {
    conf_for("the tournament hall", dir)
}

/// The broker's config for `whom` (`the tournament hall`, `the hub`), naming the files in
/// `dir`.
fn conf_for(whom: &str, dir: &Path) -> String {
    format!(
        "# mosquitto for {whom}, written by `tengen broker-config`. Install:\n\
         #   cp mosquitto.conf /etc/mosquitto/conf.d/tengen.conf (or run mosquitto -c on it),\n\
         #   and let the user mosquitto read passwd and acl (docs/operating.md).\n\
         \n\
         # Every client logs in; each account does only what the ACL gives it.\n\
         per_listener_settings false\n\
         allow_anonymous false\n\
         password_file {passwd}\n\
         acl_file {acl}\n\
         \n\
         # Boards on the hall network: TLS only (port 8883). On every listener the client id\n\
         # is the user name (a listener's own setting): no account can take a board's id and\n\
         # throw it off the broker (a board's own account is its id).\n\
         listener 8883\n\
         protocol mqtt\n\
         use_username_as_clientid true\n\
         cafile /etc/mosquitto/tengen/certs/hall-ca.pem\n\
         certfile /etc/mosquitto/tengen/certs/broker.pem\n\
         keyfile /etc/mosquitto/tengen/certs/broker.key\n\
         tls_version tlsv1.2\n\
         require_certificate false\n\
         use_identity_as_username false\n\
         \n\
         # Plain MQTT only on the loopback, for local tools.\n\
         listener 1883 127.0.0.1\n\
         use_username_as_clientid true\n\
         \n\
         # A board publishes a whole SGF as one retained message.\n\
         max_packet_size 1048576\n\
         persistence true\n\
         autosave_interval 30\n\
         max_queued_messages 10000\n\
         max_inflight_messages 100\n\
         set_tcp_nodelay true\n\
         max_connections 2000\n\
         \n\
         log_type error\n\
         log_type warning\n\
         log_type notice\n\
         connection_messages true\n",
        passwd = dir.join("passwd").display(),
        acl = dir.join("acl").display(),
    )
}

/// Writes `text` to a new file at `path`, readable by its owner only.
fn write_private(path: &Path, text: &str) -> Result<(), CliError> {
    let fail = |e: std::io::Error| CliError::work(format!("{}: {e}", path.display()));
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path).map_err(fail)?;
    file.write_all(text.as_bytes()).map_err(fail)?;
    file.sync_all().map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(boards: &str, count: &str, tournament: &str) -> BrokerConfigArgs {
        BrokerConfigArgs {
            boards: Some(boards.into()),
            count: Some(count.into()),
            tournament: Some(tournament.into()),
            out: Some(PathBuf::from("out")),
            ..BrokerConfigArgs::default()
        }
    }

    #[test]
    fn a_board_writes_only_its_own_topics() {
        let text = acl("open-2026", &["hall1-01".into(), "hall1-02".into()]);
        assert!(!text.lines().any(|l| l.starts_with("pattern")), "{text}");
        let block: Vec<&str> = text
            .split("\n\n")
            .find(|b| b.contains("user hall1-01\n"))
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with('#'))
            .collect();
        assert_eq!(
            block,
            [
                "user hall1-01",
                "topic write tengen/open-2026/hall1-01/status",
                "topic write tengen/open-2026/hall1-01/events",
                "topic write tengen/open-2026/hall1-01/alerts",
                "topic write tengen/open-2026/hall1-01/alerts/active",
                "topic write tengen/open-2026/hall1-01/state",
                "topic write tengen/open-2026/hall1-01/sgf",
                "topic write tengen/open-2026/hall1-01/cmd/reply",
                "topic read tengen/open-2026/hall1-01/cmd",
            ]
        );
        assert!(text.contains("user viewer\ntopic read public/#\n"));
    }

    /// The example ACL in `config/mosquitto/` is this command's output for eight boards.
    #[test]
    fn the_example_acl_is_the_output_for_eight_boards() {
        let example = include_str!("../../../../config/mosquitto/acl");
        let boards: Vec<String> = (1..=8).map(|t| format!("hall1-{t:02}")).collect();
        assert!(example.ends_with(&acl("open-2026", &boards)), "{example}");
        assert!(!example.lines().any(|l| l.starts_with("pattern")));
    }

    #[test]
    fn bad_arguments_are_one_line_each() {
        for (a, says) in [
            (
                args("hall1", "3", "t"),
                "--boards: board pattern \"hall1\": no {table}",
            ),
            (
                args("h{table}", "0", "t"),
                "--count: \"0\" is not a number of boards",
            ),
            (args("h{table}", "10000", "t"), "--count: \"10000\""),
            (args("h{table}", "x\ny", "t"), "--count: \"x\\ny\""),
            (args("h{table}", "3", "Open"), "--tournament: use 1 to 64"),
        ] {
            let e = check(&a).unwrap_err();
            assert_eq!(e.code, 2);
            assert!(e.message.starts_with(says), "{}", e.message);
            assert!(!e.message.contains('\n'), "{}", e.message);
        }
        let mut a = args("h{table}", "3", "t");
        a.out = None;
        assert!(check(&a)
            .unwrap_err()
            .message
            .starts_with("--out: required"));
        let ok = check(&args("hall1-{table:02}", "3", "open-2026")).unwrap();
        assert_eq!(ok.boards, ["hall1-01", "hall1-02", "hall1-03"]);
    }
}
