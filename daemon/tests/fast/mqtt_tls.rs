//! The publisher over TLS (rustls, ring provider) to mosquitto: the broker's certificate
//! checked against a CA file, the board authenticated by its client certificate. The
//! certificates are made here with the `openssl` command. With `TENGEN_REQUIRE_ORACLES=1`
//! a missing mosquitto or openssl fails the test.

use crate::broker;

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use broker::{envelope, Mosquitto, Subscriber};
use tengen_daemon::mqtt::{MemorySource, MqttSettings, Publisher, PublisherParts, Topics};
use tengen_net::broker::{BrokerUrl, TlsFiles};

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run openssl");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A CA, a server certificate for localhost/127.0.0.1 and a client certificate for the
/// board `b1`, all P-256.
fn make_certs(dir: &Path) {
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    let mut ca = vec!["req", "-x509"];
    ca.extend(ec);
    ca.extend([
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=test-hall-ca",
    ]);
    openssl(dir, &ca);
    std::fs::write(
        dir.join("server.ext"),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    std::fs::write(dir.join("client.ext"), "extendedKeyUsage=clientAuth\n").unwrap();
    for (name, cn) in [("server", "localhost"), ("client", "b1")] {
        let mut req = vec!["req"];
        req.extend(ec);
        let key = format!("{name}.key");
        let csr = format!("{name}.csr");
        let subj = format!("/CN={cn}");
        req.extend(["-keyout", &key, "-out", &csr, "-subj", &subj]);
        openssl(dir, &req);
        let pem = format!("{name}.pem");
        let ext = format!("{name}.ext");
        openssl(
            dir,
            &[
                "x509",
                "-req",
                "-in",
                &csr,
                "-CA",
                "ca.pem",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-out",
                &pem,
                "-days",
                "2",
                "-extfile",
                &ext,
            ],
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn publishes_over_tls_with_a_client_certificate() {
    if Command::new("openssl").arg("version").output().is_err() {
        assert!(
            !broker::oracles_required(),
            "openssl is missing and TENGEN_REQUIRE_ORACLES=1"
        );
        eprintln!("skipped: openssl is not installed");
        return;
    }
    let certs = tempfile::tempdir().unwrap();
    let d = certs.path();
    make_certs(d);
    let tls_port = broker::free_port();
    let extra = format!(
        "listener {tls_port} 127.0.0.1\ncafile {}\ncertfile {}\nkeyfile {}\n\
         require_certificate true\nuse_identity_as_username true\n",
        d.join("ca.pem").display(),
        d.join("server.pem").display(),
        d.join("server.key").display()
    );
    let Some(m) = Mosquitto::start_with(&extra) else {
        return;
    };
    assert!(broker::wait_listening(tls_port, Duration::from_secs(10)));

    let topics = Topics::new("tengen", "t1", "b1").unwrap();
    let mut sub = Subscriber::connect(&m.url(), "viewer-tls", &[&topics.events()]).await;
    let mut settings = MqttSettings::new(
        BrokerUrl::parse(&format!("mqtts://localhost:{tls_port}")).unwrap(),
        "b1",
    );
    settings.tls = TlsFiles {
        ca_file: Some(d.join("ca.pem")),
        cert_file: Some(d.join("client.pem")),
        key_file: Some(d.join("client.key")),
    };
    let source = MemorySource::new();
    for seq in 1..=5 {
        source.push(&envelope(seq)).unwrap();
    }
    let publisher = Publisher::start(
        settings,
        PublisherParts {
            topics: topics.clone(),
            source: Arc::new(source),
            ack_file: None,
            ids_file: None,
            commands: None,
            version: "test".into(),
        },
    )
    .unwrap();
    publisher
        .wait_acked(5, Duration::from_secs(15))
        .await
        .unwrap();
    for seq in 1..=5u64 {
        let msg = sub
            .next_on(&topics.events(), Duration::from_secs(10))
            .await
            .expect("event over TLS");
        assert_eq!(msg.json()["seq"], seq);
    }
    publisher.shutdown(Duration::from_secs(10)).await.unwrap();
    sub.stop();
}
