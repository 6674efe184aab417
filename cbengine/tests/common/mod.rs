//! What the library's tests share: where the built engine library is.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// The cdylib: in the test binary's own `deps/` folder, where `cargo test` builds it for
/// these tests, or next to that folder, where `cargo build` puts it; otherwise built once
/// here, in release, into a target folder of its own (cargo holds the main one while tests
/// run).
pub fn library_path() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let name = format!(
            "{}tmbot_cb{}",
            std::env::consts::DLL_PREFIX,
            std::env::consts::DLL_SUFFIX
        );
        let exe = std::env::current_exe().unwrap();
        let deps = exe.parent().unwrap();
        for built in [deps.join(&name), deps.parent().unwrap().join(&name)] {
            if built.exists() {
                return built;
            }
        }
        let target = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/cdylib-for-tests");
        let status = Command::new(env!("CARGO"))
            .args(["build", "--release", "-p", "tmbot-cb", "--lib"])
            .env("CARGO_TARGET_DIR", &target)
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building the engine library failed");
        target.join("release").join(name)
    })
    .clone()
}
