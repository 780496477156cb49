//! The one wasmtime configuration of the sandbox, shared by `host/build.rs` (which compiles the
//! module ahead of time) and the runner (which loads that artifact): wasmtime loads a
//! precompiled module only into an engine whose settings match the compiling one's exactly.

/// Fuel metering on, and no address map from native code back to wasm offsets: a trap is a
/// refusal whatever instruction raised it, so the map would only make the embedded artifact
/// larger. Everything else wasmtime's default for the features both builds enable.
pub fn config() -> wasmtime::Config {
    let mut config = wasmtime::Config::new();
    config.consume_fuel(true);
    config.generate_address_map(false);
    config
}
