//! wasm-bindgen exports for Node (filled in by the node-shim work).
