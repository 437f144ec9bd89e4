//! # tengen-hall
//!
//! `tengen hall`: every board under the MQTT prefix in one place, for viewers and arbiters.
//! [`start`] runs it (the MQTT client and the HTTP server) from a [`HallConfig`];
//! [`HallState`] is the hall without its I/O, fed with the broker's messages.
//!
//! Inside, by wing (each wing depends only on the ones above it; `routes` on all):
//!
//! - `config/`: the hall's TOML file; `arbiter_secret`, the Argon2id hashes the hall makes
//!   and accepts (`--add-arbiter`) and the example secrets it refuses.
//! - `boards/`: the boards as the broker tells of them, sans-IO but for the client.
//!   `hall_state`, the whole hall in rooms (messages in and out with the delay, commands,
//!   alerts, overview), and `Shared`, the one copy everyone locks; `board_view`, one
//!   board rebuilt from its topics (live feed, status, alerts, history, hardware trouble)
//!   and, under a broadcast delay, its public side, both the protocol's one fold of events,
//!   [`tengen_protocol::GameView`]; `broadcast_delay`, which events the public may see now;
//!   `command_log`, the commands sent and whether the board acknowledged them; `archive`
//!   (`[hall] archive_dir`), every game followed, one event file per game, read back at
//!   start; `frames_archive`, the black boxes of finished games fetched into it
//!   (`command_ask`, a board asked and its reply awaited); `mqtt_client`, the MQTT client (rumqttc,
//!   its own task).
//! - `console/`: the arbiters. `auth`, passwords/tokens and console sessions;
//!   `login_limit`, how often a login may fail; `store`, the logins and commands kept
//!   across restarts; the console's and the login's pages.
//! - `tournament/`: `[tournament]`. `link`, an OpenGotha file's rounds started on the
//!   boards and the boards' results confirmed and written back.
//! - `analysis/` (`[analysis]`): a GTP engine's score lead and candidate moves for every
//!   position the public has seen, at `/board/{t}/{b}/api/analysis`.
//! - `public/`: viewers, without HTTP, reading the hall through one narrow input
//!   (`Sources`: boards, archive, tournament). `round_games`, the rounds' games as the public
//!   may have them and their records; `round_zip`/`zip_cache`, a round's zip; `round_feed`,
//!   the public round feed's files; `static_export`, the public site kept as static files;
//!   `overview_cache`, `/api/boards` built at most once a second; the overview page.
//! - `routes/`: the HTTP handlers of every wing. `mod`, the overview, the per-board pages
//!   and the console's login and API; `console_gate`, the one login check every console
//!   handler takes (and the list of the console's API routes); `round_api`, the console's
//!   Round view; `rounds`,
//!   `round_zip`, `round_feed`, `/rounds`, `/api/rounds`, `/round/{n}.zip`, `/feed/...`;
//!   `commentary`, the commentators' pages; `broker`.
//! - `venues/`: many venues, one broadcast (docs/venues.md). On a hub (`[hall] venues`),
//!   the boards its venues push, each believed from its own venue only, followed by
//!   `(board, seq)` with what the brokers lost asked of the venue; on a venue's hall
//!   (`[venue]`), what it tells and answers its hub. The director's `/api/console/venues`.
//! - `https`: `[hall] tls_cert`/`tls_key`, the console over HTTPS (rustls).
//! - `limits`: how many idle connections, public requests being answered and public event
//!   streams one address, and all, may hold (sized on the open-files limit); `listener`:
//!   the plain or TLS listener that accepts at once, closes what is over those caps, idle
//!   too long, slow with its body or not reading its answer, and says `Connection: close`
//!   when an address has no room left. Below `routes`, which caps the public's requests
//!   and streams (`routes/public_caps`).
//!
//! The hall rebuilds the boards from the broker's retained topics (and, with an identity,
//! the boards' republished events), so several can run side by side and a restarted one
//! catches up by itself. On disk it writes only the tournament's results file and, with
//! `[hall] archive_dir`, the archive (and reads both back when started again).

mod analysis;
mod boards;
mod config;
mod console;
mod hall_error;
mod https;
mod limits;
mod listener;
mod public;
mod routes;
#[cfg(test)]
mod test_support;
mod tournament;
mod venues;
mod wall_clock;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rand::Rng;
use tengen_net::broker::BrokerUrl;
use tengen_net::secrets::{read_key, read_password_file};

pub use boards::archive::ArchiveError;
pub use boards::command_log::CommandError as ConsoleCommandError;
pub use boards::hall_state::{HallState, Outgoing};
pub use config::arbiter_secret::{arbiter_entry, ArbiterError};
pub use config::HallConfig;
pub use hall_error::HallError;
pub use https::HttpsError;
pub use tengen_net::config_reader::ConfigError;
pub use tournament::link::LinkError;

use boards::hall_state::Shared;
use boards::mqtt_client::{ClientSettings, MqttLink};
use tournament::link::TournamentLink;

/// How long a console login lasts when `[hall] session_hours` is not given.
const DEFAULT_SESSION_HOURS: u64 = 12;

/// A running hall: the MQTT client and the HTTP server, until [`RunningHall::stop`].
pub struct RunningHall {
    /// The HTTP address actually bound (useful with port 0).
    pub addr: SocketAddr,
    /// Whether it serves HTTPS (`[hall] tls_cert`, `tls_key`).
    pub https: bool,
    mqtt: Arc<MqttLink>,
    http: tokio::task::JoinHandle<()>,
    analysis: Option<analysis::Analysis>,
    /// The console store and its file, written once more at a graceful stop.
    store: Option<(console::store::Kept, std::path::PathBuf)>,
}

impl RunningHall {
    /// Returns when the HTTP server has stopped by itself (it logged why): the hall is then
    /// of no use and should stop.
    pub async fn http_ended(&mut self) {
        let _ = (&mut self.http).await;
    }

    /// Stops the HTTP server and the MQTT client; the console store (logins, commands,
    /// alerts taken) is written once more first.
    pub fn stop(self) {
        self.http.abort();
        if let Some((kept, path)) = &self.store {
            console::store::save_now(kept, path);
        }
        if let Some(a) = &self.analysis {
            a.stop();
        }
        match Arc::try_unwrap(self.mqtt) {
            Ok(link) => link.stop(),
            Err(_) => tracing::debug!("MQTT client still shared; it stops with the runtime"),
        }
    }
}

/// Starts the hall on the current tokio runtime: connects to `broker`
/// (`mqtt://host[:port]` or `mqtts://...`; in the background, with back-off) and serves
/// HTTP on `http` (`127.0.0.1:8090`, port 0 for any).
pub async fn start(
    broker: &str,
    http: &str,
    config: &HallConfig,
) -> Result<RunningHall, HallError> {
    let url = BrokerUrl::parse(broker)?;
    // A client id nobody can guess ahead (unless configured): a broker that does not tie
    // client ids to user names lets whoever takes an id throw its holder off.
    let tag: String = {
        let bytes: [u8; 8] = rand::rng().random();
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    };
    let client_id = config
        .mqtt
        .client_id
        .clone()
        .unwrap_or_else(|| format!("tengen-hall-{tag}"));
    let credentials = match (&config.mqtt.username, &config.mqtt.password_file) {
        (Some(user), Some(file)) => Some((
            user.clone(),
            read_password_file(file).map_err(HallError::Password)?,
        )),
        (Some(user), None) => Some((user.clone(), String::new())),
        _ => None,
    };
    if credentials.is_some() && !url.tls {
        tracing::warn!(
            "mqtt.password_file: the password goes to {broker} in clear text, readable by \
             anyone on that network: use an mqtts:// broker"
        );
    }
    let settings = ClientSettings {
        url,
        client_id: client_id.clone(),
        credentials,
        tls: config.mqtt.tls(),
    };
    let command_key = match &config.hall.command_key_file {
        Some(path) => Some(read_key(path).map_err(HallError::CommandKey)?),
        None => None,
    };
    // The keys to the boards' live clocks (a tablet's link under a broadcast delay).
    let clock_keys = routes::clock::ClockKeys::new(command_key.as_deref());
    // Read before the MQTT client starts, so every game is there for the first request.
    let archive = match &config.hall.archive_dir {
        Some(dir) => {
            let archive = boards::archive::Archive::open(dir)?;
            tracing::info!("archive {}: {} games", dir.display(), archive.len());
            Some(Arc::new(Mutex::new(archive)))
        }
        None => None,
    };
    let analysis = config.analysis.as_ref().map(analysis::Analysis::start);
    let public_watch = analysis
        .clone()
        .map(|a| -> boards::hall_state::PublicWatch {
            Box::new(move |key, view| a.offer(key, view))
        });
    let tournament = match &config.tournament {
        Some(section) => {
            let link =
                TournamentLink::load(section)?.with_late_reminder(config.hall.late_reminder_s());
            tracing::info!(
                "tournament {}: {} players, rounds {:?}; results to {}",
                link.tournament().name(),
                link.tournament().players().len(),
                link.tournament().rounds(),
                section.results_file.display()
            );
            Some(Arc::new(Mutex::new(link)))
        }
        None => None,
    };
    // The boards it believes: by the tournament's pattern, only the tables the file has.
    let mut filter = boards::board_filter::BoardFilter::from_config(config);
    if let Some(link) = &tournament {
        let link = link.lock().unwrap_or_else(|p| p.into_inner());
        filter = filter.with_tables_of(link.tournament());
    }
    let mut hall = HallState::new(&config.mqtt.prefix, config.hall.identity.clone())
        .with_broadcast(config.broadcast.as_ref())
        .with_live_commentary(config.hall.commentary_live)
        .with_command_key(command_key)
        .with_board_silence(config.hall.board_silence())
        .with_archive(archive.is_some())
        .with_public_watch(public_watch)
        .with_filter(filter);
    if config.hall.venues.is_some() {
        hall = hall.into_hub();
    } else if config.venue.is_some() {
        hall = hall.into_venue();
    }
    // A hub: its venues' boards, followed strictly, from where its archive left them.
    let hub = config.hall.venues.as_ref().map(|venues| {
        let hub = venues::hub::Hub::new(venues.clone());
        if let Some(a) = &archive {
            let n = venues::inbox::seed_from_archive(&mut hall, &hub, a);
            tracing::info!("hub: {n} boards taken back from the archive");
        }
        let ids: Vec<&str> = venues.iter().map(|v| v.id.as_str()).collect();
        tracing::info!("hub of venues {}", ids.join(", "));
        Arc::new(Mutex::new(hub))
    });
    let state: Shared = Arc::new(Mutex::new(hall));
    if let Some(warning) = config.trust_warning() {
        tracing::warn!("{warning}");
    }
    let bind_error = |source| HallError::Bind {
        addr: http.to_string(),
        source,
    };
    // Read before anything starts: a bad certificate stops the hall with one line.
    let tls = match (&config.hall.tls_cert, &config.hall.tls_key) {
        (Some(cert), Some(key)) => Some(https::acceptor(cert, key)?),
        _ => None,
    };
    let listener = tokio::net::TcpListener::bind(http)
        .await
        .map_err(bind_error)?;
    let addr = listener.local_addr().map_err(bind_error)?;
    if tls.is_none() && !addr.ip().is_loopback() {
        tracing::warn!(
            "!!! the hall serves plain HTTP on {addr}, beyond this machine: console passwords \
             and session cookies cross the network in clear. Give [hall] tls_cert and tls_key \
             (docs/operating.md), or listen on 127.0.0.1 !!!"
        );
    }
    // A hall that publishes the public tree may release a whole game per board at once
    // (after a restart): room for that without dropping messages.
    let queue = if config.broadcast.is_some() {
        1 << 16
    } else {
        1024
    };
    let hall_inbox = boards::mqtt_client::HallInbox {
        hall: state.clone(),
        archive: archive.is_some(),
    };
    let inbox: Box<dyn boards::mqtt_client::Inbox> = match (&hub, &config.venue) {
        (Some(hub), _) => Box::new(venues::inbox::HubInbox {
            hall: state.clone(),
            hub: hub.clone(),
            archive: archive.is_some(),
        }),
        (None, Some(venue)) => {
            tracing::info!("venue {}: telling its hub what it holds", venue.id);
            Box::new(venues::inbox::VenueInbox {
                hall: hall_inbox,
                venue: venues::venue_side::VenueSide::new(&venue.id),
            })
        }
        (None, None) => Box::new(hall_inbox),
    };
    let mqtt = Arc::new(MqttLink::start(&settings, inbox, archive.clone(), queue)?);
    let hours = config.hall.session_hours.unwrap_or(DEFAULT_SESSION_HOURS);
    let lifetime = Duration::from_secs(hours.saturating_mul(3600));
    let public_sources = public::Sources {
        hall: state.clone(),
        archive: archive.clone(),
        tournament: tournament.clone(),
    };
    let app = routes::App {
        hall: state,
        mqtt: mqtt.clone(),
        arbiters: Arc::new(config.arbiters.clone()),
        sessions: Arc::new(Mutex::new(console::auth::Sessions::new(lifetime))),
        session_lifetime: lifetime,
        logins: Arc::new(Mutex::new(console::login_limit::LoginLimiter::default())),
        hash_checks: Arc::new(tokio::sync::Semaphore::new(routes::HASH_CHECKS)),
        secure_cookie: tls.is_some(),
        commentary_live: config.hall.commentary_live,
        overview: Arc::default(),
        tournament,
        archive,
        lang: config.hall.lang,
        feed: Arc::default(),
        store_wake: config
            .hall
            .archive_dir
            .as_ref()
            .map(|_| Arc::new(tokio::sync::Notify::new())),
        zips: Arc::default(),
        venues: hub,
        public: public_sources,
    };
    if let Some(link) = &app.tournament {
        tournament::watch::spawn(link.clone(), app.hall.clone());
    }
    let mut store = None;
    if let (Some(dir), Some(wake)) = (&config.hall.archive_dir, &app.store_wake) {
        // The logins and the commands of the last run, before the first request.
        let path = dir.join(console::store::FILE);
        let kept = console::store::Kept {
            hall: app.hall.clone(),
            sessions: app.sessions.clone(),
            wake: wake.clone(),
        };
        console::store::restore(&kept, &path);
        console::store::spawn(kept.clone(), path.clone());
        store = Some((kept, path));
    }
    // The black boxes of finished games, fetched into the archive (the round zip's
    // `frames/`): the hall asks in its own name, so it needs one.
    match (&app.archive, &config.hall.identity) {
        (Some(archive), Some(_)) => {
            boards::frames_archive::spawn(app.hall.clone(), app.mqtt.clone(), archive.clone())
        }
        (Some(_), None) => tracing::info!(
            "archive: no [hall] identity, so the boards' black boxes are not fetched into it"
        ),
        _ => {}
    }
    if let Some(dir) = config.broadcast.as_ref().and_then(|b| b.export_dir.clone()) {
        public::static_export::spawn(
            app.public.clone(),
            app.feed.clone(),
            dir,
            analysis.clone(),
            app.lang,
        );
    }
    let limits = limits::Limits::new(config, tengen_net::open_files::soft_limit());
    tracing::info!("hall: {}", limits.describe());
    if let Some(warning) = limits.overcommitted() {
        tracing::warn!("{warning}");
    }
    let caps = routes::public_caps::PublicCaps::new(app.clone(), &limits);
    let knows: analysis::route::KnowsBoard = {
        let hall = app.hall.clone();
        Arc::new(move |key| boards::hall_state::lock(&hall).public_feed(key).is_some())
    };
    let router = routes::router()
        .merge(routes::console_api_router())
        .merge(routes::rounds::routes())
        .merge(routes::round_zip::routes())
        .merge(routes::round_feed::routes())
        .merge(routes::commentary::routes())
        .merge(routes::clock::routes(clock_keys))
        .merge(routes::broker::routes())
        .merge(routes::incidents::routes())
        .merge(routes::venues_view::routes())
        .layer(axum::middleware::from_fn(routes::same_origin))
        .layer(axum::middleware::from_fn_with_state(
            app.lang,
            routes::lang::in_its_language,
        ))
        .with_state(app)
        .merge(analysis::route::routes(analysis.clone(), knows))
        .layer(axum::middleware::from_fn_with_state(
            caps,
            routes::public_caps::limit_public,
        ));
    let scheme = if tls.is_some() { "https" } else { "http" };
    let listener = listener::HallListener::new(listener, tls, &limits).map_err(bind_error)?;
    let service = listener::HallService::new(router);
    let http_task = tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, service).await {
            tracing::error!("hall {scheme} server stopped: {e}");
        }
    });
    tracing::info!("hall serving {scheme}://{addr}/ as MQTT client {client_id}");
    Ok(RunningHall {
        addr,
        https: scheme == "https",
        mqtt,
        http: http_task,
        analysis,
        store,
    })
}
