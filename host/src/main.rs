//! The `mosaic-queue` binary: parse, run, and turn the outcome into the contract's exit code
//! (clap's usage errors become 4; `--help` and `--version` exit 0).

use clap::Parser;
use clap::error::ErrorKind;
use mosaic_queue::cli::{self, Cli};

fn main() {
    let parsed = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => 0,
                _ => 4,
            };
            let _ = e.print();
            std::process::exit(code);
        }
    };
    if let Err(f) = cli::run(parsed) {
        eprintln!("mosaic-queue: {}", f.message);
        std::process::exit(f.code);
    }
}
