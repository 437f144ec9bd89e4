//! Where the parts of an emulated run are: Node.js, the harness and its packages, the
//! firmware image. Each is checked before anything starts, with a one-line error naming
//! what to do.

use std::path::{Path, PathBuf};

use crate::error::EmulatorError;

/// The repository's `firmware/` folder (this crate is `firmware/host/`).
pub fn firmware_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("firmware"), Path::to_path_buf)
}

/// Where `firmware/build-image` leaves the image.
pub fn default_image() -> PathBuf {
    firmware_dir().join("rp2040/target/thumbv6m-none-eabi/release/tengen-firmware")
}

/// `name` on `PATH`, if there.
pub fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// The emulator's parts, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmulatorPaths {
    /// `node`.
    pub node: PathBuf,
    /// `firmware/emulator/harness.mjs`.
    pub harness: PathBuf,
    /// The firmware image (ELF).
    pub image: PathBuf,
}

impl EmulatorPaths {
    /// Finds Node.js on `PATH`, the harness in this repository and the image (`image`, or
    /// the default build's); an error says what is missing and how to get it.
    pub fn find(image: Option<&Path>) -> Result<EmulatorPaths, EmulatorError> {
        let node = on_path("node").ok_or(EmulatorError::NoNode)?;
        let emulator = firmware_dir().join("emulator");
        if !emulator
            .join("node_modules/rp2040js/package.json")
            .is_file()
        {
            return Err(EmulatorError::NoEmulator(emulator));
        }
        let image = image.map_or_else(default_image, Path::to_path_buf);
        if !image.is_file() {
            return Err(EmulatorError::NoImage(image));
        }
        Ok(EmulatorPaths {
            node,
            harness: emulator.join("harness.mjs"),
            image,
        })
    }
}
