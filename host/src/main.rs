//! The `mosaic-queue` binary: parse, run, and turn the outcome into the contract's exit code
//! (clap's usage errors are `Exit::Usage`; `--help` and `--version` exit 0). The only place
//! the process exits with a number.

use clap::Parser;
use clap::error::ErrorKind;
use mosaic_queue::cli::{self, Cli};
use mosaic_queue::exit::Exit;

fn main() {
    let parsed = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => 0,
                _ => Exit::Usage.code(),
            };
            let _ = e.print();
            std::process::exit(code);
        }
    };
    if let Err(f) = cli::run(parsed) {
        eprintln!("mosaic-queue: {}", f.message);
        std::process::exit(f.exit.code());
    }
}
