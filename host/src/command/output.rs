//! Where a command's answer is printed. Without `--json` every part is written to stdout as
//! the verb gives it; with `--json` it is gathered (`reply::Gathered`) and `finish` prints the
//! one document it ends as. Warnings and the failure's line go to stderr either way.

use mosaic_queue_core::{Entry, Row};

use crate::reply::{Failure, Gathered, Replied, Reply};

/// The CLI's reply: printed as it comes, or gathered under `--json`.
pub struct Printed {
    gathered: Option<Gathered>,
}

impl Printed {
    /// `json`: gather the answer and print it as one document at the end.
    pub fn new(json: bool) -> Printed {
        Printed {
            gathered: json.then(|| Gathered::new(true)),
        }
    }

    /// Ends the command as every face that prints ends it: the failure's line on stderr, then
    /// `finish`; returns the exit code.
    pub fn end(self, verb: &str, change: bool, result: &Replied) -> i32 {
        if let Err(f) = result {
            warn(&format!("mosaic-queue: {}", f.message));
        }
        self.finish(verb, change, result)
    }

    /// Ends the command: with `--json` prints its one document; returns the exit code. `verb`
    /// is the command's name, `change` whether it writes log entries (its receipt is the
    /// document). The failure's line is the caller's to print, before this.
    pub fn finish(self, verb: &str, change: bool, result: &Replied) -> i32 {
        let Some(gathered) = self.gathered else {
            return result.as_ref().err().map_or(0, |f| f.exit.code());
        };
        let finished = gathered.finish(verb, change, result);
        print_or(&finished.document, finished.exit, change)
    }
}

impl Reply for Printed {
    fn documents(&self) -> bool {
        self.gathered.is_some()
    }

    fn text(&mut self, text: &str) -> Replied {
        match &mut self.gathered {
            Some(g) => g.text(text),
            None => write_stdout(text),
        }
    }

    fn document(&mut self, bytes: Vec<u8>) -> Replied {
        match &mut self.gathered {
            Some(g) => g.document(bytes),
            None => write_stdout(&String::from_utf8_lossy(&bytes)),
        }
    }

    /// A receipt that cannot be printed leaves its op durable but unacknowledged, which is
    /// exit 3: the caller retries the same op and gets the receipt from the log.
    fn receipt(&mut self, entry: &Entry, recorded: bool) -> Replied {
        if let Some(g) = &mut self.gathered {
            return g.receipt(entry, recorded);
        }
        write_stdout(&format!("{}\n", entry.receipt)).map_err(|f| {
            Failure::uncertain(format!(
                "{}; the op is written but its receipt did not print: retry the same op",
                f.message
            ))
        })
    }

    fn taken(&mut self, row: &Row) {
        if let Some(g) = &mut self.gathered {
            g.taken(row);
        }
    }

    fn warn(&mut self, line: &str) {
        warn(line);
    }
}

/// Writes `text` to stdout. A closed stdout (`mosaic-queue list | head`) must not panic: the
/// command fails with exit 1 and one line on stderr instead.
fn write_stdout(text: &str) -> Replied {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|e| Failure::failed(format!("cannot write to stdout: {e}")))?;
    // The crash-state tests read from the trace when each line (a receipt) was printed.
    crate::io::seams::printed(text);
    Ok(())
}

/// Prints the final document. A stdout that cannot take it turns success into exit 1, or 3
/// after a change: its op is written but unacknowledged, and a retry of the same op prints it.
pub fn print_or(text: &str, code: i32, change: bool) -> i32 {
    match write_stdout(text) {
        Ok(()) => code,
        Err(f) => {
            warn(&format!("mosaic-queue: {}", f.message));
            match code {
                0 if change => 3,
                0 => 1,
                c => c,
            }
        }
    }
}

/// Writes `line` and a newline to stderr, on one line whatever it holds (a path may hold a
/// newline). A stderr that cannot be written (`2>/dev/full`, a closed pipe) loses the line and
/// nothing else: no panic, and the command's outcome and exit code stay what they were.
pub fn warn(line: &str) {
    use std::io::Write;
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "{}", mosaic_queue_core::one_line(line));
    let _ = stderr.flush();
}
