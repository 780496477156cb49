//! `mosaic-queue board`: the queue as web pages for the people who lead the team, served
//! read-only on loopback. Three layers, each touching one thing: `source` reads the queue (the
//! only calls into the rest of the host) into a `snapshot`; `page` turns a snapshot into HTML,
//! SVG and event payloads through `escape`; `server` answers HTTP.

pub mod escape;
pub mod page;
pub mod server;
pub mod snapshot;
pub mod source;

pub use server::serve;
