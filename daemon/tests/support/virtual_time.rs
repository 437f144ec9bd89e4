//! Virtual time for the scan loop in the service tests: 10 ms per turn, shared so the test
//! can read it. Include with `#[path = "support/virtual_time.rs"] mod virtual_time;`.

use std::sync::{Arc, Mutex};

use tengen_daemon::service::scan_loop::Pacer;
use tengen_hal::Millis;

/// The scan loop's clock: `wait` moves it on by one 10 ms scan period.
pub(crate) struct Virtual(pub(crate) Arc<Mutex<Millis>>);

impl Pacer for Virtual {
    fn now(&mut self) -> Millis {
        *self.0.lock().unwrap()
    }
    fn wait(&mut self) {
        *self.0.lock().unwrap() += 10;
    }
}
