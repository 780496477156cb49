//! What the end-to-end tests share, as a dev-only crate: scratch canonical checkouts and the
//! real binary run in them (`repo`, re-exported at the top), a scriptable fake Gitea, the review
//! suites' set-up, a `git` that records its calls, waiting for a process to watch a directory,
//! the workload generator the benchmarks and the sandbox's tests replay, the benchmark
//! examples' scratch checkouts (`bench`), a long queue built in memory (`long`), a small MCP
//! client (`mcp`), a real OpenSSH server for the remote seats' tests (`sshd`), a real git remote
//! and the follower's process for the replication tests (`replica`), the crash
//! checks' judgement of doctor (`findings`), the board's process and plain HTTP client
//! (`board`), and a WebDriver client for its browser tests (`webdriver`).

pub mod bench;
pub mod board;
pub mod fake_gitea;
pub mod findings;
pub mod house;
pub mod long;
pub mod mcp;
pub mod recording_git;
pub mod relay;
pub mod replica;
pub mod retry;
pub mod review;
pub mod sshd;
pub mod watch;
pub mod webdriver;
pub mod workload;

mod repo;
pub use repo::*;
