//! `mosaic-queue board`: the queue as web pages for the people who lead the team, served
//! read-only on loopback. A face on the engine: `engine::board` reads the queue into a
//! snapshot (the only calls into the rest of the host); `page` turns a snapshot into HTML,
//! SVG and event payloads through `escape`; `server` answers HTTP.

pub mod escape;
pub mod page;
pub mod server;

pub use server::serve;
